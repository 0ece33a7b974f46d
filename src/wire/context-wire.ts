/**
 * Domain ↔ wire conversion of prepared context: `POST /v1/context/prepare` and
 * `POST /v1/context/receipts`. The prepare
 * response is the v1 envelope with exactly its four fields: the Python reference's plugins reject
 * any other field, so nothing may be added here.
 */
import type { components } from '../contract/powercontext-types.js'
import { PREPARED_CONTEXT_SCHEMA } from '../core/prepared-context.js'
import type { Receipt } from '../core/receipt-rules.js'
import type { PrepareContextCommand, PrepareContextResult } from '../runtime/context-preparer.js'
import type { ReceiptsCommand, ReceiptsPage } from '../runtime/receipt-recorder.js'

type Wire = components['schemas']

/** `POST /v1/context/prepare` body → command. */
export const fromWirePrepareContext = (
  b: Wire['PrepareContextRequest'],
): PrepareContextCommand => ({
  scopeId: b.scope_id,
  scopeIds: b.scope_ids,
  query: b.query,
  maxBytes: b.max_bytes,
  excludeRefs: b.exclude_refs?.map((r) => ({ artifactId: r.artifact_id, revision: r.revision })),
  receipt:
    b.receipt === undefined
      ? undefined
      : { host: b.receipt.host, sessionId: b.receipt.session_id, event: b.receipt.event },
})

/** `POST /v1/context/receipts` body → command. */
export const fromWireReceipts = (b: Wire['ReceiptsRequest']): ReceiptsCommand => ({
  scopeId: b.scope_id,
  sessionId: b.session_id,
  memoryId: b.memory_id,
  before: b.before,
  limit: b.limit,
})

/** One receipt on the wire (refs only, never text). */
export const toWireReceipt = (r: Receipt): Wire['Receipt'] => ({
  receipt_id: r.receiptId,
  scope_id: r.scopeId,
  scope_ids: [...r.scopeIds],
  host: r.host,
  session_id: r.sessionId,
  event: r.event,
  kind: r.kind,
  status: r.status,
  max_bytes: r.maxBytes,
  content_bytes: r.contentBytes,
  token_estimate: r.tokenEstimate,
  within_budget: r.withinBudget,
  duration_ms: r.durationMs,
  items: r.items.map((i) => ({
    memory_ref: { artifact_id: i.memoryRef.artifactId, revision: i.memoryRef.revision },
    scope_id: i.scopeId,
    truncated: i.truncated,
  })),
  created_at: r.createdAt,
})

/** A page of receipts → wire. */
export const toWireReceipts = (p: ReceiptsPage): Wire['ReceiptsResponse'] => ({
  receipts: p.receipts.map(toWireReceipt),
  next_before: p.nextBefore,
  usage:
    p.usage === null
      ? null
      : { injections: p.usage.injections, sessions: p.usage.sessions, last_at: p.usage.lastAt },
})

/** Result → the v1 envelope. */
export const toWirePreparedContext = (
  r: Pick<PrepareContextResult, 'status' | 'content' | 'contentBytes'>,
): Wire['PreparedContextResponse'] => ({
  schema: PREPARED_CONTEXT_SCHEMA,
  status: r.status,
  content: r.content,
  content_bytes: r.contentBytes,
})
