import { analyzeText } from '../../core/analyzer.js'
import { canonicalContent, hashCanonicalContent } from '../../core/content-hash.js'
import type { ChangeOp, MemoryState, VersionContent } from '../../core/memory-model.js'
import { INITIAL_STATE } from '../../core/memory-state.js'
import type { HeadRow, MemoryRow, NewChangeRow, VersionRow } from '../spi/dialect-tx.js'
import { encodeArtifacts, encodeSources } from './version-codec.js'

/** Builds an immutable version row; the content must already be normalised. */
export function newVersionRow(a: {
  memoryId: string
  scopeId: string
  version: number
  content: VersionContent
  operation: ChangeOp
  operationId: string
  reason: string | null
  at: string
}): VersionRow {
  return Object.freeze({
    memoryId: a.memoryId,
    scopeId: a.scopeId,
    version: a.version,
    previousVersion: a.version === 1 ? null : a.version - 1,
    kind: a.content.kind,
    text: a.content.text,
    sourcesJson: encodeSources(a.content.sources),
    artifactsJson: encodeArtifacts(a.content.artifacts),
    observedAt: a.content.observedAt,
    contentHash: hashCanonicalContent(canonicalContent(a.content)),
    createdAt: a.at,
    operation: a.operation,
    operationId: a.operationId,
    reason: a.reason,
  })
}

/** The pointer row of a memory created at version 1 (remember, merge result). */
export function firstMemoryRow(version: VersionRow, at: string): MemoryRow {
  return Object.freeze({
    memoryId: version.memoryId,
    scopeId: version.scopeId,
    currentVersion: 1,
    state: INITIAL_STATE,
    stateVersion: 1,
    mergedInto: null,
    kind: version.kind,
    createdAt: at,
    updatedAt: at,
  })
}

/** The search projection row of an active memory's current version. */
export function headOf(version: VersionRow): HeadRow {
  return Object.freeze({
    memoryId: version.memoryId,
    scopeId: version.scopeId,
    version: version.version,
    kind: version.kind,
    contentHash: version.contentHash,
    searchableText: analyzeText(version.text),
  })
}

/** The memory row after a change of version and/or state. */
export function nextRow(
  row: MemoryRow,
  change: { version?: VersionRow; state?: MemoryState; mergedInto?: string | null; at: string },
): MemoryRow {
  const stateChanged = change.state !== undefined && change.state !== row.state
  return Object.freeze({
    ...row,
    currentVersion: change.version?.version ?? row.currentVersion,
    kind: change.version?.kind ?? row.kind,
    state: change.state ?? row.state,
    stateVersion: stateChanged ? row.stateVersion + 1 : row.stateVersion,
    mergedInto: change.mergedInto === undefined ? row.mergedInto : change.mergedInto,
    updatedAt: change.at,
  })
}

/** A change-log row describing `before` → `after` of one memory. */
export function changeRow(
  op: ChangeOp,
  before: MemoryRow | undefined,
  after: MemoryRow,
  ctx: { operationId: string; reason: string | null; at: string },
): NewChangeRow {
  return Object.freeze({
    op,
    memoryId: after.memoryId,
    fromRevision: before?.currentVersion ?? null,
    toRevision: after.currentVersion,
    fromState: before?.state ?? null,
    toState: after.state,
    reason: ctx.reason,
    operationId: ctx.operationId,
    at: ctx.at,
  })
}
