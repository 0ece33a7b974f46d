/**
 * PowerContext-TS: the in-process API. Open a {@link MemoryRuntime} on a data directory (embedded
 * SQLite) and call its operations; every failure is a {@link PowerContextError} with a stable code.
 */
export { ANALYZER_VERSION, analyzeText, analyzeTokens } from './core/analyzer.js'
export { canonicalJson } from './core/canonical.js'
export { contentHash, VERSION_CONTENT_DOMAIN } from './core/content-hash.js'
export type { ErrorCode, FieldError } from './core/errors.js'
export { ERROR_CODES, PowerContextError } from './core/errors.js'
export type {
  ArtifactRef,
  ChangeOp,
  Memory,
  MemoryChange,
  MemoryState,
  SourceRef,
} from './core/memory-model.js'
export { CHANGE_OPS, MEMORY_STATES } from './core/memory-model.js'
export { KNOWN_KINDS, MAX_REASON_CODE_POINTS, MAX_TEXT_BYTES } from './core/text-rules.js'
export { DATABASE_FILE, resolveDataDir } from './runtime/data-dir.js'
export type { Capabilities, Readiness, RuntimeOptions } from './runtime/memory-runtime.js'
export { MemoryRuntime, PRODUCT_VERSION } from './runtime/memory-runtime.js'
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
  ListCommand,
  ListResult,
  MemoryBackend,
  RebuildReport,
  RememberCommand,
  RememberEntry,
  RememberResult,
  RestoreCommand,
  RestoreResult,
  SearchCommand,
  SearchHit,
  SearchMode,
  SearchResult,
  UpdateCommand,
  UpdateResult,
  VerifyReport,
} from './storage/memory-backend.js'
export { SEARCH_MODES } from './storage/memory-backend.js'
