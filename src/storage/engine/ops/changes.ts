import { invalidRequest } from '../../../core/errors.js'
import type { ChangeRow, DialectTx } from '../../spi/dialect-tx.js'
import type { ChangesResult, HistoryResult } from '../../spi/memory-backend.js'
import { changeKeyProblems, damagedRow, requireSound, rowName } from '../row-damage.js'

/**
 * Change rows as callers see them (the scope is implied by the request).
 * @throws PowerContextError `storage_unavailable` (`corrupt`) for a row with damaged keys.
 */
export function toChange(row: ChangeRow): HistoryResult['transitions'][number] {
  requireSound(rowName.change(row.scopeId, row.seq), changeKeyProblems(row))
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

/**
 * changes: one page of rows after `since` (exclusive), oldest first; never loads memory
 * text. A full page ends at its last row (`hasMore` when that is before the head, `nextSince` =
 * that row's seq); a short page covers everything up to the head. `since` beyond the head is
 * `invalid_request` (a client that kept a position from another database or scope).
 */
export async function changesInTx(
  tx: DialectTx,
  q: { scopeId: string; since: number; limit: number },
): Promise<ChangesResult> {
  const headSeq = await tx.headSeq(q.scopeId)
  if (q.since > headSeq) {
    throw invalidRequest(
      'since',
      `${q.since} is beyond the scope's last change (head_seq ${headSeq})`,
    )
  }
  const rows = await tx.listChanges(q.scopeId, q.since, q.limit)
  for (const r of rows) {
    if (r.scopeId !== q.scopeId) throw damagedRow(rowName.change(r.scopeId, r.seq), 'scope differs')
  }
  const last = rows.at(-1)
  const nextSince = rows.length >= q.limit && last !== undefined ? last.seq : headSeq
  return { changes: rows.map(toChange), headSeq, hasMore: nextSince < headSeq, nextSince }
}
