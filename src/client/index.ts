/**
 * `powercontext/client`: the typed HTTP client (DESIGN §7). It depends only on the generated
 * contract and openapi-fetch, never on storage, runtime or a native driver (STYLE R16).
 */
export type { ClientErrorCode } from './client-error.js'
export {
  CLIENT_ERROR_CODES,
  CLIENT_SIDE_ERROR_CODES,
  PowerContextClientError,
} from './client-error.js'
export type {
  CallOptions,
  FetchFunction,
  PowerContextClient,
  PowerContextClientOptions,
} from './powercontext-client.js'
export { createPowerContextClient, DEFAULT_TIMEOUT_MS } from './powercontext-client.js'
export type {
  ArtifactRef,
  CapabilitiesResponse,
  CaptureContentRequest,
  CaptureContentResponse,
  ChangesRequest,
  ChangesResponse,
  ContractErrorCode,
  ErrorResponse,
  ForgetRequest,
  ForgetResponse,
  GetRequest,
  GetResponse,
  HistoryRequest,
  HistoryResponse,
  ListRequest,
  ListResponse,
  LiveResponse,
  Memory,
  MemoryChange,
  MemoryState,
  MergeRelation,
  MergeRequest,
  MergeResponse,
  PlanRef,
  ReadinessResponse,
  RememberEntry,
  RememberRequest,
  RememberResponse,
  RestorePreviewRequest,
  RestorePreviewResponse,
  RestoreRequest,
  RestoreResponse,
  SearchHit,
  SearchMode,
  SearchRequest,
  SearchResponse,
  SourceRef,
  UpdateRequest,
  UpdateResponse,
} from './wire-types.js'
