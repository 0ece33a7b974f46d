import { checkMemoryId, checkRevision, checkScopeId } from '../../../core/ids.js'
import { isForgotten, stateAfter } from '../../../core/memory-state.js'
import { normalizeReason } from '../../../core/text-rules.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { ForgetCommand, ForgetResult } from '../../spi/memory-backend.js'
import { optional, refused } from '../command-checks.js'
import {
  casOrConflict,
  requireActiveAt,
  requireMemory,
  requireRevisionAt,
  requireVersion,
} from '../guards.js'
import { viewOfVersion } from '../redaction/redaction-reads.js'
import { changeRow, nextRow } from '../row-builders.js'
import type { OpDeps, WriteContext } from '../write-context.js'

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

/** Checks forget: the memory and an optional expected revision. @throws PowerContextError `invalid_request`, `secret_detected`. */
export function checkForget(cmd: ForgetCommand) {
  return refused({
    scopeId: checkScopeId(cmd.scopeId),
    memoryId: checkMemoryId(cmd.memoryId),
    expectedRevision: optional(cmd.expectedRevision, (r) => checkRevision(r, 'expected_revision')),
    reason: normalizeReason(cmd.reason),
  })
}

/** Moves an active memory to `forgotten`; already forgotten is a no-op. */
export async function forget(deps: OpDeps, cmd: ForgetCommand): Promise<ForgetResult> {
  const checked = checkForget(cmd)
  const ctx = await deps.context()
  return deps.run.write((tx) => forgetInTx(tx, ctx, checked))
}
