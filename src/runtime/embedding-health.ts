import type { Embedder } from '../core/embedding.js'
import { isErrorCode, PowerContextError } from '../core/errors.js'
import type { MemoryBackend, ReindexReport } from '../storage/spi/memory-backend.js'

/** How long a probe may take before it counts as `timeout`. */
const PROBE_TIMEOUT_MS = 2_000
/** Cache lifetimes of a probe result, as the Python reference keeps them: settled results longer, failures shorter. */
const READY_TTL_MS = 300_000
const FAILED_TTL_MS = 30_000

/**
 * The embedding side of readiness (non-blocking checks: a problem means `degraded`, not
 * `not_ready`). `inference.embedding` is `ready`, `timeout`, `unavailable: …` or
 * `misconfigured: profile …`; `vector_index` appears only when the vector index is unavailable.
 * The model is probed with one short text, at most every 30 s (failure) or 300 s (success).
 */
export class EmbeddingHealth {
  readonly #embedder: Embedder
  #cached: { value: string; until: number } | undefined

  constructor(embedder: Embedder) {
    this.#embedder = embedder
  }

  /** Forgets the cached probe (the background reindex saw the model change state). */
  invalidate(): void {
    this.#cached = undefined
  }

  async checks(backend: MemoryBackend): Promise<Record<string, string>> {
    const status = backend.vectorStatus()
    if (status.state === 'misconfigured') {
      return { 'inference.embedding': `misconfigured: ${status.reason ?? 'profile mismatch'}` }
    }
    // A write or search that just saw the model fail is fresher news than a cached probe.
    const failedRecently = status.coolingDownUntil !== null
    if (failedRecently && this.#cached?.value === 'ready') this.#cached = undefined
    const checks: Record<string, string> = { 'inference.embedding': await this.#probe() }
    if (status.state === 'unavailable') {
      checks['vector_index'] = `unavailable: ${status.reason ?? 'unknown'}`
    }
    return checks
  }

  async #probe(): Promise<string> {
    const now = Date.now()
    if (this.#cached !== undefined && now < this.#cached.until) return this.#cached.value
    let value: string
    let timer: NodeJS.Timeout | undefined
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new PowerContextError('inference_timeout', 'probe timed out')),
          PROBE_TIMEOUT_MS,
        )
      })
      const [vector] = await Promise.race([
        this.#embedder.embed(['powercontext readiness probe']),
        timeout,
      ])
      value =
        Array.isArray(vector) && vector.length === this.#embedder.profile.dimension
          ? 'ready'
          : 'unavailable: the model returned a vector of the wrong dimension'
    } catch (err) {
      const code = err instanceof PowerContextError ? err.code : undefined
      value = code === 'inference_timeout' ? 'timeout' : `unavailable: ${(err as Error).message}`
    } finally {
      clearTimeout(timer)
    }
    this.#cached = { value, until: now + (value === 'ready' ? READY_TTL_MS : FAILED_TTL_MS) }
    return value
  }
}

/** Options of the background reindex loop. */
export interface ReindexLoopOptions {
  /** Delay after a successful pass (the first pass starts at once). Default 30 s. */
  readonly intervalMs?: number
  /** Largest delay after repeated failures (doubling backoff). Default 10 min. */
  readonly maxIntervalMs?: number
  /** Told about failures (the loop keeps going). */
  readonly onError?: (err: unknown) => void
  /**
   * Told when a pass starts (`start`, zero totals), every {@link PROGRESS_EVERY_MS} while it runs
   * (`progress`, running totals) and when it ends (`done`, the pass's report).
   */
  readonly onProgress?: (phase: 'start' | 'progress' | 'done', report: ReindexReport) => void
}

/** Least time between two `progress` reports of one pass. */
export const PROGRESS_EVERY_MS = 5_000

/**
 * Re-embeds missing vectors in the background while the server runs (docs/storage.md): at start, and
 * whenever the backend reports a backlog (unknown at open; writes during a model outage), it runs
 * `reindex`, reporting progress; a failing model doubles the delay up to the maximum, a success
 * resets it.
 */
export class ReindexLoop {
  readonly #backend: MemoryBackend
  readonly #base: number
  readonly #max: number
  readonly #onError: (err: unknown) => void
  readonly #onProgress: NonNullable<ReindexLoopOptions['onProgress']>
  readonly #onPass: () => void
  #delay: number
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #stopped = false
  #lastRemaining: number | null = null

  constructor(backend: MemoryBackend, options: ReindexLoopOptions, onPass: () => void) {
    this.#backend = backend
    this.#base = options.intervalMs ?? 30_000
    this.#max = Math.max(this.#base, options.maxIntervalMs ?? 600_000)
    this.#onError = options.onError ?? (() => {})
    this.#onProgress = options.onProgress ?? (() => {})
    this.#onPass = onPass
    this.#delay = this.#base
    this.#schedule(0)
  }

  /** Heads without a valid vector after the last pass (running totals while one runs), or null. */
  get lastRemaining(): number | null {
    return this.#lastRemaining
  }

  #schedule(delay = this.#delay): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => {
      this.#running = this.#tick().finally(() => {
        this.#running = undefined
        this.#schedule()
      })
    }, delay)
    this.#timer.unref()
  }

  async #tick(): Promise<void> {
    const status = this.#backend.vectorStatus()
    if (status.state !== 'ready' || !status.backlog) return
    this.#onProgress('start', { scanned: 0, embedded: 0, remaining: 0, error: null })
    let reported = Date.now()
    try {
      const report = await this.#backend.reindex({
        onProgress: (p) => {
          if (Date.now() - reported < PROGRESS_EVERY_MS) return
          reported = Date.now()
          this.#onProgress('progress', p)
        },
      })
      this.#lastRemaining = report.remaining
      this.#onProgress('done', report)
      this.#onPass()
      if (report.error === null) this.#delay = this.#base
      else {
        this.#delay = Math.min(this.#delay * 2, this.#max)
        const { code, message } = report.error
        this.#onError(
          new PowerContextError(isErrorCode(code) ? code : 'inference_unavailable', message),
        )
      }
    } catch (err) {
      this.#delay = Math.min(this.#delay * 2, this.#max)
      this.#onError(err)
    }
  }

  /** Stops scheduling and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    await this.#running
  }
}
