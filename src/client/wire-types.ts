import type { components } from '../contract/powercontext-types.js'

/**
 * The wire shapes the client takes and returns, named after the contract's component schemas
 * (`openapi/powercontext.yaml`). They are aliases of the generated types, with two corrections
 * where the generator's output is narrower than the contract for a caller building a request:
 * fields that have a `default` are optional, and free-form JSON objects accept any values.
 */
type Schemas = components['schemas']
type WithOptional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>

/** Exact reference to one memory version: `{artifact_id, revision}`. */
export type ArtifactRef = Schemas['ArtifactRef']
/** Reference to a persisted source: `{name: "content", source_id}`. */
export type SourceRef = Schemas['SourceRef']
/** A memory as the server shows it: one version's content under the memory's current state. */
export type Memory = Schemas['Memory']
/** One row of a scope's change log (never carries memory text). */
export type MemoryChange = Schemas['MemoryChange']
/** One of `active`, `forgotten`, `merged`, `retired`. */
export type MemoryState = Schemas['MemoryState']
/** One of `auto`, `fts`, `vector`, `hybrid`. */
export type SearchMode = Schemas['SearchMode']
/** One ranked search hit. */
export type SearchHit = Schemas['SearchHit']
/** Why a memory is possibly stale: later commits that changed the paths it is anchored to. */
export type StaleMark = Schemas['StaleMark']
/** The error envelope every failure carries: `{error: {code, message, request_id, details}}`. */
export type ErrorResponse = Schemas['ErrorResponse']
/** The error codes of the contract. */
export type ContractErrorCode = ErrorResponse['error']['code']

/** `GET /health/live`. */
export type LiveResponse = Schemas['LiveResponse']
/** `GET /health/ready`, for both 200 (`ready`, `degraded`) and 503 (`not_ready`). */
export type ReadinessResponse = Schemas['ReadinessResponse']
/** `GET /v1/capabilities`. */
export type CapabilitiesResponse = Omit<Schemas['CapabilitiesResponse'], 'embedding_profile'> & {
  readonly embedding_profile: Readonly<Record<string, unknown>> | null
}

/** `POST /v1/sources/content` request; `metadata` is any JSON object. */
export type CaptureContentRequest = Omit<Schemas['CaptureContentRequest'], 'metadata'> & {
  metadata?: Readonly<Record<string, unknown>> | null
}
/** `POST /v1/sources/content` response (202). */
export type CaptureContentResponse = Schemas['CaptureContentResponse']
/** One entry of a `remember` batch. */
export type RememberEntry = Schemas['RememberEntry']
/** `POST /v1/memory/remember` request (1–100 entries). */
export type RememberRequest = Schemas['RememberRequest']
/** `POST /v1/memory/remember` response: one result per entry, in order. */
export type RememberResponse = Schemas['RememberResponse']
/** `POST /v1/memory/update` request. */
export type UpdateRequest = Schemas['UpdateRequest']
/** `POST /v1/memory/update` response. */
export type UpdateResponse = Schemas['UpdateResponse']
/** `POST /v1/memory/forget` request. */
export type ForgetRequest = Schemas['ForgetRequest']
/** `POST /v1/memory/forget` response. */
export type ForgetResponse = Schemas['ForgetResponse']
/** `POST /v1/memory/restore` request. */
export type RestoreRequest = Schemas['RestoreRequest']
/** `POST /v1/memory/restore` response. */
export type RestoreResponse = Schemas['RestoreResponse']
/** `POST /v1/memory/restore/preview` request. */
export type RestorePreviewRequest = Schemas['RestorePreviewRequest']
/** `POST /v1/memory/restore/preview` response: the plan and its `preview_token`. */
export type RestorePreviewResponse = Schemas['RestorePreviewResponse']
/** One memory at one version, as a restore plan names it. */
export type PlanRef = Schemas['PlanRef']
/** `POST /v1/memory/merge` request (2–100 exact inputs, each active at its current version). */
export type MergeRequest = Schemas['MergeRequest']
/** `POST /v1/memory/merge` response: the new memory and the inputs as they are now. */
export type MergeResponse = Schemas['MergeResponse']
/** `POST /v1/memory/get` request: an exact `memory_ref`, or a `memory_id` for the current one. */
export type GetRequest = Schemas['GetRequest']
/** `POST /v1/memory/get` response. */
export type GetResponse = Schemas['GetResponse']
/** `POST /v1/memory/history` request. */
export type HistoryRequest = Schemas['HistoryRequest']
/** `POST /v1/memory/history` response. */
export type HistoryResponse = Schemas['HistoryResponse']
/** A merge a memory took part in (history), as result or input. */
export type MergeRelation = Schemas['MergeRelation']
/** `POST /v1/memory/list` request (`limit` defaults to 100). */
export type ListRequest = WithOptional<Schemas['ListRequest'], 'limit'>
/** `POST /v1/memory/list` response; `next_after` continues the listing. */
export type ListResponse = Schemas['ListResponse']
/** `POST /v1/memory/search` request (`limit` defaults to 8, `mode` to `auto`). */
export type SearchRequest = WithOptional<Schemas['SearchRequest'], 'limit'>
/** `POST /v1/memory/search` response. */
export type SearchResponse = Schemas['SearchResponse']
/** `POST /v1/context/prepare` request; without `query` it asks for the session-start brief. */
export type PrepareContextRequest = WithOptional<Schemas['PrepareContextRequest'], 'max_bytes'>
/** `POST /v1/context/prepare`: the v1 envelope (exactly `schema`, `status`, `content`, `content_bytes`). */
export type PreparedContextResponse = Schemas['PreparedContextResponse']
/** `POST /v1/context/receipts` request (`limit` defaults to 50); `before` continues a listing. */
export type ReceiptsRequest = WithOptional<Schemas['ReceiptsRequest'], 'limit'>
/** `POST /v1/context/receipts` response: receipts newest first, `next_before`, the memory's usage. */
export type ReceiptsResponse = Schemas['ReceiptsResponse']
/** What prepared context gave a session once: memory refs, bytes, token estimate (never text). */
export type Receipt = Schemas['Receipt']
/** `POST /v1/hooks/claude-code` request: a Claude Code hook payload as Claude Code posts it. */
export type ClaudeCodeHookPayload = Schemas['ClaudeCodeHookPayload']
/** `POST /v1/hooks/claude-code` response: the hook output Claude Code reads (`{}` for none). */
export type ClaudeCodeHookOutput = Schemas['ClaudeCodeHookOutput']
/** `POST /v1/memory/changes` request (`since` defaults to 0, `limit` to 1000). */
export type ChangesRequest = WithOptional<Schemas['ChangesRequest'], 'since' | 'limit'>
/** `POST /v1/memory/changes` response. */
export type ChangesResponse = Schemas['ChangesResponse']
/** A source flush gave up on after repeated failures (flush and changes responses). */
export type SkippedSource = Schemas['SkippedSource']
/** What one processed source contributed to a flush. */
export type SourceOutcome = Schemas['SourceOutcome']
/** `POST /v1/memory/flush` request (`limit` defaults to 100). */
export type FlushRequest = WithOptional<Schemas['FlushRequest'], 'limit'>
/** `POST /v1/memory/flush` response. */
export type FlushResponse = Schemas['FlushResponse']
/** `POST /v1/memory/flush/records` request (`after` defaults to 0, `limit` to 20). */
export type FlushRecordsRequest = WithOptional<Schemas['FlushRecordsRequest'], 'after' | 'limit'>
/** One decision record of a flush window. */
export type FlushRecord = Schemas['FlushRecord']
/** `POST /v1/memory/flush/records` response. */
export type FlushRecordsResponse = Schemas['FlushRecordsResponse']
/** `POST /v1/scopes/list` request (`limit` defaults to 100). */
export type ListScopesRequest = WithOptional<Schemas['ListScopesRequest'], 'limit'>
/** One scope: memory counts per state, change sequence, journal counters, newest change time. */
export type ScopeSummary = Schemas['ScopeSummary']
/** `POST /v1/scopes/list` response; `next_after` continues the listing. */
export type ListScopesResponse = Schemas['ListScopesResponse']
/** A captured source with its content, metadata and flush status. */
export type SourceView = Omit<Schemas['SourceView'], 'metadata'> & {
  readonly metadata: Readonly<Record<string, unknown>>
}
/** `POST /v1/sources/get` request (1–100 source ids). */
export type GetSourcesRequest = Schemas['GetSourcesRequest']
/** `POST /v1/sources/get` response, in the order asked. */
export type GetSourcesResponse = {
  readonly sources: readonly SourceView[]
  /** Ids that did not fit the answer's byte budget: ask for them again (empty when done). */
  readonly remaining_source_ids: readonly string[]
}
/** `POST /v1/sources/list` request (`after` defaults to 0, `limit` to 20). */
export type ListSourcesRequest = WithOptional<Schemas['ListSourcesRequest'], 'after' | 'limit'>
/** `POST /v1/sources/list` response: cursor, high watermark and one page of the journal. */
export type ListSourcesResponse = Omit<Schemas['ListSourcesResponse'], 'sources'> & {
  readonly sources: readonly SourceView[]
}
/** `POST /v1/admin/redact` request: one target (`source_id`, `memory_ref`, `record_id` or `scan`); `dry_run` defaults to false. */
export type RedactRequest = WithOptional<Schemas['RedactRequest'], 'dry_run'>
/** `POST /v1/admin/redact` response: what was erased and what the database did with the bytes. */
export type RedactResponse = Schemas['RedactResponse']
/** When and why an administrator erased a stored text (memories and sources carry it). */
export type Redaction = Schemas['Redaction']
/** `GET /openapi.json`: the contract the server was built from (OpenAPI 3.1). */
export type OpenApiDocument = Schemas['OpenApiDocument'] & Readonly<Record<string, unknown>>

/**
 * The corrected types above by contract schema name; the client's methods use these, and every
 * other schema as generated (`WireType`).
 */
export interface WireCorrections {
  CapabilitiesResponse: CapabilitiesResponse
  CaptureContentRequest: CaptureContentRequest
  ChangesRequest: ChangesRequest
  FlushRecordsRequest: FlushRecordsRequest
  FlushRequest: FlushRequest
  GetSourcesResponse: GetSourcesResponse
  ListRequest: ListRequest
  ListScopesRequest: ListScopesRequest
  ListSourcesRequest: ListSourcesRequest
  ListSourcesResponse: ListSourcesResponse
  OpenApiDocument: OpenApiDocument
  PrepareContextRequest: PrepareContextRequest
  ReceiptsRequest: ReceiptsRequest
  RedactRequest: RedactRequest
  SearchRequest: SearchRequest
}

/** The wire type the client takes or returns for a contract schema name. */
export type WireType<N extends keyof Schemas> = N extends keyof WireCorrections
  ? WireCorrections[N]
  : Schemas[N]
