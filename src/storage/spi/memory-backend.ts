import type { EmbeddingProfile } from '../../core/embedding.js'
import type {
  ArtifactRef,
  Memory,
  MemoryChange,
  MemoryState,
  MergeRecord,
  SourceRef,
} from '../../core/memory-model.js'
import type { ExportRecord } from './export-types.js'
import type { ImportReport } from './export-types.js'
import type { SkippedSource, SourceJournalPort } from './flush-types.js'
import type { LegacyScopeImport, LegacyScopeResult, TargetScopeState } from './legacy-types.js'
import type * as L from './listing-types.js'
import type { SearchCommand, SearchMode, SearchResult } from './search-types.js'

/** Batch and page limits (DESIGN §7). */
export const REMEMBER_MAX_ENTRIES = 100
export const LIST_LIMIT_DEFAULT = 100
export const LIST_LIMIT_MAX = 500
export const CHANGES_LIMIT_DEFAULT = 1000
export const CHANGES_LIMIT_MAX = 10_000
export const RECENT_LIMIT_DEFAULT = 16
export const RECENT_LIMIT_MAX = 100
/** Most scopes one `recent` read (or one prepared context) covers. */
export const RECENT_SCOPES_MAX = 9

/** One entry of a `remember` batch. */
export interface RememberEntry {
  readonly kind: string
  readonly text: string
  readonly sources?: readonly SourceRef[] | undefined
  readonly observedAt?: string | null | undefined
  readonly reason?: string | null | undefined
}

export interface RememberCommand {
  readonly scopeId: string
  readonly entries: readonly RememberEntry[]
}

export interface RememberResult {
  readonly results: readonly { readonly status: 'created' | 'unchanged'; readonly memory: Memory }[]
}

export interface UpdateCommand {
  readonly scopeId: string
  /** The exact version the change was computed from. */
  readonly memoryRef: ArtifactRef
  readonly text?: string | undefined
  readonly kind?: string | undefined
  /** Added to the previous version's evidence (union). */
  readonly sources?: readonly SourceRef[] | undefined
  /** `undefined` keeps the previous value; `null` clears it. */
  readonly observedAt?: string | null | undefined
  readonly reason?: string | null | undefined
}

export interface UpdateResult {
  readonly status: 'updated' | 'unchanged'
  readonly memory: Memory
}

export interface ForgetCommand {
  readonly scopeId: string
  readonly memoryId: string
  readonly expectedRevision?: number | undefined
  readonly reason?: string | null | undefined
}

export interface ForgetResult {
  readonly status: 'forgotten' | 'unchanged'
  readonly memory: Memory
}

export interface RestoreCommand {
  readonly scopeId: string
  readonly memoryId: string
  /** Write a new version carrying this old version's content. */
  readonly toRevision?: number | undefined
  /** From `restorePreview`: refuse with `preview_stale` if anything moved since. */
  readonly previewToken?: string | undefined
  readonly reason?: string | null | undefined
}

export interface RestorePreviewCommand {
  readonly scopeId: string
  readonly memoryId: string
  readonly toRevision?: number | undefined
}

/** One memory at one version, as a restore plan names it. */
export interface PlanRef {
  readonly memoryId: string
  readonly version: number
}

/** What a restore will change (DESIGN §3), as a preview shows it. */
export interface RestorePlanView {
  /** Memories that come back to search, at these versions. */
  readonly restore: readonly PlanRef[]
  /** Merge results that will be retired. */
  readonly retire: readonly PlanRef[]
  /** Currently searchable memories whose content leaves search. */
  readonly leavingSearch: readonly PlanRef[]
  /** The version `to_revision` will write, or null. */
  readonly newVersion: {
    readonly memoryId: string
    readonly fromRevision: number
    readonly version: number
  } | null
}

export interface RestorePreviewResult {
  readonly plan: RestorePlanView
  readonly previewToken: string
}

export interface MergeCommand {
  readonly scopeId: string
  /** Exact refs of at least two active memories, each at its current version. */
  readonly inputs: readonly ArtifactRef[]
  readonly kind: string
  readonly text: string
  readonly reason?: string | null | undefined
}

export interface MergeResult {
  /** `unchanged` when the same merge already holds (a repeated request). */
  readonly status: 'merged' | 'unchanged'
  readonly mergeId: string
  readonly memory: Memory
  readonly inputs: readonly Memory[]
}

export interface RestoreResult {
  readonly status: 'restored' | 'unchanged'
  readonly memory: Memory
  readonly restored: readonly Memory[]
  readonly retired: readonly Memory[]
}

export interface GetCommand {
  readonly scopeId: string
  /** The memory to read; absent only when `legacyCitation` names the version instead. */
  readonly memoryId?: string | undefined
  /** The version to read; the current one when absent. */
  readonly revision?: number | undefined
  /**
   * An entry citation of the Python reference (docs/upgrade.md): reads the exact version the
   * cited entry version became when its scope was upgraded. Give it instead of `memoryId`.
   */
  readonly legacyCitation?: LegacyCitationInput | undefined
}

/** An old entry citation as callers give it (`memoryRef.family`, when present, is `memory`). */
export interface LegacyCitationInput {
  readonly memoryRef: {
    readonly family?: string | undefined
    readonly artifactId: string
    readonly revision: number
  }
  readonly entryId: string
  readonly entryVersionId: string
}

export interface GetResult {
  readonly memory: Memory
  readonly currentRevision: number
  readonly state: MemoryState
}

export interface HistoryCommand {
  readonly scopeId: string
  readonly memoryId: string
}

export interface HistoryResult {
  readonly memoryId: string
  readonly state: MemoryState
  readonly currentRevision: number
  readonly versions: readonly Memory[]
  /** Every change-log row of this memory, oldest first. */
  readonly transitions: readonly MemoryChange[]
  readonly merges: readonly MergeRecord[]
}

export interface ListCommand {
  readonly scopeId: string
  /** Default `['active']`. */
  readonly states?: readonly MemoryState[] | undefined
  readonly kinds?: readonly string[] | undefined
  /** 1–500, default 100. */
  readonly limit?: number | undefined
  /** Exclusive keyset cursor: the last memory id of the previous page. */
  readonly after?: string | undefined
}

export interface ListResult {
  readonly memories: readonly Memory[]
  readonly nextAfter: string | null
}

/** Active memories of one or more scopes, most recently written first. */
export interface RecentCommand {
  /** 1–9 scope ids, read in one snapshot (a repeated id counts once). */
  readonly scopeIds: readonly string[]
  /** Only these kinds; default all. */
  readonly kinds?: readonly string[] | undefined
  /** 1–100, default 16. */
  readonly limit?: number | undefined
}

export interface RecentResult {
  /**
   * Current versions of active memories, newest first: by the time the memory last changed
   * (a new version, or coming back to `active`), then by memory id, descending.
   */
  readonly memories: readonly Memory[]
}

export interface ChangesCommand {
  readonly scopeId: string
  /** Exclusive; 0 starts at the beginning; beyond the scope's head seq is `invalid_request`. */
  readonly since: number
  /** 1–10000, default 1000. */
  readonly limit?: number | undefined
}

export interface ChangesResult {
  readonly changes: readonly MemoryChange[]
  readonly headSeq: number
  /** More of the log lies after this page: ask again with `since` = {@link nextSince}. */
  readonly hasMore: boolean
  /** The `since` of the next page: the last seq this page covers (`headSeq` when complete). */
  readonly nextSince: number
  /** Sources flush gave up on (poison) in the range this page covers; they share the seq space. */
  readonly skippedSources?: readonly SkippedSource[]
}

export interface CaptureSourceCommand {
  readonly scopeId: string
  readonly sourceId?: string | undefined
  readonly content: string
  readonly mediaType?: string | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly occurredAt?: string | null | undefined
}

export interface CaptureSourceResult {
  readonly status: 'accepted'
  readonly source: SourceRef
  readonly position: number
  /** False when the same payload was already captured (idempotent repeat). */
  readonly created: boolean
}

export interface VerifyOptions {
  /** SQLite: run the full `PRAGMA integrity_check` instead of `quick_check`. Default false. */
  readonly full?: boolean | undefined
}

export interface VerifyReport {
  readonly ok: boolean
  readonly problems: readonly string[]
  readonly counts: {
    readonly memories: number
    readonly versions: number
    readonly heads: number
    readonly changes: number
    /** Vector rows (when the backend has a vector projection). */
    readonly vectors?: number
    /** Active heads without a valid vector: allowed after a model outage, filled by `reindex`. */
    readonly missingVectors?: number
  }
}

export interface RebuildReport {
  readonly heads: number
  /** Vectors re-embedded after the rebuild (0 without an embedding model). */
  readonly vectors?: number
}

/** What a backend can do; base defaults, adapters override (STYLE R3). */
export interface BackendCapabilities {
  /** Full-text search can run (false when the backend's full-text probe failed). */
  readonly fts: boolean
  /** Vector and hybrid search can run (index, model and matching profile); per-scope completeness is checked per search. */
  readonly vector: boolean
  /** The database's profile when `vector` is true, else null. */
  readonly embeddingProfile: EmbeddingProfile | null
  /**
   * The search modes that can run, derived from `fts` and `vector` (docs/search.md, "Modes"):
   * `auto, fts` with full-text search, plus `vector, hybrid` with vectors; without full-text
   * search `auto, vector` with vectors, else none. A mode not listed is refused.
   */
  readonly searchModes: readonly SearchMode[]
  /** The database cluster this node belongs to (as last probed), or null/absent for one server. */
  readonly cluster?: ClusterStatus | null
}

/** A database cluster node as it last reported itself (issue 14: MariaDB Galera). */
export interface ClusterStatus {
  readonly kind: 'galera'
  /** Nodes in this node's component. */
  readonly size: number
  /** This node's state (`Synced`, `Joining`, `Donor/Desynced`, …). */
  readonly nodeState: string
  /** True when this node is in the primary component. */
  readonly primary: boolean
}

/** Live health of the storage, for readiness: `ready` false makes the server not ready. */
export interface StorageHealth {
  readonly ready: boolean
  /** Readiness checks (e.g. `cluster`: `ready` or `unavailable: <reason>`). */
  readonly checks: Readonly<Record<string, string>>
}

/**
 * The vector side of a backend: `not_configured` (no embedding model), `ready`, `misconfigured`
 * (the model's profile differs from the one fixed in the database) or `unavailable` (no vector
 * index, e.g. the extension did not load).
 */
export interface VectorStatus {
  readonly state: 'not_configured' | 'ready' | 'misconfigured' | 'unavailable'
  /** Why vectors cannot be used; null when ready or not configured. */
  readonly reason: string | null
  /** The configured model's profile (whatever the state), or null without a model. */
  readonly profile: EmbeddingProfile | null
  /** The profile fixed in the database, or null while none was ever configured. */
  readonly storedProfile: EmbeddingProfile | null
  /** Some active memory may lack its vector (unknown at open; writes during a model outage). */
  readonly backlog: boolean
  /** The model failed recently; writes skip embedding until this time (ISO), else null. */
  readonly coolingDownUntil: string | null
}

/** Options of `reindex`. */
export interface ReindexOptions {
  /** Texts per embedding request and write transaction (1–1024, default 64). */
  readonly batchSize?: number
  /** Told after every scanned page of heads (the running totals so far); never awaited. */
  readonly onProgress?: (progress: ReindexReport) => void
}

/** What `reindex` did. */
export interface ReindexReport {
  /** Active heads examined. */
  readonly scanned: number
  /** Vectors written (missing or stale ones). */
  readonly embedded: number
  /** Heads still without a valid vector (model failure or concurrent change). */
  readonly remaining: number
  /** The model failure that stopped the run, or null. */
  readonly error: { readonly code: string; readonly message: string } | null
}

/**
 * The storage SPI every backend implements. All rules live in `DatabaseMemoryBackend`; adapters
 * add only SQL, transactions and their search dialect.
 */
export interface MemoryBackend {
  readonly name: string
  readonly capabilities: BackendCapabilities
  remember(cmd: RememberCommand): Promise<RememberResult>
  update(cmd: UpdateCommand): Promise<UpdateResult>
  forget(cmd: ForgetCommand): Promise<ForgetResult>
  restore(cmd: RestoreCommand): Promise<RestoreResult>
  restorePreview(cmd: RestorePreviewCommand): Promise<RestorePreviewResult>
  merge(cmd: MergeCommand): Promise<MergeResult>
  get(cmd: GetCommand): Promise<GetResult>
  history(cmd: HistoryCommand): Promise<HistoryResult>
  list(cmd: ListCommand): Promise<ListResult>
  search(cmd: SearchCommand): Promise<SearchResult>
  /** Active memories of several scopes, newest first (the session-start brief of prepare). */
  recent(cmd: RecentCommand): Promise<RecentResult>
  changes(cmd: ChangesCommand): Promise<ChangesResult>
  captureSource(cmd: CaptureSourceCommand): Promise<CaptureSourceResult>
  /** Scopes with memory counts per state, keyset paged by scope id. */
  listScopes(cmd?: L.ListScopesCommand): Promise<L.ListScopesResult>
  /** Captured sources by id (evidence content, metadata, flush status). */
  getSources(cmd: L.GetSourcesCommand): Promise<L.GetSourcesResult>
  /** The scope's source journal: cursor, high watermark, a page of sources. */
  listSources(cmd: L.ListSourcesCommand): Promise<L.ListSourcesResult>
  /**
   * Checks every stored invariant, after the database's own integrity check (SQLite:
   * `quick_check`, or the full `integrity_check` with `full`).
   */
  verify(options?: VerifyOptions): Promise<VerifyReport>
  rebuild(): Promise<RebuildReport>
  /** Embeds every missing or stale vector of active memories, in bounded batches. */
  reindex(options?: ReindexOptions): Promise<ReindexReport>
  /** The vector side's state, for capabilities and readiness. */
  vectorStatus(): VectorStatus
  /**
   * Readiness checks of the database's own capabilities found at open (e.g. `full_text`:
   * `ready` or `unavailable: <reason>`); absent when the backend has none to report.
   */
  storageChecks?(): Readonly<Record<string, string>>
  /**
   * Asks the database about its live state (a cluster node's membership and sync state); a node
   * that must not get work answers `ready: false`. Absent when there is nothing live to check.
   */
  storageHealth?(): Promise<StorageHealth>
  /** The source journal: flush windows, cursor, failures, decision records (DESIGN §6). */
  readonly journal: SourceJournalPort
  /**
   * Every authoritative row as export records, read in one snapshot in pages (`admin export`);
   * returns the row counts.
   */
  exportRows(
    emit: (record: ExportRecord) => void | Promise<void>,
    now?: Date,
  ): Promise<Readonly<Record<string, number>>>
  /**
   * Imports export records (streamed, in file order) into this database, which must be empty, in
   * one transaction, then rebuilds its projections (`admin import`).
   * @throws PowerContextError `invalid_request` (bad, truncated or inconsistent export; database
   *   not empty).
   */
  importRows(records: Iterable<ExportRecord> | AsyncIterable<ExportRecord>): Promise<ImportReport>
  /** What the database holds for a scope an upgrade from the Python reference would write. */
  legacyScopeState(scopeId: string): Promise<TargetScopeState>
  /** Upgrades one scope from the Python reference in one transaction (docs/upgrade.md). */
  importLegacyScope(
    input: LegacyScopeImport,
    options?: { readonly dryRun?: boolean },
  ): Promise<LegacyScopeResult>
  close(): Promise<void>
}

export type {
  SearchCommand,
  SearchHit,
  SearchMode,
  SearchResult,
  UsedSearchMode,
} from './search-types.js'
export { SEARCH_MODES } from './search-types.js'
