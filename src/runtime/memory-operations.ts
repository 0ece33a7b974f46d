import type { FlushRecordsCommand, FlushRecordsResult } from '../storage/spi/flush-types.js'
import type * as Spi from '../storage/spi/memory-backend.js'
import { MEMORY_OPERATION_NAMES } from '../storage/spi/memory-backend.js'
import type { RedactCommand, RedactResult } from '../storage/spi/redaction-types.js'
import type { PrepareContextCommand } from './context-preparer.js'
import type { ReceiptsCommand, ReceiptsPage } from './receipt-recorder.js'
import type { FlushCommand, FlushResult } from './source-flusher.js'

/** What a prepared-context call returns on every path (the wire's four fields, in domain terms). */
export interface PreparedEnvelope {
  readonly status: 'ready' | 'empty'
  readonly content: string | null
  readonly contentBytes: number
}

/**
 * The memory operations the CLI's commands are written against, in domain terms: the SPI's
 * operations (declared once, in `spi/memory-commands.ts`) that the CLI uses, and the runtime's
 * own prepared context and flush. `MemoryRuntime` implements them (local data directory) and the
 * CLI's `RemoteMemoryOperations` over the HTTP client (`--server-url`).
 */
export interface MemoryOperations extends Pick<
  Spi.MemoryOperationMethods,
  | 'remember'
  | 'update'
  | 'forget'
  | 'restore'
  | 'restorePreview'
  | 'merge'
  | 'get'
  | 'history'
  | 'list'
  | 'search'
  | 'changes'
  | 'captureSource'
  | 'listScopes'
> {
  /** The prepared context's envelope (the cited items stay server-side over HTTP). */
  prepareContext(cmd: PrepareContextCommand): Promise<PreparedEnvelope>
  /** One page of receipts: what prepared context gave each session (docs/agents.md "Receipts"). */
  contextReceipts(cmd: ReceiptsCommand): Promise<ReceiptsPage>
  flush(cmd: FlushCommand): Promise<FlushResult>
  flushRecords(cmd: FlushRecordsCommand): Promise<FlushRecordsResult>
  /** The administrative erase (`admin redact`, docs/storage.md "Redaction"). */
  redact(cmd: RedactCommand): Promise<RedactResult>
}

/** A class whose instances answer every SPI memory operation by calling the given backend. */
type DelegatingClass = abstract new (backend: Spi.MemoryBackend) => Spi.MemoryOperationMethods

/**
 * The one delegation path of the runtime: a base class with a method per name of
 * `MEMORY_OPERATION_NAMES`, each passing its arguments to the backend's method of that name and
 * returning its promise unchanged. So an SPI operation reaches every surface through the runtime
 * without being restated here.
 */
export const BackendDelegation: DelegatingClass = (() => {
  abstract class Delegation {
    readonly #backend: Spi.MemoryBackend
    constructor(backend: Spi.MemoryBackend) {
      this.#backend = backend
    }
    static {
      for (const name of MEMORY_OPERATION_NAMES) {
        Object.defineProperty(Delegation.prototype, name, {
          configurable: true,
          writable: true,
          value: function (this: Delegation, ...args: unknown[]): unknown {
            const method = this.#backend[name] as (...a: unknown[]) => unknown
            return method.apply(this.#backend, args)
          },
        })
      }
    }
  }
  // The methods are installed above, one per operation name; TypeScript cannot see them.
  return Delegation as unknown as DelegatingClass
})()
