import type { Bm25Statistics } from '../../core/bm25.js'
import type { MemoryState, MergeRecord, SourceType } from '../../core/memory-model.js'
import type { PlannedTerm } from '../../core/query-plan.js'
import type { FreshnessTx } from './freshness-types.js'
import type { JournalTx } from './journal-tx.js'
import type { LegacyTx } from './legacy-tx.js'
import type { ReceiptTx } from './receipt-types.js'
import type { RedactionTx } from './redaction-types.js'
import type {
  ChangeRow,
  CurrentMemory,
  HeadRow,
  MemoryRow,
  NewChangeRow,
  ScopeRow,
  StateCountRow,
  TextHit,
  VersionRow,
} from './rows.js'
import type { SourceRow } from './source-row.js'
import type { TransferTx } from './transfer-tx.js'
import type { VectorTx } from './vector-tx.js'

export type { SourceRow } from './source-row.js'

/**
 * Row-level verbs an adapter offers inside one transaction. No verb decides a domain
 * rule; the base class decides and calls these.
 */
export interface DialectTx {
  /** The vector projection's verbs; absent when the adapter has no vector support. */
  readonly vectors?: VectorTx | undefined
  /** The source journal's verbs: cursor, failures, decision records (docs/sources-and-flush.md). */
  readonly journal: JournalTx
  /** The upgrade tables' verbs (docs/upgrade.md). */
  readonly legacy: LegacyTx
  /** Keyset pages over the authoritative tables (export, import, paged rebuild). */
  readonly pages: TransferTx
  /** The administrative erase's verbs (docs/storage.md "Redaction"). */
  readonly redactions: RedactionTx
  /** The receipt log's verbs (docs/agents.md "Receipts"). */
  readonly receipts: ReceiptTx
  /** The path-change projection's verbs (docs/agents.md "Freshness"). */
  readonly freshness: FreshnessTx
  getMemory(memoryId: string): Promise<MemoryRow | undefined>
  getVersion(memoryId: string, version: number): Promise<VersionRow | undefined>
  /** Versions after `after` (default 0), oldest first, at most `limit` of them (default all). */
  listVersions(memoryId: string, after?: number, limit?: number): Promise<VersionRow[]>
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
  /**
   * The full-text index's BM25 statistics for planned terms (N, mean length, each term's
   * document frequency), read in this transaction; `undefined` when the backend keeps its
   * native candidate order (docs/search.md).
   */
  textStatistics(terms: readonly PlannedTerm[]): Promise<Bm25Statistics | undefined>

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
export type {
  ChangeRow,
  CurrentMemory,
  HeadRow,
  MemoryRow,
  NewChangeRow,
  ScopeRow,
  StateCountRow,
  TextHit,
  VersionRow,
} from './rows.js'
