import type { ChangeOp, MemoryChange, MemoryState } from '../../core/memory-model.js'

/** The authoritative pointer row of one memory (the CAS target). */
export interface MemoryRow {
  readonly memoryId: string
  readonly scopeId: string
  readonly currentVersion: number
  readonly state: MemoryState
  /** Increments on every state change; CAS compares it with the version. */
  readonly stateVersion: number
  readonly mergedInto: string | null
  /** Kind of the current version (denormalised for `list` filters). */
  readonly kind: string
  readonly createdAt: string
  readonly updatedAt: string
}

/** One stored version; refs are canonical JSON text exactly as hashed. */
export interface VersionRow {
  readonly memoryId: string
  readonly scopeId: string
  readonly version: number
  readonly previousVersion: number | null
  readonly kind: string
  readonly text: string
  readonly sourcesJson: string
  readonly artifactsJson: string
  readonly observedAt: string | null
  readonly contentHash: string
  readonly createdAt: string
  readonly operation: ChangeOp
  readonly operationId: string
  readonly reason: string | null
}

/** Active-head projection row (search projection; rebuildable). */
export interface HeadRow {
  readonly memoryId: string
  readonly scopeId: string
  readonly version: number
  readonly kind: string
  readonly contentHash: string
  readonly searchableText: string
}

/** A change-log row before its per-scope sequence number is allocated. */
export type NewChangeRow = Omit<MemoryChange, 'seq'>

export interface ChangeRow extends NewChangeRow {
  readonly scopeId: string
  readonly seq: number
}

/** A raw full-text hit in backend order (best first); the base class re-checks it. */
export interface TextHit {
  readonly memoryId: string
  readonly version: number
  /** The head's content hash: its tokens belong to exactly this content. */
  readonly contentHash: string
  /** The head's Analyzer v1 tokens, space-separated (admission runs on them before any load). */
  readonly searchableText: string
}

/** One scope's counters as stored: change sequence, journal position, cursor, newest change. */
export interface ScopeRow {
  readonly scopeId: string
  readonly headSeq: number
  readonly highWatermark: number
  readonly cursorPosition: number
  readonly lastChangeAt: string | null
}

/** How many memories of one scope are in one state. */
export interface StateCountRow {
  readonly scopeId: string
  readonly state: MemoryState
  readonly n: number
}

/** A memory row joined with its current version. */
export interface CurrentMemory {
  readonly row: MemoryRow
  readonly version: VersionRow
}
