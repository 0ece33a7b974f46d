import type { FlushRecordsCommand, FlushRecordsResult } from '../storage/spi/flush-types.js'
import type * as L from '../storage/spi/listing-types.js'
import type * as Spi from '../storage/spi/memory-backend.js'
import type { PrepareContextCommand } from './context-preparer.js'
import type { FlushCommand, FlushResult } from './source-flusher.js'

/** What a prepared-context call returns on every path (the wire's four fields, in domain terms). */
export interface PreparedEnvelope {
  readonly status: 'ready' | 'empty'
  readonly content: string | null
  readonly contentBytes: number
}

/**
 * The memory operations, in domain terms, defined once: `MemoryRuntime` implements them (local
 * data directory) and the CLI's `RemoteMemoryOperations` implements them over the HTTP client
 * (`--server-url`), so the CLI's commands are written once against this interface.
 */
export interface MemoryOperations {
  remember(cmd: Spi.RememberCommand): Promise<Spi.RememberResult>
  update(cmd: Spi.UpdateCommand): Promise<Spi.UpdateResult>
  forget(cmd: Spi.ForgetCommand): Promise<Spi.ForgetResult>
  restore(cmd: Spi.RestoreCommand): Promise<Spi.RestoreResult>
  restorePreview(cmd: Spi.RestorePreviewCommand): Promise<Spi.RestorePreviewResult>
  merge(cmd: Spi.MergeCommand): Promise<Spi.MergeResult>
  get(cmd: Spi.GetCommand): Promise<Spi.GetResult>
  history(cmd: Spi.HistoryCommand): Promise<Spi.HistoryResult>
  list(cmd: Spi.ListCommand): Promise<Spi.ListResult>
  search(cmd: Spi.SearchCommand): Promise<Spi.SearchResult>
  changes(cmd: Spi.ChangesCommand): Promise<Spi.ChangesResult>
  /** The prepared context's envelope (the cited items stay server-side over HTTP). */
  prepareContext(cmd: PrepareContextCommand): Promise<PreparedEnvelope>
  captureSource(cmd: Spi.CaptureSourceCommand): Promise<Spi.CaptureSourceResult>
  flush(cmd: FlushCommand): Promise<FlushResult>
  flushRecords(cmd: FlushRecordsCommand): Promise<FlushRecordsResult>
  listScopes(cmd: L.ListScopesCommand): Promise<L.ListScopesResult>
}
