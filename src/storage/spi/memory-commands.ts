/**
 * The memory operations of the SPI, declared once (docs/memory-model.md): their commands and results, batch
 * and page limits, and {@link MemoryOperationMethods}, from which `MemoryBackend` and the runtime
 * take their methods.
 */
import type { StaleMark } from '../../core/freshness.js'
import type {
  ArtifactRef,
  Memory,
  MemoryChange,
  MemoryState,
  MergeRecord,
  SourceRef,
} from '../../core/memory-model.js'
import type { SkippedSource } from './flush-types.js'
import type * as L from './listing-types.js'
import type { RedactionEntry } from './redaction-types.js'
import type { SearchCommand, SearchResult } from './search-types.js'

/** Batch and page limits (docs/http-api.md). */
export const REMEMBER_MAX_ENTRIES = 100
export const LIST_LIMIT_DEFAULT = 100
export const LIST_LIMIT_MAX = 500
export const CHANGES_LIMIT_DEFAULT = 1000
export const CHANGES_LIMIT_MAX = 10_000
export const RECENT_LIMIT_DEFAULT = 16
export const RECENT_LIMIT_MAX = 100
/** Most scopes one `recent` read (or one prepared context) covers. */
export const RECENT_SCOPES_MAX = 9
/** Largest content source `captureSource` accepts, in UTF-8 bytes. */
export const MAX_SOURCE_CONTENT_BYTES = 1_000_000
/**
 * Most JSON values (object members and array items, at any depth) a capture request's `metadata`
 * may hold. Every stored payload is parsed whole where it is read (one synchronous step per
 * source), so this bounds that step; a hook's metadata holds a handful.
 */
export const MAX_CAPTURE_METADATA_VALUES = 10_000
/**
 * Byte budget of one history answer: the versions' text, sources, artifacts and reasons and the
 * transitions at their revisions. The first version of a page always fits; `nextAfter` continues.
 */
export const HISTORY_RESPONSE_BYTES_MAX = 1024 * 1024
/**
 * Byte budget of one `list` answer (the memories' current versions, counted as in history): a
 * page that reached it holds fewer than `limit` memories, and `nextAfter` continues.
 */
export const LIST_RESPONSE_BYTES_MAX = 1024 * 1024
/** Versions read per statement while a history page is filled. */
export const HISTORY_READ_BATCH = 64

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

/** What a restore will change (docs/memory-model.md), as a preview shows it. */
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
  /** Set when the version read is current and possibly stale (docs/agents.md "Freshness"). */
  readonly stale?: StaleMark | undefined
}

export interface HistoryCommand {
  readonly scopeId: string
  readonly memoryId: string
  /** Continue after this revision (the previous page's `nextAfter`); default 0, the first page. */
  readonly after?: number | undefined
}

/**
 * One page of a memory's history: versions after `after`, oldest first, up to
 * {@link HISTORY_RESPONSE_BYTES_MAX}. Each transition travels with the page holding its revision
 * (`toRevision`, else `fromRevision`); the last page also takes any later one. Merges come on the
 * first page only.
 */
export interface HistoryResult {
  readonly memoryId: string
  readonly state: MemoryState
  readonly currentRevision: number
  readonly versions: readonly Memory[]
  /** The change-log rows at this page's revisions, oldest first. */
  readonly transitions: readonly MemoryChange[]
  /** Every merge the memory took part in (first page; empty on later pages). */
  readonly merges: readonly MergeRecord[]
  /** Pass as `after` for the next page, or null after the last one. */
  readonly nextAfter: number | null
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
  /** Pass as `after` for the next page, or null after the last one (see LIST_RESPONSE_BYTES_MAX). */
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
  /** Redactions (`admin redact`) in the range this page covers; they share the seq space. */
  readonly redactions?: readonly RedactionEntry[]
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

/**
 * Every memory operation, one method each: `MemoryBackend` extends it and `MemoryRuntime` answers
 * each by calling its backend ({@link MEMORY_OPERATION_NAMES}). A new operation is declared here.
 */
export interface MemoryOperationMethods {
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
}

/** The name of a memory operation. */
export type MemoryOperationName = keyof MemoryOperationMethods

// `satisfies` makes this record exhaustive: an operation missing here, or one too many, does not
// compile, so the list below cannot drift from the interface.
const OPERATION_NAMES = {
  remember: true,
  update: true,
  forget: true,
  restore: true,
  restorePreview: true,
  merge: true,
  get: true,
  history: true,
  list: true,
  search: true,
  recent: true,
  changes: true,
  captureSource: true,
  listScopes: true,
  getSources: true,
  listSources: true,
} as const satisfies Record<MemoryOperationName, true>

/** Every memory operation's name, at run time (the runtime delegates each to its backend). */
export const MEMORY_OPERATION_NAMES: readonly MemoryOperationName[] = Object.freeze(
  Object.keys(OPERATION_NAMES) as MemoryOperationName[],
)
