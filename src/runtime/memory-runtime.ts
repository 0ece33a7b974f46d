import type * as Spi from '../storage/memory-backend.js'
import { openSqliteBackend } from '../storage/sqlite/index.js'
import { databasePath, resolveDataDir } from './data-dir.js'

/** How to open a runtime: a data directory (embedded SQLite) or an already opened backend. */
export interface RuntimeOptions {
  /** Data directory; default `$POWERCONTEXT_HOME` or the platform's user data dir. */
  readonly dataDir?: string
  /** Use this backend instead of opening one (tests, embedding applications). */
  readonly backend?: Spi.MemoryBackend
  /** Clock for stamps; default the system clock. */
  readonly now?: () => Date
}

/** Readiness as the server reports it (`/health/ready`). */
export interface Readiness {
  readonly status: 'ready' | 'degraded' | 'not_ready'
  readonly checks: Readonly<Record<string, string>>
}

/** What this runtime can do, derived from the opened backend. */
export interface Capabilities {
  readonly version: string
  readonly backend: string
  readonly sourceTypes: readonly string[]
  readonly searchModes: readonly Spi.SearchMode[]
}

/** Product version reported by capabilities and the CLI. */
export const PRODUCT_VERSION = '0.1.0'

/**
 * The memory runtime: the one object every surface (CLI, HTTP, MCP) calls. It owns the backend's
 * lifecycle; later it also assembles embedder and extraction. It holds no domain rule itself.
 */
export class MemoryRuntime {
  readonly #backend: Spi.MemoryBackend
  readonly dataDir: string | undefined
  #closed = false

  private constructor(backend: Spi.MemoryBackend, dataDir: string | undefined) {
    this.#backend = backend
    this.dataDir = dataDir
  }

  /**
   * Opens a runtime on its embedded default (SQLite file in the data directory) or on a given
   * backend.
   * @throws PowerContextError `internal_error` when the database cannot be opened.
   */
  static async open(options: RuntimeOptions = {}): Promise<MemoryRuntime> {
    if (options.backend !== undefined) return new MemoryRuntime(options.backend, undefined)
    const dataDir = resolveDataDir(options.dataDir)
    const backend = await openSqliteBackend({
      database: databasePath(dataDir),
      ...(options.now === undefined ? {} : { now: options.now }),
    })
    return new MemoryRuntime(backend, dataDir)
  }

  /** The backend (for maintenance tools). */
  get backend(): Spi.MemoryBackend {
    return this.#backend
  }

  remember(cmd: Spi.RememberCommand): Promise<Spi.RememberResult> {
    return this.#backend.remember(cmd)
  }
  update(cmd: Spi.UpdateCommand): Promise<Spi.UpdateResult> {
    return this.#backend.update(cmd)
  }
  forget(cmd: Spi.ForgetCommand): Promise<Spi.ForgetResult> {
    return this.#backend.forget(cmd)
  }
  restore(cmd: Spi.RestoreCommand): Promise<Spi.RestoreResult> {
    return this.#backend.restore(cmd)
  }
  restorePreview(cmd: Spi.RestorePreviewCommand): Promise<Spi.RestorePreviewResult> {
    return this.#backend.restorePreview(cmd)
  }
  merge(cmd: Spi.MergeCommand): Promise<Spi.MergeResult> {
    return this.#backend.merge(cmd)
  }
  get(cmd: Spi.GetCommand): Promise<Spi.GetResult> {
    return this.#backend.get(cmd)
  }
  history(cmd: Spi.HistoryCommand): Promise<Spi.HistoryResult> {
    return this.#backend.history(cmd)
  }
  list(cmd: Spi.ListCommand): Promise<Spi.ListResult> {
    return this.#backend.list(cmd)
  }
  search(cmd: Spi.SearchCommand): Promise<Spi.SearchResult> {
    return this.#backend.search(cmd)
  }
  changes(cmd: Spi.ChangesCommand): Promise<Spi.ChangesResult> {
    return this.#backend.changes(cmd)
  }
  captureSource(cmd: Spi.CaptureSourceCommand): Promise<Spi.CaptureSourceResult> {
    return this.#backend.captureSource(cmd)
  }
  verify(): Promise<Spi.VerifyReport> {
    return this.#backend.verify()
  }
  rebuild(): Promise<Spi.RebuildReport> {
    return this.#backend.rebuild()
  }

  /** Search modes available now: `auto` and `fts`, plus vector modes when the backend has them. */
  capabilities(): Capabilities {
    const caps = this.#backend.capabilities
    const modes: Spi.SearchMode[] = ['auto', 'fts']
    if (caps.vector) modes.push('vector', 'hybrid')
    return {
      version: PRODUCT_VERSION,
      backend: this.#backend.name,
      sourceTypes: ['content'],
      searchModes: modes,
    }
  }

  /** Readiness of the opened runtime: the database answers a read. */
  async readiness(): Promise<Readiness> {
    if (this.#closed) return { status: 'not_ready', checks: { runtime: 'closed' } }
    try {
      await this.#backend.changes({ scopeId: 'powercontext:readiness', since: 0, limit: 1 })
      return { status: 'ready', checks: { runtime: 'ready', database: 'ready' } }
    } catch {
      return { status: 'not_ready', checks: { runtime: 'ready', database: 'unavailable' } }
    }
  }

  /** Closes the backend; later calls fail. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#backend.close()
  }
}
