import type * as S from './backend-status.js'
import type { ExportRecord, ImportReport } from './export-types.js'
import type { SourceJournalPort } from './flush-types.js'
import type { FreshnessCommand, FreshnessResult } from './freshness-types.js'
import type { LegacyScopeImport, LegacyScopeResult, TargetScopeState } from './legacy-types.js'
import type * as C from './memory-commands.js'
import type { ReceiptLogPort } from './receipt-types.js'
import type { RedactCommand, RedactResult } from './redaction-types.js'

/**
 * The storage SPI every backend implements: the memory operations ({@link C.MemoryOperationMethods})
 * and maintenance, lifecycle and status. All rules live in `DatabaseMemoryBackend`; adapters
 * add only SQL, transactions and their search dialect.
 */
export interface MemoryBackend extends C.MemoryOperationMethods {
  readonly name: string
  readonly capabilities: S.BackendCapabilities
  /**
   * Checks every stored invariant, after the database's own integrity check (SQLite:
   * `quick_check`, or the full `integrity_check` with `full`).
   */
  verify(options?: S.VerifyOptions): Promise<S.VerifyReport>
  rebuild(): Promise<S.RebuildReport>
  /**
   * Erases the stored text of a source, of one memory version, or of every match of the secret
   * rules in a scope, keeping ids, versions, hashes and the change feed (docs/storage.md
   * "Redaction"). One write transaction per erased item.
   * @throws PowerContextError `invalid_request`, `source_not_found`, `memory_not_found`.
   */
  redact(cmd: RedactCommand): Promise<RedactResult>
  /** Embeds every missing or stale vector of active memories, in bounded batches. */
  reindex(options?: S.ReindexOptions): Promise<S.ReindexReport>
  /** The vector side's state, for capabilities and readiness. */
  vectorStatus(): S.VectorStatus
  /**
   * Readiness checks of the database's own capabilities found at open (e.g. `full_text`:
   * `ready` or `unavailable: <reason>`); absent when the backend has none to report.
   */
  storageChecks?(): Readonly<Record<string, string>>
  /**
   * Asks the database about its live state (a cluster node's membership and sync state); a node
   * that must not get work answers `ready: false`. Absent when there is nothing live to check.
   */
  storageHealth?(): Promise<S.StorageHealth>
  /**
   * Starts the database's own index upkeep in the background (SQLite: compacting the full-text
   * index); `close` stops it. Absent when the database needs none. Long-running servers call it.
   */
  startIndexMaintenance?(events?: S.IndexMaintenanceEvents): void
  /**
   * Which of the given current memory versions are possibly stale: a commit captured after the
   * version touched a path its Git change or task-outcome evidence names (docs/agents.md
   * "Freshness"). One read; memories without anchors are never marked.
   * @throws PowerContextError `invalid_request` (scope id, more than 256 or malformed refs).
   */
  freshness(cmd: FreshnessCommand): Promise<FreshnessResult>
  /**
   * Records that the given current versions were re-checked against the commits that touched
   * their paths and kept: those commits no longer mark them. Returns how many were recorded.
   */
  markFresh(cmd: FreshnessCommand): Promise<number>
  /** The source journal: flush windows, cursor, failures, decision records (docs/sources-and-flush.md). */
  readonly journal: SourceJournalPort
  /** The receipt log: what prepared context gave each agent session (docs/agents.md "Receipts"). */
  readonly receipts: ReceiptLogPort
  /**
   * Every authoritative row as export records, read in one snapshot in pages (`admin export`);
   * returns the row counts.
   * @throws PowerContextError `storage_unavailable` (`corrupt`) at a damaged row, unless
   *   `onDamaged` is given: then damaged rows are left out and reported there (`admin salvage`).
   */
  exportRows(
    emit: (record: ExportRecord) => void | Promise<void>,
    now?: Date,
    onDamaged?: (row: string, problem: string) => void,
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

// The SPI's types are imported from here: the operations' commands and results live in
// memory-commands.ts, capabilities, status and maintenance reports in backend-status.ts.
export type {
  BackendCapabilities,
  ClusterStatus,
  IndexMaintenanceEvents,
  RebuildReport,
  ReindexOptions,
  ReindexReport,
  StorageHealth,
  VectorStatus,
  VerifyOptions,
  VerifyReport,
} from './backend-status.js'
export type {
  CaptureSourceCommand,
  CaptureSourceResult,
  ChangesCommand,
  ChangesResult,
  ForgetCommand,
  ForgetResult,
  GetCommand,
  GetResult,
  HistoryCommand,
  HistoryResult,
  LegacyCitationInput,
  ListCommand,
  ListResult,
  MemoryOperationMethods,
  MemoryOperationName,
  MergeCommand,
  MergeResult,
  PlanRef,
  RecentCommand,
  RecentResult,
  RememberCommand,
  RememberEntry,
  RememberResult,
  RestoreCommand,
  RestorePlanView,
  RestorePreviewCommand,
  RestorePreviewResult,
  RestoreResult,
  UpdateCommand,
  UpdateResult,
} from './memory-commands.js'
export {
  CHANGES_LIMIT_DEFAULT,
  CHANGES_LIMIT_MAX,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  MAX_CAPTURE_METADATA_VALUES,
  MAX_SOURCE_CONTENT_BYTES,
  MEMORY_OPERATION_NAMES,
  RECENT_LIMIT_DEFAULT,
  RECENT_LIMIT_MAX,
  RECENT_SCOPES_MAX,
  REMEMBER_MAX_ENTRIES,
} from './memory-commands.js'
export type {
  SearchCommand,
  SearchHit,
  SearchMode,
  SearchResult,
  UsedSearchMode,
} from './search-types.js'
export { SEARCH_MODES } from './search-types.js'
