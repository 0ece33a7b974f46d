import { newReceiptId } from '../core/ids.js'
import type { MemoryUsage, Receipt, ReceiptRetention } from '../core/receipt-rules.js'
import {
  checkReceiptInput,
  checkReceiptsQuery,
  estimateTokens,
  RECEIPT_KEEP_COUNT_DEFAULT,
  RECEIPT_KEEP_DAYS_DEFAULT,
  receiptCursor,
} from '../core/receipt-rules.js'
import type { MemoryBackend } from '../storage/spi/memory-backend.js'
import type { PrepareContextCommand, PrepareContextResult } from './context-preparer.js'
import { prepareContext } from './context-preparer.js'

/** Hook events the prepare metrics name; any other is counted as `other`, a call without a receipt as `api`. */
export const PREPARE_METRIC_EVENTS = [
  'session_start',
  'user_prompt_submit',
  'pre_compact',
  'api',
  'other',
] as const
export type PrepareMetricEvent = (typeof PREPARE_METRIC_EVENTS)[number]

/** One answered prepare, as `GET /metrics` observes it. */
export interface PrepareObservation {
  readonly event: PrepareMetricEvent
  readonly bytes: number
  readonly items: number
  readonly seconds: number
}

/** How often the background prune runs (and after how many recorded receipts it runs early). */
export const RECEIPT_PRUNE_INTERVAL_MS = 10 * 60_000
const PRUNE_EVERY_RECORDS = 1000

/** A receipts read: a page of receipts, the cursor of the next one, the memory's usage. */
export interface ReceiptsPage {
  readonly receipts: readonly Receipt[]
  readonly nextBefore: string | null
  readonly usage: MemoryUsage | null
}

/** A receipts read as a surface passes it (validated here). */
export interface ReceiptsCommand {
  readonly scopeId: string
  readonly sessionId?: string | undefined
  readonly memoryId?: string | undefined
  readonly before?: string | undefined
  readonly limit?: number | undefined
}

const metricEvent = (event: string | undefined): PrepareMetricEvent =>
  event === undefined
    ? 'api'
    : (PREPARE_METRIC_EVENTS as readonly string[]).includes(event)
      ? (event as PrepareMetricEvent)
      : 'other'

/**
 * Prepares context and records its receipt (docs/agents.md "Receipts"): when the call names its
 * host, session and event, the exact refs injected, bytes, token estimate and whether every chosen
 * item was served whole are written after the answer, in a small transaction of their own (never
 * on the hook's path). A failed write is reported to `onError` and never fails the prepare. A read
 * of receipts waits for the writes already started. Receipts are pruned by age and count.
 */
export class ReceiptRecorder {
  readonly #backend: MemoryBackend
  readonly #now: () => Date
  readonly #retention: ReceiptRetention
  readonly #pending = new Set<Promise<void>>()
  readonly #listeners = new Set<(o: PrepareObservation) => void>()
  #sincePrune = 0
  #timer: NodeJS.Timeout | undefined
  #onError: (err: unknown) => void = () => undefined

  constructor(backend: MemoryBackend, now: () => Date, retention?: Partial<ReceiptRetention>) {
    this.#backend = backend
    this.#now = now
    this.#retention = {
      keepDays: retention?.keepDays ?? RECEIPT_KEEP_DAYS_DEFAULT,
      keepCount: retention?.keepCount ?? RECEIPT_KEEP_COUNT_DEFAULT,
    }
  }

  /** The retention in force. */
  get retention(): ReceiptRetention {
    return this.#retention
  }

  /** Hears every answered prepare (metrics); returns the unsubscribe function. */
  onPrepared(listener: (o: PrepareObservation) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * Prepared context, with its receipt recorded when `cmd.receipt` is given.
   * @throws PowerContextError `invalid_request` (also for a malformed `receipt`: nothing is
   *   prepared or recorded), and the codes of `prepareContext`.
   */
  async prepare(cmd: PrepareContextCommand): Promise<PrepareContextResult> {
    const input = cmd.receipt === undefined ? undefined : checkReceiptInput(cmd.receipt)
    const started = performance.now()
    const result = await prepareContext(this.#backend, cmd)
    const ms = performance.now() - started
    const observation: PrepareObservation = {
      event: metricEvent(input?.event),
      bytes: result.contentBytes,
      items: result.items.length,
      seconds: ms / 1000,
    }
    for (const listener of this.#listeners) listener(observation)
    if (input === undefined) return result
    const now = this.#now()
    const scopeIds = [...new Set([cmd.scopeId, ...(cmd.scopeIds ?? [])])]
    this.#write({
      ...input,
      receiptId: newReceiptId(now.getTime()),
      scopeId: cmd.scopeId,
      scopeIds,
      kind: cmd.query === undefined ? 'brief' : 'recall',
      status: result.status,
      maxBytes: result.maxBytes,
      contentBytes: result.contentBytes,
      tokenEstimate: estimateTokens(result.contentBytes),
      withinBudget: result.withinBudget,
      durationMs: Math.round(ms),
      items: result.items.map((item) => ({
        memoryRef: item.memoryRef,
        scopeId: item.scopeId ?? cmd.scopeId,
        truncated: item.truncated,
      })),
      createdAt: now.toISOString(),
    })
    return result
  }

  #write(receipt: Receipt): void {
    const done = this.#backend.receipts
      .record(receipt)
      .catch((err: unknown) => this.#onError(err))
      .finally(() => this.#pending.delete(done))
    this.#pending.add(done)
    this.#sincePrune += 1
    if (this.#sincePrune >= PRUNE_EVERY_RECORDS) this.#prune()
  }

  /** Waits for every receipt write already started. */
  async settle(): Promise<void> {
    await Promise.all([...this.#pending])
  }

  /**
   * One page of receipts, newest first (after the writes already started).
   * @throws PowerContextError `invalid_request`
   */
  async list(cmd: ReceiptsCommand): Promise<ReceiptsPage> {
    const q = checkReceiptsQuery(cmd)
    await this.settle()
    const { receipts, usage } = await this.#backend.receipts.list(q)
    const last = receipts.at(-1)
    const nextBefore =
      receipts.length === q.limit && last !== undefined ? receiptCursor(last) : null
    return { receipts, nextBefore, usage }
  }

  /** Prunes now by the retention; returns how many receipts were removed. */
  async prune(): Promise<number> {
    await this.settle()
    this.#sincePrune = 0
    return this.#backend.receipts.prune(this.#retention)
  }

  #prune(): void {
    this.prune().catch((err: unknown) => this.#onError(err))
  }

  /** Starts the background prune (now, then every interval); `stop` ends it. */
  start(options: { intervalMs?: number; onError?: (err: unknown) => void } = {}): void {
    if (options.onError !== undefined) this.#onError = options.onError
    if (this.#timer !== undefined) return
    this.#prune()
    this.#timer = setInterval(() => this.#prune(), options.intervalMs ?? RECEIPT_PRUNE_INTERVAL_MS)
    this.#timer.unref()
  }

  /** Stops the background prune and waits for the writes already started. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
    await this.settle()
  }
}
