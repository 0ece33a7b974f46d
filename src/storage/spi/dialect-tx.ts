import type {
  ChangeOp,
  MemoryChange,
  MemoryState,
  MergeRecord,
  SourceType,
} from '../../core/memory-model.js'
import type { PlannedTerm } from '../../core/query-plan.js'
import type { LegacyRows } from '../sql/legacy-rows.js'
import type { TransferRows } from '../sql/transfer-rows.js'
import type { JournalTx } from './journal-tx.js'
import type { VectorTx } from './vector-tx.js'

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

export interface SourceRow {
  readonly scopeId: string
  readonly sourceType: SourceType
  readonly sourceId: string
  readonly position: number
  readonly payloadHash: string
  readonly payload: string
  readonly createdAt: string
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

/**
 * Row-level verbs an adapter offers inside one transaction (STYLE R3). No verb decides a domain
 * rule; the base class decides and calls these.
 */
export interface DialectTx {
  /** The vector projection's verbs; absent when the adapter has no vector support. */
  readonly vectors?: VectorTx | undefined
  /** The source journal's verbs: cursor, failures, decision records (DESIGN §6). */
  readonly journal: JournalTx
  /** The upgrade tables' verbs (docs/upgrade.md). */
  readonly legacy: LegacyRows
  /** Keyset pages over the authoritative tables (export, import, paged rebuild). */
  readonly pages: TransferRows
  getMemory(memoryId: string): Promise<MemoryRow | undefined>
  getVersion(memoryId: string, version: number): Promise<VersionRow | undefined>
  listVersions(memoryId: string): Promise<VersionRow[]>
  /** Current rows + versions of the given memories (missing ids are absent from the map). */
  loadCurrent(memoryIds: readonly string[]): Promise<Map<string, CurrentMemory>>
  /** Active heads of the scope whose current content hash equals `contentHash`. */
  findActiveByHash(scopeId: string, contentHash: string): Promise<HeadRow[]>
  /** Of the given source ids, the ones that do not exist in the scope. */
  missingSources(scopeId: string, sourceIds: readonly string[]): Promise<string[]>
  listMemories(q: {
    scopeId: string
    states: readonly MemoryState[]
    kinds: readonly string[] | undefined
    after: string | undefined
    limit: number
  }): Promise<MemoryRow[]>
  /**
   * Active memories of the scopes (of the kinds, when given), by `updated_at` then memory id,
   * both descending, at most `limit`.
   */
  recentMemories(q: {
    scopeIds: readonly string[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<MemoryRow[]>
  listChanges(scopeId: string, since: number, limit: number): Promise<ChangeRow[]>
  listChangesOfMemory(memoryId: string): Promise<ChangeRow[]>
  headSeq(scopeId: string): Promise<number>
  /** Scope rows with ids after `after`, in id order, at most `limit`. */
  listScopes(after: string, limit: number): Promise<ScopeRow[]>
  /** Memory counts per state of the scopes with `first ≤ scope_id ≤ last`. */
  countStates(first: string, last: string): Promise<StateCountRow[]>
  /**
   * Raw full-text candidates of the scope matching any planned term (its token, or any token
   * starting with its prefix), best first, at most `limit`. Terms come from Analyzer v1 only.
   */
  searchText(q: {
    scopeId: string
    terms: readonly PlannedTerm[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<TextHit[]>

  insertMemory(row: MemoryRow): Promise<void>
  insertVersion(row: VersionRow): Promise<void>
  /** Writes `next` iff the stored row still has `expected`; false when it moved. */
  casMemory(
    next: MemoryRow,
    expected: { readonly version: number; readonly stateVersion: number },
  ): Promise<boolean>
  /** Appends rows to the scope's change log, allocating consecutive sequence numbers. */
  appendChanges(scopeId: string, rows: readonly NewChangeRow[]): Promise<number[]>
  /** Inserts or replaces the head projection (and its full-text rows) of one memory. */
  putHead(head: HeadRow): Promise<void>
  /** Removes the head projection (and its index rows) of one memory; no-op when absent. */
  deleteHead(memoryId: string): Promise<void>

  insertMerge(merge: MergeRecord): Promise<void>
  /** The effective merge whose result is `memoryId`, if any. */
  effectiveMergeOfResult(memoryId: string): Promise<MergeRecord | undefined>
  /** Every merge (any state) in which the memory is the result or an input, oldest first. */
  mergesOfMemory(memoryId: string): Promise<MergeRecord[]>
  /** Marks an effective merge undone; false when it was not effective any more. */
  casMergeUndone(mergeId: string, at: string, operationId: string): Promise<boolean>

  getSource(
    scopeId: string,
    sourceType: SourceType,
    sourceId: string,
  ): Promise<SourceRow | undefined>
  /** Allocates the next journal position of the scope (1-based, contiguous). */
  nextSourcePosition(scopeId: string): Promise<number>
  insertSource(row: SourceRow): Promise<void>

  /** Maintenance: every memory row, every version of one memory, every head, every scope seq. */
  allMemories(): Promise<MemoryRow[]>
  allVersions(): Promise<VersionRow[]>
  allHeads(): Promise<HeadRow[]>
  allChanges(): Promise<ChangeRow[]>
  allMerges(): Promise<MergeRecord[]>
  scopeSeqs(): Promise<Map<string, number>>
  /** Adapter-specific index consistency problems (full-text index vs head rows). */
  checkIndexes(): Promise<string[]>
  /** Drops every projection row and index entry (before `rebuild`). */
  clearProjections(): Promise<void>
}
