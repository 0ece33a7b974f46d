import type { ChangeRow, DialectTx } from '../../spi/dialect-tx.js'
import type { ChangesResult, HistoryResult } from '../../spi/memory-backend.js'

/** Change rows as callers see them (the scope is implied by the request). */
export function toChange(row: ChangeRow): HistoryResult['transitions'][number] {
  return Object.freeze({
    seq: row.seq,
    op: row.op,
    memoryId: row.memoryId,
    fromRevision: row.fromRevision,
    toRevision: row.toRevision,
    fromState: row.fromState,
    toState: row.toState,
    reason: row.reason,
    operationId: row.operationId,
    at: row.at,
  })
}

/** DESIGN §2 changes: rows after `since` (exclusive), oldest first; never loads memory text. */
export async function changesInTx(
  tx: DialectTx,
  q: { scopeId: string; since: number; limit: number },
): Promise<ChangesResult> {
  const rows = await tx.listChanges(q.scopeId, q.since, q.limit)
  return { changes: rows.map(toChange), headSeq: await tx.headSeq(q.scopeId) }
}
