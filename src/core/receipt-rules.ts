import { checkLimit } from './command-rules.js'
import { invalidRequest } from './errors.js'
import { checkMemoryId, checkScopeId, isPrintableId, RECEIPT_ID_PREFIX } from './ids.js'
import type { ArtifactRef } from './memory-model.js'

/**
 * Receipts: what prepared context gave an agent session (docs/agents.md "Receipts"). A receipt
 * holds memory refs and sizes, never text.
 */

/** Page size of a receipts read: default and most. */
export const RECEIPTS_LIMIT_DEFAULT = 50
export const RECEIPTS_LIMIT_MAX = 200
/** Retention defaults: receipts older than this many days, or beyond this many, are pruned. */
export const RECEIPT_KEEP_DAYS_DEFAULT = 30
export const RECEIPT_KEEP_COUNT_DEFAULT = 100_000

const TAG = /^[a-z0-9_.-]{1,64}$/u

/** Who asked for a prepare: the host, its session id and the hook event. */
export interface ReceiptInput {
  readonly host: string
  readonly sessionId: string
  readonly event: string
}

/** One injected item of a receipt: the exact version and its scope. */
export interface ReceiptItem {
  readonly memoryRef: ArtifactRef
  readonly scopeId: string
  readonly truncated: boolean
}

/** A recorded receipt. */
export interface Receipt extends ReceiptInput {
  readonly receiptId: string
  readonly scopeId: string
  readonly scopeIds: readonly string[]
  readonly kind: 'brief' | 'recall'
  readonly status: 'ready' | 'empty'
  readonly maxBytes: number
  readonly contentBytes: number
  readonly tokenEstimate: number
  readonly withinBudget: boolean
  readonly durationMs: number
  readonly items: readonly ReceiptItem[]
  readonly createdAt: string
}

/**
 * The token estimate of a receipt: UTF-8 bytes over four, rounded up. It is a rough count (close
 * for English text and JSON with common tokenizers, low for CJK text), never a tokenizer's.
 */
export const estimateTokens = (bytes: number): number => Math.ceil(bytes / 4)

/**
 * A receipt request's host, session id and event.
 * @throws PowerContextError `invalid_request`
 */
export function checkReceiptInput(value: unknown): ReceiptInput {
  if (typeof value !== 'object' || value === null)
    throw invalidRequest('receipt', 'must be an object')
  const { host, sessionId, event } = value as Record<string, unknown>
  const tag = (v: unknown, field: string): string => {
    if (typeof v !== 'string' || !TAG.test(v))
      throw invalidRequest(field, 'must be 1–64 characters of a-z 0-9 _ . -')
    return v
  }
  if (!isPrintableId(sessionId))
    throw invalidRequest('receipt.session_id', 'must be 1–128 printable ASCII characters')
  return { host: tag(host, 'receipt.host'), sessionId, event: tag(event, 'receipt.event') }
}

/** Where a receipts page starts: strictly older than this receipt. */
export interface ReceiptCursor {
  readonly createdAt: string
  readonly receiptId: string
}

/** A validated receipts read. */
export interface ReceiptsQuery {
  readonly scopeId: string
  readonly sessionId: string | undefined
  readonly memoryId: string | undefined
  readonly before: ReceiptCursor | undefined
  readonly limit: number
}

/** The opaque `next_before` of a page that ends at `r`. */
export const receiptCursor = (r: Pick<Receipt, 'createdAt' | 'receiptId'>): string =>
  Buffer.from(`${r.createdAt}|${r.receiptId}`, 'utf8').toString('base64url')

function parseCursor(value: unknown): ReceiptCursor | undefined {
  if (value === undefined) return undefined
  const text = typeof value === 'string' ? Buffer.from(value, 'base64url').toString('utf8') : ''
  const [createdAt, receiptId, ...rest] = text.split('|')
  if (
    rest.length > 0 ||
    createdAt === undefined ||
    Number.isNaN(Date.parse(createdAt)) ||
    receiptId?.startsWith(RECEIPT_ID_PREFIX) !== true ||
    !isPrintableId(receiptId)
  )
    throw invalidRequest('before', 'must be a next_before of an earlier page')
  return { createdAt, receiptId }
}

/**
 * Validates a receipts read.
 * @throws PowerContextError `invalid_request`
 */
export function checkReceiptsQuery(q: {
  readonly scopeId: unknown
  readonly sessionId?: unknown
  readonly memoryId?: unknown
  readonly before?: unknown
  readonly limit?: unknown
}): ReceiptsQuery {
  const sessionId = q.sessionId
  if (sessionId !== undefined && !isPrintableId(sessionId))
    throw invalidRequest('session_id', 'must be 1–128 printable ASCII characters')
  return {
    scopeId: checkScopeId(q.scopeId),
    sessionId,
    memoryId: q.memoryId === undefined ? undefined : checkMemoryId(q.memoryId),
    before: parseCursor(q.before),
    limit: checkLimit(q.limit, 'limit', {
      min: 1,
      max: RECEIPTS_LIMIT_MAX,
      fallback: RECEIPTS_LIMIT_DEFAULT,
    }),
  }
}

/** How often the kept receipts injected one memory. */
export interface MemoryUsage {
  readonly injections: number
  readonly sessions: number
  readonly lastAt: string | null
}

/** Retention of receipts: older than `keepDays`, or beyond the newest `keepCount`, are pruned. */
export interface ReceiptRetention {
  readonly keepDays: number
  readonly keepCount: number
}
