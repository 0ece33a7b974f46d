import { invalidRequest, PowerContextError } from '../../../core/errors.js'
import type { Memory } from '../../../core/memory-model.js'
import { isMerged, stateAfter } from '../../../core/memory-state.js'
import { secretFree } from '../../../core/secret-rules.js'
import { normalizeReason } from '../../../core/text-rules.js'
import type { DialectTx, MemoryRow, NewChangeRow } from '../../spi/dialect-tx.js'
import type { RestoreCommand, RestoreResult } from '../../spi/memory-backend.js'
import { optional, refused } from '../command-checks.js'
import { casOrConflict, requireVersion } from '../guards.js'
import { projectHead } from '../projection.js'
import { changeRow, nextRow } from '../row-builders.js'
import { restoreTexts } from '../vectors/texts-to-project.js'
import { contentOfRow, isRedactedVersionRow, viewOf } from '../version-codec.js'
import type { OpDeps, WriteContext } from '../write-context.js'
import { checkRestoreTarget, planRestore, type RestorePlan } from './restore-plan.js'
import { writeNextVersion } from './update.js'

/** A validated restore request. */
export interface CheckedRestore {
  readonly scopeId: string
  readonly memoryId: string
  readonly toRevision: number | undefined
  readonly previewToken: string | undefined
  readonly reason: string | null
}

async function requireRow(tx: DialectTx, memoryId: string): Promise<MemoryRow> {
  const row = await tx.getMemory(memoryId)
  if (row === undefined)
    throw new PowerContextError('internal_error', `memory ${memoryId} vanished`)
  return row
}

/**
 * Undoes one effective merge: its result is retired (whatever its state; its later versions leave
 * search with it) and every input comes back active at its frozen version. An input that is itself
 * a merge result comes back whole; it is not split further.
 */
async function undoMerge(
  tx: DialectTx,
  ctx: WriteContext,
  plan: RestorePlan['undo'][number],
  reason: string | null,
): Promise<NewChangeRow[]> {
  if (!(await tx.casMergeUndone(plan.mergeId, ctx.at, ctx.operationId))) {
    throw new PowerContextError('revision_conflict', `merge ${plan.mergeId} changed concurrently`)
  }
  const changes: NewChangeRow[] = []
  const result = await requireRow(tx, plan.resultId)
  const retired = nextRow(result, {
    state: stateAfter('retire', result.state),
    mergedInto: null,
    at: ctx.at,
  })
  await casOrConflict(tx, retired, result)
  await tx.deleteHead(result.memoryId)
  changes.push(changeRow('retire', result, retired, { ...ctx, reason }))
  for (const input of plan.inputs) {
    const row = await requireRow(tx, input.artifactId)
    if (
      !isMerged(row.state) ||
      row.mergedInto !== plan.resultId ||
      row.currentVersion !== input.revision
    ) {
      throw new PowerContextError(
        'internal_error',
        `merge input ${row.memoryId} is not frozen in ${plan.mergeId}`,
      )
    }
    const back = nextRow(row, {
      state: stateAfter('unmerge', row.state),
      mergedInto: null,
      at: ctx.at,
    })
    await casOrConflict(tx, back, row)
    await projectHead(tx, ctx, await requireVersion(tx, row.memoryId, row.currentVersion))
    changes.push(changeRow('unmerge', row, back, { ...ctx, reason }))
  }
  return changes
}

/**
 * restore, in one transaction: recompute the plan at commit time (and, with a preview
 * token, refuse with `preview_stale` when it differs from what was previewed), undo the merges above
 * the target outermost first, bring a forgotten target back, then write the `to_revision` version.
 */
export async function restoreInTx(
  tx: DialectTx,
  ctx: WriteContext,
  cmd: CheckedRestore,
): Promise<RestoreResult> {
  const plan = await planRestore(tx, cmd)
  if (cmd.previewToken !== undefined && cmd.previewToken !== plan.token) {
    throw new PowerContextError(
      'preview_stale',
      'the memories changed since the preview; preview again',
      {
        memory_id: cmd.memoryId,
      },
    )
  }
  const changes: NewChangeRow[] = []
  for (const merge of plan.undo) changes.push(...(await undoMerge(tx, ctx, merge, cmd.reason)))
  if (plan.reactivate) {
    const row = await requireRow(tx, plan.targetId)
    const next = nextRow(row, { state: stateAfter('restore', row.state), at: ctx.at })
    await casOrConflict(tx, next, row)
    await projectHead(tx, ctx, await requireVersion(tx, row.memoryId, row.currentVersion))
    changes.push(changeRow('restore', row, next, { ...ctx, reason: cmd.reason }))
  }
  if (plan.newVersion !== null) {
    const row = await requireRow(tx, plan.targetId)
    const old = await requireVersion(tx, row.memoryId, plan.newVersion.fromRevision)
    if (isRedactedVersionRow(old)) {
      throw invalidRequest('to_revision', `version ${old.version} was redacted: its text is gone`)
    }
    // A version stored before the secret gate is not written again (the transaction rolls back).
    secretFree('to_revision text', old.text)
    changes.push((await writeNextVersion(tx, ctx, row, contentOfRow(old), cmd.reason)).change)
  }
  if (changes.length > 0) await tx.appendChanges(cmd.scopeId, changes)
  const view = async (memoryId: string): Promise<Memory> => {
    const row = await requireRow(tx, memoryId)
    return viewOf(await requireVersion(tx, memoryId, row.currentVersion), row)
  }
  return {
    status: changes.length > 0 ? 'restored' : 'unchanged',
    memory: await view(plan.targetId),
    restored: await Promise.all(plan.restore.map((r) => view(r.memoryId))),
    retired: await Promise.all(plan.retire.map((r) => view(r.memoryId))),
  }
}

/** A restore preview token, as returned by restore preview. */
function checkToken(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(value)) {
    throw invalidRequest('preview_token', 'must be a token returned by restore preview')
  }
  return value
}

/** Checks restore: the target and an optional preview token. @throws PowerContextError `invalid_request`. */
export function checkRestore(cmd: RestoreCommand): CheckedRestore {
  return refused({
    ...checkRestoreTarget(cmd),
    previewToken: optional(cmd.previewToken, (t) => checkToken(t)),
    reason: normalizeReason(cmd.reason),
  })
}

/**
 * Restores a memory: a forgotten one comes back; a merged one comes back by undoing every
 * effective merge above it, in one transaction; `toRevision` then writes a new version with that
 * version's content. With `previewToken`, fails with `preview_stale` if anything moved.
 * @throws PowerContextError `memory_not_found`, `state_conflict` (retired), `preview_stale`.
 */
export async function restore(deps: OpDeps, cmd: RestoreCommand): Promise<RestoreResult> {
  const checked = checkRestore(cmd)
  const ctx = await deps.context(await deps.textsToProject((tx) => restoreTexts(tx, checked)))
  return deps.run.write((tx) => restoreInTx(tx, ctx, checked))
}
