import type { RedactionInfo } from './redaction.js'

/** The four memory states (docs/memory-model.md). */
export const MEMORY_STATES = ['active', 'forgotten', 'merged', 'retired'] as const
export type MemoryState = (typeof MEMORY_STATES)[number]

/** Operations recorded in the per-scope change log (docs/memory-model.md). */
export const CHANGE_OPS = [
  'add',
  'update',
  'forget',
  'restore',
  'merge',
  'unmerge',
  'retire',
] as const
export type ChangeOp = (typeof CHANGE_OPS)[number]

/** The one source type so far. */
export const SOURCE_TYPES = ['content'] as const
export type SourceType = (typeof SOURCE_TYPES)[number]

/** Reference to a persisted Source of the same scope. Wire shape `{name, source_id}`. */
export interface SourceRef {
  readonly name: SourceType
  readonly sourceId: string
}

/** Exact reference to one version of a memory. Wire shape `{artifact_id, revision}`. */
export interface ArtifactRef {
  readonly artifactId: string
  readonly revision: number
}

/** The hashed content of a version: kind, text, evidence and observed time. */
export interface VersionContent {
  readonly kind: string
  readonly text: string
  readonly sources: readonly SourceRef[]
  readonly artifacts: readonly ArtifactRef[]
  readonly observedAt: string | null
}

/** One immutable version of a memory. */
export interface MemoryVersion extends VersionContent {
  readonly memoryId: string
  readonly scopeId: string
  readonly version: number
  readonly previousVersion: number | null
  readonly contentHash: string
  readonly createdAt: string
  readonly operation: ChangeOp
  readonly operationId: string
  readonly reason: string | null
  /** True when an administrator erased its text (docs/storage.md "Redaction"). */
  readonly redacted?: boolean
}

/** A memory as callers see it: one version's content plus the memory's current state. */
export interface Memory extends VersionContent {
  /** The version shown; `memoryRef.revision` may be older than the current version. */
  readonly memoryRef: ArtifactRef
  readonly scopeId: string
  /** Always the memory's current state, whatever version is shown. */
  readonly state: MemoryState
  readonly contentHash: string
  readonly createdAt: string
  readonly mergedInto: string | null
  readonly reason: string | null
  /**
   * Set when this version's text was erased (`text` and `reason` then read as the marker): when and
   * why. `null` when it was not.
   */
  readonly redaction?: RedactionInfo | null
}

/** One row of the change log. Never carries memory text. */
export interface MemoryChange {
  readonly seq: number
  readonly op: ChangeOp
  readonly memoryId: string
  readonly fromRevision: number | null
  readonly toRevision: number | null
  readonly fromState: MemoryState | null
  readonly toState: MemoryState | null
  readonly reason: string | null
  readonly operationId: string
  readonly at: string
}

/** Builds the caller view of a version, freezing it (versions never change). */
export function toMemory(
  v: MemoryVersion,
  state: MemoryState,
  mergedInto: string | null,
  redaction: RedactionInfo | null = null,
): Memory {
  return Object.freeze({
    memoryRef: Object.freeze({ artifactId: v.memoryId, revision: v.version }),
    scopeId: v.scopeId,
    state,
    kind: v.kind,
    text: v.text,
    sources: v.sources,
    artifacts: v.artifacts,
    observedAt: v.observedAt,
    contentHash: v.contentHash,
    createdAt: v.createdAt,
    mergedInto,
    reason: v.reason,
    ...(v.redacted === true ? { redaction } : {}),
  })
}

/** States of a merge record: `effective` until undone by a restore. */
export const MERGE_STATES = ['effective', 'undone'] as const
export type MergeState = (typeof MERGE_STATES)[number]

/** A merge: inputs (exact versions) absorbed into a new result memory (docs/memory-model.md). */
export interface MergeRecord {
  readonly mergeId: string
  readonly scopeId: string
  readonly resultId: string
  readonly inputs: readonly ArtifactRef[]
  readonly state: MergeState
  readonly createdAt: string
  readonly operationId: string
  readonly undoneAt: string | null
  readonly undoneOperationId: string | null
}
