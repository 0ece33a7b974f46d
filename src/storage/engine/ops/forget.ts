import { isForgotten, stateAfter } from '../../../core/memory-state.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { ForgetResult } from '../../spi/memory-backend.js'
import {
  casOrConflict,
  requireActiveAt,
  requireMemory,
  requireRevisionAt,
  requireVersion,
} from '../guards.js'
import { viewOfVersion } from '../redaction/redaction-reads.js'
import { changeRow, nextRow } from '../row-builders.js'
import type { WriteContext } from '../write-context.js'

/** forget: active → forgotten; already forgotten is a no-op. */
export async function forgetInTx(
  tx: DialectTx,
  ctx: WriteContext,
  cmd: {
    scopeId: string
    memoryId: string
    expectedRevision: number | undefined
    reason: string | null
  },
): Promise<ForgetResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  const current = await requireVersion(tx, row.memoryId, row.currentVersion)
  if (isForgotten(row.state)) {
    requireRevisionAt(row, cmd.expectedRevision)
    return { status: 'unchanged', memory: await viewOfVersion(tx, current, row) }
  }
  requireActiveAt(row, cmd.expectedRevision)
  const next = nextRow(row, { state: stateAfter('forget', row.state), at: ctx.at })
  await casOrConflict(tx, next, row)
  await tx.deleteHead(row.memoryId)
  await tx.appendChanges(row.scopeId, [
    changeRow('forget', row, next, { ...ctx, reason: cmd.reason }),
  ])
  return { status: 'forgotten', memory: await viewOfVersion(tx, current, next) }
}
