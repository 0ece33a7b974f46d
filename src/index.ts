/**
 * PowerContext-TS: the in-process API. Open a {@link MemoryRuntime} on a data directory (embedded
 * SQLite) and call its operations; every failure is a {@link PowerContextError} with a stable code.
 */
export { ANALYZER_VERSION, analyzeText, analyzeTokens } from './core/analyzer.js'
export { canonicalJson } from './core/canonical.js'
export { contentHash, VERSION_CONTENT_DOMAIN } from './core/content-hash.js'
export type { Embedder, EmbeddingProfile } from './core/embedding.js'
export {
  embeddingHash,
  makeEmbeddingProfile,
  normalizeEmbedding,
  VECTOR_MIN_COSINE,
} from './core/embedding.js'
export type { ErrorCode, FieldError } from './core/errors.js'
export { ERROR_CODES, PowerContextError } from './core/errors.js'
export { MEMORY_MEDIA_TYPE, TASK_OUTCOME_MEDIA_TYPE } from './core/extraction-rules.js'
export type {
  ArtifactRef,
  ChangeOp,
  Memory,
  MemoryChange,
  MemoryState,
  MergeRecord,
  MergeState,
  SourceRef,
} from './core/memory-model.js'
export { CHANGE_OPS, MEMORY_STATES, MERGE_STATES } from './core/memory-model.js'
export { KNOWN_KINDS, MAX_REASON_CODE_POINTS, MAX_TEXT_BYTES } from './core/text-rules.js'
export type { GenerationSettings } from './runtime/chat-model.js'
export type { PrepareContextCommand, PrepareContextResult } from './runtime/context-preparer.js'
export { DATABASE_FILE, resolveDataDir } from './runtime/data-dir.js'
export type { EmbeddingSettings, OpenAiEmbedderSettings } from './runtime/embedder.js'
export { DeterministicEmbedder, OpenAiCompatibleEmbedder } from './runtime/embedder.js'
export type { ExtractionCapabilities, ExtractionOptions } from './runtime/extraction.js'
export type { Capabilities, Readiness, RuntimeOptions } from './runtime/memory-runtime.js'
export { MemoryRuntime, PRODUCT_VERSION } from './runtime/memory-runtime.js'
export type { FlushCommand, FlushResult } from './runtime/source-flusher.js'
export type {
  FlushRecord,
  FlushRecordsCommand,
  FlushRecordsResult,
  SkippedSource,
} from './storage/spi/flush-types.js'
export type {
  GetSourcesCommand,
  GetSourcesResult,
  ListScopesCommand,
  ListScopesResult,
  ListSourcesCommand,
  ListSourcesResult,
  ScopeSummary,
  SourceView,
} from './storage/spi/listing-types.js'
export type {
  BackendCapabilities,
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
  MemoryBackend,
  MergeCommand,
  MergeResult,
  PlanRef,
  RebuildReport,
  RecentCommand,
  RecentResult,
  ReindexReport,
  RememberCommand,
  RememberEntry,
  RememberResult,
  RestoreCommand,
  RestorePlanView,
  RestorePreviewCommand,
  RestorePreviewResult,
  RestoreResult,
  SearchCommand,
  SearchHit,
  SearchMode,
  SearchResult,
  UpdateCommand,
  UpdateResult,
  VectorStatus,
  VerifyReport,
} from './storage/spi/memory-backend.js'
export { SEARCH_MODES } from './storage/spi/memory-backend.js'
