import { checkArtifactRef } from '../../../core/command-rules.js'
import { normalizeArtifactRefs, normalizeSourceRefs } from '../../../core/content-hash.js'
import { invalidRequest } from '../../../core/errors.js'
import { checkScopeId, newMergeId } from '../../../core/ids.js'
import type { ArtifactRef, Memory, MergeRecord, SourceRef } from '../../../core/memory-model.js'
import { isMerged, stateAfter } from '../../../core/memory-state.js'
import { normalizeKind, normalizeReason, normalizeText } from '../../../core/text-rules.js'
import type { DialectTx, MemoryRow, NewChangeRow, VersionRow } from '../../spi/dialect-tx.js'
import {
  type MergeCommand,
  type MergeResult,
  REMEMBER_MAX_ENTRIES,
} from '../../spi/memory-backend.js'
import { refused } from '../command-checks.js'
import {
  casOrConflict,
  requireActiveAt,
  requireMemory,
  requireSources,
  requireVersion,
} from '../guards.js'
import { projectHead } from '../projection.js'
import { changeRow, firstMemoryRow, newVersionRow, nextRow } from '../row-builders.js'
import { contentOfRow, viewOf } from '../version-codec.js'
import type { OpDeps, WriteContext } from '../write-context.js'

/** A validated merge request. */
export interface CheckedMerge {
  readonly scopeId: string
  readonly inputs: readonly ArtifactRef[]
  readonly kind: string
  readonly text: string
  readonly reason: string | null
  /** Extra evidence (persisted sources of the scope) added to the inputs' union (flush merges). */
  readonly sources?: readonly SourceRef[] | undefined
  /** A time taken into the latest of the inputs' `observed_at` (flush merges). */
  readonly observedAt?: string | null | undefined
}

function latest(values: readonly (string | null)[]): string | null {
  return values.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null)
}

/**
 * merge: every input must be active at exactly its current version, in the scope. The
 * result C gets version 1 with `artifacts` = the inputs' exact refs, evidence = the union of theirs
 * and `observed_at` = the latest of theirs; inputs become `merged` (frozen) with `merged_into` = C.
 * The state checks run inside the transaction, so one memory can never be absorbed by two merges.
 */
export async function mergeInTx(
  tx: DialectTx,
  ctx: WriteContext,
  cmd: CheckedMerge,
): Promise<MergeResult> {
  const repeated = await repeatedMerge(tx, cmd)
  if (repeated !== undefined) return repeated
  const rows: MemoryRow[] = []
  const versions: VersionRow[] = []
  for (const ref of cmd.inputs) {
    const row = await requireMemory(tx, cmd.scopeId, ref.artifactId)
    requireActiveAt(row, ref.revision)
    rows.push(row)
    versions.push(await requireVersion(tx, row.memoryId, row.currentVersion))
  }
  await requireSources(tx, cmd.scopeId, cmd.sources ?? [])
  const contents = versions.map(contentOfRow)
  const resultId = ctx.newMemoryId()
  const version = newVersionRow({
    memoryId: resultId,
    scopeId: cmd.scopeId,
    version: 1,
    content: {
      kind: cmd.kind,
      text: cmd.text,
      sources: normalizeSourceRefs([...contents.flatMap((c) => c.sources), ...(cmd.sources ?? [])]),
      artifacts: normalizeArtifactRefs(cmd.inputs),
      observedAt: latest([...contents.map((c) => c.observedAt), cmd.observedAt ?? null]),
    },
    operation: 'merge',
    operationId: ctx.operationId,
    reason: cmd.reason,
    at: ctx.at,
  })
  const result = firstMemoryRow(version, ctx.at)

  await tx.insertMemory(result)
  await tx.insertVersion(version)
  await projectHead(tx, ctx, version)
  const changes: NewChangeRow[] = [
    changeRow('merge', undefined, result, { ...ctx, reason: cmd.reason }),
  ]
  const inputs: Memory[] = []
  for (const [i, row] of rows.entries()) {
    const next = nextRow(row, {
      state: stateAfter('merge', row.state),
      mergedInto: resultId,
      at: ctx.at,
    })
    await casOrConflict(tx, next, row)
    await tx.deleteHead(row.memoryId)
    changes.push(changeRow('merge', row, next, { ...ctx, reason: cmd.reason }))
    inputs.push(viewOf(versions[i] as VersionRow, next))
  }
  const merge: MergeRecord = {
    mergeId: newMergeId(Date.parse(ctx.at)),
    scopeId: cmd.scopeId,
    resultId,
    inputs: cmd.inputs.map((r) => ({ artifactId: r.artifactId, revision: r.revision })),
    state: 'effective',
    createdAt: ctx.at,
    operationId: ctx.operationId,
    undoneAt: null,
    undoneOperationId: null,
  }
  await tx.insertMerge(merge)
  await tx.appendChanges(cmd.scopeId, changes)
  return { status: 'merged', mergeId: merge.mergeId, memory: viewOf(version, result), inputs }
}

/**
 * A merge request whose effect already holds — the same inputs at the same versions, absorbed by
 * one effective merge whose result started with the same kind and text — returns that merge
 * (`status: unchanged`), so a retried request never fails or merges twice.
 */
async function repeatedMerge(tx: DialectTx, cmd: CheckedMerge): Promise<MergeResult | undefined> {
  const first = await tx.getMemory(cmd.inputs[0]?.artifactId ?? '')
  if (
    first === undefined ||
    !isMerged(first.state) ||
    first.mergedInto === null ||
    first.scopeId !== cmd.scopeId
  )
    return undefined
  const merge = await tx.effectiveMergeOfResult(first.mergedInto)
  const key = (refs: readonly ArtifactRef[]): string =>
    normalizeArtifactRefs(refs)
      .map((r) => `${r.artifactId}@${r.revision}`)
      .join()
  if (merge === undefined || key(merge.inputs) !== key(cmd.inputs)) return undefined
  const resultRow = await requireMemory(tx, cmd.scopeId, merge.resultId)
  const v1 = await requireVersion(tx, merge.resultId, 1)
  if (v1.kind !== cmd.kind || v1.text !== cmd.text) return undefined
  const current = await requireVersion(tx, merge.resultId, resultRow.currentVersion)
  const inputs: Memory[] = []
  for (const ref of merge.inputs) {
    const row = await requireMemory(tx, cmd.scopeId, ref.artifactId)
    inputs.push(viewOf(await requireVersion(tx, ref.artifactId, ref.revision), row))
  }
  return { status: 'unchanged', mergeId: merge.mergeId, memory: viewOf(current, resultRow), inputs }
}

/** @throws PowerContextError `invalid_request` for fewer than two or repeated inputs. */
export function checkMergeInputs(inputs: readonly ArtifactRef[]): void {
  if (inputs.length < 2) {
    throw invalidRequest('inputs', 'must hold at least 2 memory refs')
  }
  const ids = inputs.map((r) => r.artifactId)
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i)
  if (repeated !== undefined) {
    throw invalidRequest('inputs', `memory ${repeated} is listed twice`)
  }
}

/** Checks merge: 2–100 distinct inputs at exact revisions, the result content. @throws PowerContextError `invalid_request`. */
export function checkMerge(cmd: MergeCommand): CheckedMerge {
  if (!Array.isArray(cmd.inputs) || cmd.inputs.length > REMEMBER_MAX_ENTRIES) {
    throw invalidRequest('inputs', `must be an array of 2–${REMEMBER_MAX_ENTRIES} memory refs`)
  }
  const inputs = cmd.inputs.map((r, i) => checkArtifactRef(r, `inputs[${i}]`))
  checkMergeInputs(inputs)
  return refused({
    scopeId: checkScopeId(cmd.scopeId),
    inputs,
    kind: normalizeKind(cmd.kind),
    text: normalizeText(cmd.text),
    reason: normalizeReason(cmd.reason),
  })
}

/**
 * Merges at least two active memories (each at its current version) into a new memory; the
 * inputs become `merged`.
 * @throws PowerContextError `invalid_request`, `memory_not_found`, `state_conflict`,
 *   `revision_conflict`.
 */
export async function merge(deps: OpDeps, cmd: MergeCommand): Promise<MergeResult> {
  const checked = checkMerge(cmd)
  const ctx = await deps.context([checked.text])
  return deps.run.write((tx) => mergeInTx(tx, ctx, checked))
}
