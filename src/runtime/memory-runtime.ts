import type { Embedder, EmbeddingProfile } from '../core/embedding.js'
import { PRODUCT_VERSION } from '../core/product-version.js'
import type { ReceiptRetention } from '../core/receipt-rules.js'
import type { ExportRecord } from '../storage/spi/export-types.js'
import type { ImportReport } from '../storage/spi/export-types.js'
import type { FlushRecordsCommand, FlushRecordsResult } from '../storage/spi/flush-types.js'
import type * as Spi from '../storage/spi/memory-backend.js'
import type { RedactCommand, RedactResult } from '../storage/spi/redaction-types.js'
import type { AnnSettings } from '../storage/sqlite/index.js'
import { openSqliteBackend } from '../storage/sqlite/index.js'
import { BackendDelegation } from './backend-delegation.js'
import { databaseBackendFor } from './backend-registry.js'
import type { PrepareContextCommand, PrepareContextResult } from './context-preparer.js'
import { budgetPath, databasePath, resolveDataDir } from './data-dir.js'
import type { EmbeddingSettings } from './embedder.js'
import { createEmbedder } from './embedder.js'
import type { ReindexLoopOptions } from './embedding-health.js'
import { EmbeddingHealth, ReindexLoop } from './embedding-health.js'
import type { ExtractionCapabilities, ExtractionOptions } from './extraction.js'
import { Extraction } from './extraction.js'
import type { FlushScheduler, FlushSchedulerOptions } from './flush-scheduler.js'
import type { ReceiptsCommand, ReceiptsPage } from './receipt-recorder.js'
import { ReceiptRecorder } from './receipt-recorder.js'
import type { UpgradeOptions, UpgradeReport } from './reference-upgrade.js'
import { openReferenceSession, upgradeFromReference } from './reference-upgrade.js'
import { RuntimeCounters, type RuntimeStats } from './runtime-counters.js'
import type { FlushCommand, FlushResult } from './source-flusher.js'

/** How to open a runtime: a data directory (embedded SQLite) or an already opened backend. */
export interface RuntimeOptions {
  /** Data directory; default `$POWERCONTEXT_HOME` or the platform's user data dir. */
  readonly dataDir?: string
  /**
   * A database instead of the data directory, its backend chosen by the URL scheme
   * (`backend-registry.ts`): `mysql://user:pass@host:port/db` for OceanBase ≥ 4.3.5 in MySQL mode
   * or MariaDB (docs/oceanbase.md). The adapter and its driver are loaded only then.
   */
  readonly databaseUrl?: string | undefined
  /** Use this backend instead of opening one (tests, embedding applications). */
  readonly backend?: Spi.MemoryBackend
  /** Clock for stamps; default the system clock. */
  readonly now?: () => Date
  /** Embedding model (vector and hybrid search); see also `embedding`. */
  readonly embedder?: Embedder | undefined
  /** An OpenAI-compatible embeddings endpoint to build the embedder from (server, CLI). */
  readonly embedding?: EmbeddingSettings | undefined
  /** Flush and extraction: generation model, poison attempts (docs/sources-and-flush.md). */
  readonly extraction?: ExtractionOptions | undefined
  /**
   * Embedded SQLite only: approximate vector search for large scopes (docs/search.md), settings
   * over the defaults, or `false` for exact KNN at every size.
   */
  readonly vectorAnn?: Partial<AnnSettings> | false | undefined
  /**
   * Embedded SQLite only: refuse a damaged file at open (SQLite's `quick_check`). Default true;
   * `admin verify` opens without it so that it can report the damage.
   */
  readonly integrityCheckAtOpen?: boolean | undefined
  /**
   * Embedded SQLite only: how long a write waits for another process's lock before it fails with
   * `storage_unavailable` (`busy`, HTTP 503 + `Retry-After`). Default 8000 ms.
   */
  readonly lockWaitMs?: number | undefined
  /**
   * How long receipts are kept (docs/agents.md "Receipts"): days and count, default 30 days and
   * 100,000 receipts; the server prunes in the background.
   */
  readonly receiptRetention?: Partial<ReceiptRetention> | undefined
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
  /** The database's embedding profile while vector search is available, else null. */
  readonly embeddingProfile: EmbeddingProfile | null
  /** The database cluster of the backend's node as last checked (readiness), or null. */
  readonly cluster: Spi.ClusterStatus | null
  /** What flush does with sources: structured candidates, or a generation model. */
  readonly extraction: ExtractionCapabilities
}

export { PRODUCT_VERSION }

/**
 * The memory runtime: the one object every surface (CLI, HTTP, MCP) calls. It owns the backend's
 * lifecycle and assembles the embedder (vector search, background reindex), extraction and the
 * flush of captured sources, and prepared context. It holds no domain rule itself: every SPI
 * memory operation (`remember`, `search`, `listSources`, …) is the backend's, reached through
 * {@link BackendDelegation}.
 */
export class MemoryRuntime extends BackendDelegation {
  readonly #backend: Spi.MemoryBackend
  readonly dataDir: string | undefined
  readonly #health: EmbeddingHealth | undefined
  #reindexLoop: ReindexLoop | undefined
  readonly #extraction: Extraction
  readonly #counters = new RuntimeCounters()
  /** Prepared context and its receipts (docs/agents.md "Receipts"). */
  readonly receipts: ReceiptRecorder
  #closed = false

  private constructor(
    backend: Spi.MemoryBackend,
    dataDir: string | undefined,
    embedder: Embedder | undefined,
    options: RuntimeOptions,
    extraction: ExtractionOptions | undefined = options.extraction,
  ) {
    super(backend)
    this.#backend = backend
    this.receipts = new ReceiptRecorder(
      backend,
      options.now ?? (() => new Date()),
      options.receiptRetention,
    )
    this.dataDir = dataDir
    this.#health = embedder === undefined ? undefined : new EmbeddingHealth(embedder)
    this.#extraction = new Extraction(backend.journal, extraction)
  }

  /**
   * Opens a runtime on its embedded default (SQLite file in the data directory), on the database
   * that `databaseUrl` names (its backend chosen by scheme) or on a given backend.
   * @throws PowerContextError `internal_error` when the database cannot be opened, `invalid_request`
   *   for a malformed `databaseUrl` or one whose scheme no backend opens (messages never contain
   *   its password).
   */
  static async open(options: RuntimeOptions = {}): Promise<MemoryRuntime> {
    const embedder =
      options.embedder ??
      (options.embedding === undefined ? undefined : createEmbedder(options.embedding))
    if (options.backend !== undefined) {
      return new MemoryRuntime(options.backend, undefined, embedder, options)
    }
    if (options.databaseUrl !== undefined) {
      const backend = await databaseBackendFor(options.databaseUrl).open({
        url: options.databaseUrl,
        now: options.now,
        embedder,
      })
      const budgetFile = budgetPath(resolveDataDir(options.dataDir))
      return new MemoryRuntime(backend, undefined, embedder, options, {
        budgetFile,
        ...options.extraction,
      })
    }
    const dataDir = resolveDataDir(options.dataDir)
    const backend = await openSqliteBackend({
      database: databasePath(dataDir),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.vectorAnn === undefined ? {} : { vectorAnn: options.vectorAnn }),
      ...(options.integrityCheckAtOpen === false ? { integrityCheck: false } : {}),
      ...(options.lockWaitMs === undefined ? {} : { lockWaitMs: options.lockWaitMs }),
      embedder,
    })
    return new MemoryRuntime(backend, dataDir, embedder, options, {
      budgetFile: budgetPath(dataDir),
      ...options.extraction,
    })
  }

  /** The backend (for maintenance tools). */
  get backend(): Spi.MemoryBackend {
    return this.#backend
  }

  /** Searches as the backend answers them, counted by mode for `GET /metrics`. */
  override search(cmd: Spi.SearchCommand): Promise<Spi.SearchResult> {
    return this.#counters.search(this.#backend.search(cmd))
  }
  /**
   * Prepared context for an agent hook (docs/agents.md): the cited, bounded block of
   * memories relevant to `query`, or the session-start brief without one. Read-only, no write lock;
   * with `receipt`, its receipt is recorded after the answer (docs/agents.md "Receipts").
   * @throws PowerContextError `invalid_request`, and the codes of `search`.
   */
  prepareContext(cmd: PrepareContextCommand): Promise<PrepareContextResult> {
    return this.receipts.prepare(cmd)
  }
  /** One page of receipts, newest first (docs/agents.md "Receipts"). */
  contextReceipts(cmd: ReceiptsCommand): Promise<ReceiptsPage> {
    return this.receipts.list(cmd)
  }
  /**
   * Processes one window of the scope's captured sources; see `docs/sources-and-flush.md`.
   * @throws PowerContextError `invalid_request`, `revision_conflict` (cursor kept moving),
   *   `inference_timeout`, `inference_unavailable`, `invalid_inference_output`.
   */
  flush(cmd: FlushCommand): Promise<FlushResult> {
    return this.#counters.flush(this.#extraction.flush(cmd))
  }
  /** Decision records of a scope's flushes (one per cursor advance), oldest window first. */
  flushRecords(cmd: FlushRecordsCommand): Promise<FlushRecordsResult> {
    return this.#extraction.records(cmd)
  }
  /** Scopes with captured sources beyond their cursor, in scope id order. */
  pendingScopes(cmd: { after?: string; limit?: number } = {}): Promise<string[]> {
    return this.#backend.journal.pendingScopes(cmd)
  }
  /**
   * Starts flushing scopes with pending sources every `intervalMs`, one scope at a time (the
   * server's `--schedule-seconds`); `close` stops it.
   */
  startFlushScheduler(options: FlushSchedulerOptions): void {
    if (this.#closed) return
    this.#extraction.startScheduler(this, options)
  }
  /** Captures a source; a new turn-end capture arms the scope's automatic flush. */
  override async captureSource(cmd: Spi.CaptureSourceCommand): Promise<Spi.CaptureSourceResult> {
    const result = await this.#backend.captureSource(cmd)
    if (result.created) this.#extraction.captured(cmd.scopeId, cmd.metadata)
    return result
  }
  /** The flush scheduler, once started (tests). */
  get flushScheduler(): FlushScheduler | undefined {
    return this.#extraction.scheduler
  }
  verify(options?: Spi.VerifyOptions): Promise<Spi.VerifyReport> {
    return this.#backend.verify(options)
  }
  rebuild(): Promise<Spi.RebuildReport> {
    return this.#backend.rebuild()
  }
  /**
   * Erases stored text (`admin redact`, docs/storage.md "Redaction").
   * @throws PowerContextError `invalid_request`, `source_not_found`, `memory_not_found`.
   */
  redact(cmd: RedactCommand): Promise<RedactResult> {
    return this.#backend.redact(cmd)
  }
  /**
   * Embeds every missing or stale vector of active memories (after a model outage, a rebuild, or
   * when a model is configured for an existing database).
   * @throws PowerContextError `capability_not_supported` without a ready embedding profile.
   */
  reindex(options?: Spi.ReindexOptions): Promise<Spi.ReindexReport> {
    return this.#backend.reindex(options)
  }
  /**
   * Every authoritative row as JSON-lines records, read in one snapshot (`admin export`); a
   * damaged row fails it unless `onDamaged` takes it (`admin salvage`).
   */
  exportRows(
    emit: (record: ExportRecord) => void | Promise<void>,
    onDamaged?: (row: string, problem: string) => void,
  ) {
    return this.#backend.exportRows(emit, undefined, onDamaged)
  }
  /**
   * Imports an export into this database, which must be empty, and rebuilds its projections
   * (`admin import`); records are written as they stream in (`row-import.ts`).
   * @throws PowerContextError `invalid_request` (bad or truncated export, database not empty).
   */
  importRows(records: Iterable<ExportRecord> | AsyncIterable<ExportRecord>): Promise<ImportReport> {
    return this.#backend.importRows(records)
  }

  /**
   * Upgrades a database written by the Python reference into this one (`admin
   * upgrade-from-reference`, docs/upgrade.md): `from` is its SQLite file or a `mysql://` URL. The
   * old database is opened read-only with its writers kept out, and closed at the end.
   * @throws PowerContextError `invalid_request` (cannot open it), `state_conflict` (it is being
   *   written); see {@link upgradeFromReference} for the report.
   */
  async upgradeFromReference(from: string, options: UpgradeOptions = {}): Promise<UpgradeReport> {
    const session = await openReferenceSession(
      from,
      this.dataDir === undefined ? undefined : databasePath(this.dataDir),
    )
    try {
      return await upgradeFromReference(this.#backend, session, options)
    } finally {
      await session.close()
    }
  }

  /**
   * Starts re-embedding missing vectors in the background, retried with backoff while the model
   * fails (the server calls this; `close` stops it). A no-op without an embedding model.
   */
  startBackgroundReindex(options: ReindexLoopOptions = {}): void {
    if (this.#closed || this.#health === undefined || this.#reindexLoop !== undefined) return
    const health = this.#health
    this.#reindexLoop = new ReindexLoop(this.#backend, options, () => health.invalidate())
  }

  /**
   * Starts the database's own index upkeep in the background (SQLite: full-text index
   * compaction, docs/storage.md); the server calls this, `close` stops it. A no-op when the
   * backend needs none.
   */
  startIndexMaintenance(events: Spi.IndexMaintenanceEvents = {}): void {
    if (!this.#closed) this.#backend.startIndexMaintenance?.(events)
  }

  /**
   * What the runtime did since it opened (searches by mode, flushes by outcome) and the vector
   * backlog as the backend and the background reindex last saw it; read by `GET /metrics`.
   */
  stats(): RuntimeStats {
    const vectors = this.#backend.vectorStatus()
    return {
      ...this.#counters.snapshot(),
      reindex: {
        backlog: vectors.state === 'ready' && vectors.backlog,
        remaining: this.#reindexLoop?.lastRemaining ?? null,
      },
      extraction: this.#extraction.usage(),
    }
  }

  /** Search modes available now, as the backend derives them from its probes (docs/search.md). */
  capabilities(): Capabilities {
    const caps = this.#backend.capabilities
    const modes = [...caps.searchModes]
    return {
      version: PRODUCT_VERSION,
      backend: this.#backend.name,
      sourceTypes: ['content'],
      searchModes: modes,
      embeddingProfile: caps.vector ? caps.embeddingProfile : null,
      cluster: caps.cluster ?? null,
      extraction: this.#extraction.capabilities(),
    }
  }

  /**
   * Readiness of the opened runtime: the storage's live health (a Galera node must be Synced in
   * the primary component) and a read of the database are blocking; with an embedding
   * model, `inference.embedding` (and `vector_index` when the index is unavailable) are
   * non-blocking: anything but `ready` makes the status `degraded`.
   */
  async readiness(): Promise<Readiness> {
    if (this.#closed) return { status: 'not_ready', checks: { runtime: 'closed' } }
    // Live storage state first (a Galera node that is not Synced must get no work).
    const live = await this.#backend.storageHealth?.()
    if (live?.ready === false) {
      return { status: 'not_ready', checks: { runtime: 'ready', ...live.checks } }
    }
    try {
      await this.#backend.changes({ scopeId: 'powercontext:readiness', since: 0, limit: 1 })
    } catch {
      return { status: 'not_ready', checks: { runtime: 'ready', database: 'unavailable' } }
    }
    const optional = {
      ...live?.checks,
      ...this.#backend.storageChecks?.(),
      ...(this.#health === undefined ? {} : await this.#health.checks(this.#backend)),
      ...(await this.#extraction.checks()),
    }
    const degraded = Object.values(optional).some((v) => v !== 'ready')
    return {
      status: degraded ? 'degraded' : 'ready',
      checks: { runtime: 'ready', database: 'ready', ...optional },
    }
  }

  /** Stops background work, then closes the backend; later calls fail. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#reindexLoop?.stop()
    await this.#extraction.stop()
    await this.receipts.stop()
    await this.#backend.close()
  }
}
