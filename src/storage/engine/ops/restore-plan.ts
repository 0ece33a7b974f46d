import { createHash } from 'node:crypto'

import { canonicalJson } from '../../../core/canonical.js'
import { canonicalContent } from '../../../core/content-hash.js'
import { PowerContextError } from '../../../core/errors.js'
import { checkMemoryId, checkRevision, checkScopeId } from '../../../core/ids.js'
import type { MemoryState, MergeRecord } from '../../../core/memory-model.js'
import {
  canApply,
  isActive,
  isMerged,
  isRetired,
  STATE_TRANSITIONS,
} from '../../../core/memory-state.js'
import type { DialectTx, MemoryRow } from '../../spi/dialect-tx.js'
import type {
  PlanRef,
  RestorePlanView,
  RestorePreviewCommand,
  RestorePreviewResult,
} from '../../spi/memory-backend.js'
import { optional } from '../command-checks.js'
import { requireMemory, requireVersion } from '../guards.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { contentOfRow } from '../version-codec.js'

/**
 * What a restore will do (docs/memory-model.md): merges to undo (outermost first), memories coming back to
 * search, merge results to retire, active memories whose content leaves search, and the new version
 * written for `to_revision`.
 */
export interface RestorePlan extends RestorePlanView {
  readonly targetId: string
  readonly undo: readonly MergeRecord[]
  readonly reactivate: boolean
  /** Opaque fingerprint of the plan and of the version + state of every involved memory. */
  readonly token: string
}

function inconsistent(message: string): PowerContextError {
  return new PowerContextError(
    'internal_error',
    `stored merge relations are inconsistent: ${message}`,
  )
}

/**
 * The effective merges above `row`, innermost first: the merge that absorbed it, the merge that
 * absorbed that result, … up to the current end point. Only effective merge relations are followed,
 * never evidence links.
 */
async function mergesAbove(
  tx: DialectTx,
  row: MemoryRow,
  rows: Map<string, MemoryRow>,
): Promise<MergeRecord[]> {
  const chain: MergeRecord[] = []
  let current = row
  while (isMerged(current.state)) {
    if (current.mergedInto === null)
      throw inconsistent(`${current.memoryId} is merged into nothing`)
    const merge = await tx.effectiveMergeOfResult(current.mergedInto)
    if (merge === undefined || !merge.inputs.some((i) => i.artifactId === current.memoryId)) {
      throw inconsistent(
        `${current.memoryId} is not an input of an effective merge into ${current.mergedInto}`,
      )
    }
    if (chain.some((m) => m.mergeId === merge.mergeId))
      throw inconsistent(`merge cycle at ${merge.mergeId}`)
    chain.push(merge)
    const next = await tx.getMemory(merge.resultId)
    if (next === undefined) throw inconsistent(`merge result ${merge.resultId} is missing`)
    rows.set(next.memoryId, next)
    current = next
  }
  return chain
}

/**
 * Computes the restore plan of one memory inside a transaction, without writing.
 * @throws PowerContextError `memory_not_found`, `state_conflict` (retired target).
 */
export async function planRestore(
  tx: DialectTx,
  cmd: { scopeId: string; memoryId: string; toRevision: number | undefined },
): Promise<RestorePlan> {
  const target = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  if (isRetired(target.state)) {
    throw new PowerContextError(
      'state_conflict',
      `memory ${target.memoryId} is retired and cannot be restored`,
      {
        memory_id: target.memoryId,
        state: target.state,
      },
    )
  }
  const old =
    cmd.toRevision === undefined
      ? undefined
      : await requireVersion(tx, target.memoryId, cmd.toRevision)
  const rows = new Map<string, MemoryRow>([[target.memoryId, target]])
  const chain = await mergesAbove(tx, target, rows)
  const undo = [...chain].reverse()
  const finalState = new Map<string, MemoryState>([...rows].map(([id, r]) => [id, r.state]))
  for (const merge of undo) {
    finalState.set(merge.resultId, STATE_TRANSITIONS.retire.to)
    for (const input of merge.inputs) {
      if (!rows.has(input.artifactId)) {
        const row = await tx.getMemory(input.artifactId)
        if (row === undefined) throw inconsistent(`merge input ${input.artifactId} is missing`)
        rows.set(row.memoryId, row)
      }
      finalState.set(input.artifactId, STATE_TRANSITIONS.unmerge.to)
    }
  }
  const reactivate = canApply('restore', target.state)
  if (reactivate) finalState.set(target.memoryId, STATE_TRANSITIONS.restore.to)

  let newVersion: RestorePlan['newVersion'] = null
  if (old !== undefined) {
    const current = await requireVersion(tx, target.memoryId, target.currentVersion)
    if (canonicalContent(contentOfRow(old)) !== canonicalContent(contentOfRow(current))) {
      newVersion = {
        memoryId: target.memoryId,
        fromRevision: old.version,
        version: target.currentVersion + 1,
      }
    }
  }
  const refs = (pick: (before: MemoryState, after: MemoryState) => boolean): PlanRef[] =>
    [...rows.values()]
      .filter((r) => pick(r.state, finalState.get(r.memoryId) ?? r.state))
      .map((r) => ({ memoryId: r.memoryId, version: r.currentVersion }))
      .sort((a, b) => (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0))
  const plan = {
    targetId: target.memoryId,
    undo,
    reactivate,
    restore: refs((before, after) => !isActive(before) && isActive(after)),
    retire: refs((before, after) => !isRetired(before) && isRetired(after)),
    // An active target's current text also leaves search when `to_revision` replaces it.
    leavingSearch: refs((before, after) => isActive(before) && !isActive(after)).concat(
      newVersion !== null && isActive(target.state)
        ? [{ memoryId: target.memoryId, version: target.currentVersion }]
        : [],
    ),
    newVersion,
  }
  return { ...plan, token: planToken(plan, [...rows.values()]) }
}

/** base64url SHA-256 over the canonical plan and the version + state of every involved memory. */
function planToken(plan: Omit<RestorePlan, 'token'>, rows: readonly MemoryRow[]): string {
  const snapshot = rows
    .map((r) => [r.memoryId, r.currentVersion, r.state, r.stateVersion, r.mergedInto])
    .sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1))
  const body = canonicalJson(
    {
      v: 1,
      target: plan.targetId,
      undo: plan.undo.map((m) => m.mergeId),
      reactivate: plan.reactivate,
      restore: plan.restore.map((r) => [r.memoryId, r.version]),
      retire: plan.retire.map((r) => [r.memoryId, r.version]),
      leaving: plan.leavingSearch.map((r) => [r.memoryId, r.version]),
      new_version:
        plan.newVersion === null ? null : [plan.newVersion.fromRevision, plan.newVersion.version],
      snapshot,
    },
    'plan',
  )
  return createHash('sha256').update(body).digest('base64url')
}

/** Checks restore and its preview: the memory and an optional `to_revision`. @throws PowerContextError `invalid_request`. */
export function checkRestoreTarget(cmd: RestorePreviewCommand) {
  return {
    scopeId: checkScopeId(cmd.scopeId),
    memoryId: checkMemoryId(cmd.memoryId),
    toRevision: optional(cmd.toRevision, (r) => checkRevision(r, 'to_revision')),
  }
}

/** The plan `restore` would apply now, and a token binding it; changes nothing. */
export async function restorePreview(
  run: TxRunner,
  cmd: RestorePreviewCommand,
): Promise<RestorePreviewResult> {
  const checked = checkRestoreTarget(cmd)
  const plan = await run.read((tx) => planRestore(tx, checked))
  return {
    plan: {
      restore: plan.restore,
      retire: plan.retire,
      leavingSearch: plan.leavingSearch,
      newVersion: plan.newVersion,
    },
    previewToken: plan.token,
  }
}
