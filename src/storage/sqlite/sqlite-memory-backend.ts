import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

import Database from 'better-sqlite3'

import { PowerContextError } from '../../core/errors.js'
import type { DatabaseBackendOptions } from '../engine/database-memory-backend.js'
import type { IndexMaintenanceEvents, StorageHealth } from '../spi/backend-status.js'
import type { ErasureReport } from '../spi/redaction-types.js'
import { AsyncMutex } from '../sql/async-mutex.js'
import type { SqlDialect } from '../sql/dialect.js'
import { SqlMemoryBackend } from '../sql/sql-memory-backend.js'
import { TransactionRunner, withRetries } from '../sql/transaction-runner.js'
import { GraphStore } from './sqlite-ann-store.js'
import type { AnnScopeStatus } from './sqlite-ann-types.js'
import type { AnnSettings } from './sqlite-ann-types.js'
import { ANN_DEFAULTS } from './sqlite-ann-types.js'
import { loadHnswlib } from './sqlite-ann-types.js'
import { WalCheckpointer } from './sqlite-checkpointer.js'
import { runDamageCheck } from './sqlite-damage-check.js'
import { sqliteDialect } from './sqlite-dialect.js'
import { diskProblem, openFailureOfDisk } from './sqlite-disk.js'
import { isBusy, SQLITE_OPEN_RETRY, sqliteDriver, sqliteRetry } from './sqlite-driver.js'
import { eraseFreedBytes } from './sqlite-erase.js'
import {
  checkExistingFile,
  createDatabaseFile,
  integrityProblems,
  requireIntact,
  requirePowerContextSchema,
} from './sqlite-file.js'
import { FtsCompaction } from './sqlite-fts-compaction.js'
import { migrate } from './sqlite-schema.js'
import { sqliteSession, SqliteStatements } from './sqlite-session.js'
import { loadSqliteVectorIndex } from './sqlite-vector.js'
import { SqliteVectorTx } from './sqlite-vector-tx.js'

/** Options of the embedded SQLite backend. */
export interface SqliteBackendOptions extends DatabaseBackendOptions {
  /** A file path (parent directories are created) or `:memory:`. */
  readonly database: string
  /** `FULL` (default) fsyncs every commit; `NORMAL` may lose the last commits on power loss. */
  readonly synchronous?: 'FULL' | 'NORMAL'
  /**
   * How long a unit of work waits, in timer-paced retries that never block the event loop, for
   * another process's write lock before it fails with `storage_unavailable` (`busy`). Default
   * 8 s (`SQLITE_LOCK_WAIT_MS`); opening waits up to 60 s.
   */
  readonly lockWaitMs?: number
  /**
   * Vector extension: default the sqlite-vec build shipped in the npm package; a path loads
   * another build; `false` loads none. A failing load or probe leaves the backend without vector
   * capability (the reason shows in `vectorStatus()`), never a failed open.
   */
  readonly vectorExtension?: string | false
  /** `PRAGMA mmap_size` for file databases. Default 512 MiB (vector scans read far less I/O). */
  readonly mmapSizeBytes?: number
  /**
   * Approximate vector search for large scopes (in-memory HNSW graphs built in the background,
   * docs/search.md): settings over {@link ANN_DEFAULTS}, or `false` for exact KNN only.
   */
  readonly vectorAnn?: Partial<AnnSettings> | false
  /**
   * Run SQLite's `quick_check` when opening an existing file and refuse a damaged one
   * (`details.reason` `corrupt`). Default true; `admin verify` opens without it to report.
   */
  readonly integrityCheck?: boolean
}

/** Default period of the background damage check (docs/storage.md#damage-verify-and-salvage). */
const DAMAGE_CHECK_INTERVAL_MS = 10 * 60_000

/** Default memory-map window: sqlite-vec's brute-force scans are ≈ 2× faster memory-mapped. */
const MMAP_SIZE_DEFAULT = 512 * 1024 * 1024

/**
 * The embedded default backend: one SQLite file (or `:memory:`), WAL, `BEGIN IMMEDIATE` writes,
 * FTS5 full-text index. It adds no domain rule (docs/storage.md); every transaction on the connection is
 * serialised by a mutex, and other processes are waited for with a busy timeout plus retries.
 */
export class SqliteMemoryBackend extends SqlMemoryBackend {
  readonly name = 'sqlite'
  readonly #db: Database.Database
  readonly #vectors: SqliteVectorTx
  readonly #runner: TransactionRunner
  readonly #compaction: FtsCompaction
  readonly #file: string
  readonly #checkpointer: WalCheckpointer | undefined
  #damageTimer: NodeJS.Timeout | undefined
  #damageRun: Promise<void> | undefined

  private constructor(
    db: Database.Database,
    options: SqliteBackendOptions,
    parts: {
      vectors: SqliteVectorTx
      runner: TransactionRunner
      dialect: SqlDialect
      checkpointer: WalCheckpointer | undefined
    },
  ) {
    super(options, { runner: parts.runner, dialect: parts.dialect })
    this.#db = db
    this.#file = options.database
    this.#vectors = parts.vectors
    this.#runner = parts.runner
    this.#checkpointer = parts.checkpointer
    this.#compaction = new FtsCompaction(db, (work) =>
      parts.runner.run('write', async () => work()),
    )
  }

  /** Wires one connection: statements, vector verbs, dialect, and the serialised runner. */
  static #create(db: Database.Database, options: SqliteBackendOptions): SqliteMemoryBackend {
    const { index, problem } = loadSqliteVectorIndex(db, options.vectorExtension)
    const vectors = new SqliteVectorTx(db, index, problem)
    const statements = new SqliteStatements(db)
    // A file's WAL is checkpointed by a worker thread, never inside a request's COMMIT.
    const checkpointer =
      options.database === ':memory:' ? undefined : new WalCheckpointer(db, options.database)
    const driver = sqliteDriver(db, sqliteSession(statements), () => {
      if (checkpointer?.due() === true) void runner.afterQueued(() => checkpointer.checkpoint())
    })
    const runner = new TransactionRunner(driver, sqliteRetry(options.lockWaitMs), new AsyncMutex())
    const dialect = sqliteDialect(statements, vectors)
    return new SqliteMemoryBackend(db, options, { vectors, runner, dialect, checkpointer })
  }

  /** Turns on the approximate-search graphs of large scopes unless `vectorAnn` is false. */
  async #enableAnn(options: SqliteBackendOptions): Promise<void> {
    if (options.vectorAnn === false) return
    const vectors = this.#vectors
    const { hnswlib, problem } = await loadHnswlib()
    if (hnswlib === undefined) {
      vectors.disableAnn(problem ?? 'vector graphs unavailable')
      return
    }
    const reader = vectors.annReader
    // Graphs of a file database are saved beside it (a cache: delete the directory any time).
    const store =
      options.database === ':memory:'
        ? undefined
        : new GraphStore(`${options.database}.graphs`, hnswlib)
    vectors.enableAnn(
      hnswlib,
      { ...ANN_DEFAULTS, ...options.vectorAnn },
      (work) => this.#runner.run('read', async () => work(reader)),
      store,
    )
  }

  /**
   * Opens (creating if needed) a database and applies missing migrations. Opening an up-to-date
   * database reads one row: no index is rebuilt at startup.
   * Only a missing file creates a database; an existing file that is empty, not SQLite, not a
   * PowerContext database or of a newer schema is refused and left untouched.
   * @throws PowerContextError `storage_unavailable` when the file is refused, with
   *   `details.reason` `empty_file`, `not_a_database`, `foreign_database`, `schema_newer` or
   *   `corrupt` (SQLite's `quick_check` failed; see `integrityCheck`), or when its filesystem is
   *   full (`disk_full`) or read-only (`read_only`); `internal_error` for any other failure.
   */
  static async open(options: SqliteBackendOptions): Promise<SqliteMemoryBackend> {
    const path = options.database
    let db: Database.Database | undefined
    try {
      const file = path !== ':memory:'
      let existing = false
      if (file) {
        mkdirSync(dirname(path), { recursive: true })
        existing = checkExistingFile(path)
        if (!existing) createDatabaseFile(path, migrate)
      }
      db = new Database(path, { fileMustExist: file })
      // SQLite's own wait is synchronous: the runner waits instead (sqlite-driver.ts).
      db.pragma('busy_timeout = 0')
      db.pragma('foreign_keys = ON')
      // Setting `synchronous` loads the schema: a read, busy while another process creates the file.
      await retryBusy(() => db?.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`))
      if (path !== ':memory:') {
        await retryBusy(() => db?.pragma('journal_mode = WAL'))
        db.pragma(`mmap_size = ${options.mmapSizeBytes ?? MMAP_SIZE_DEFAULT}`)
      }
      const backend = SqliteMemoryBackend.#create(db, options)
      await backend.#runner.run(
        'write',
        async () => {
          if (existing) requirePowerContextSchema(db as Database.Database, path)
          if (existing && options.integrityCheck !== false) {
            requireIntact(db as Database.Database, path)
          }
          migrate(db as Database.Database)
          backend.#vectors.prepareIndex()
        },
        SQLITE_OPEN_RETRY,
      )
      await backend.initVectors()
      await backend.#enableAnn(options)
      return backend
    } catch (err) {
      db?.close()
      const disk = path === ':memory:' ? undefined : openFailureOfDisk(path, dirname(path), err)
      if (disk !== undefined) throw disk
      const known = err instanceof PowerContextError ? err : undefined
      if (known?.message.startsWith('cannot open SQLite database') === true) throw known
      const opening = known?.code === 'storage_unavailable'
      if (known !== undefined && !opening && known.code !== 'internal_error') throw known
      throw new PowerContextError(
        opening ? 'storage_unavailable' : 'internal_error',
        `cannot open SQLite database ${path}: ${(err as Error).message}`,
        known?.details,
        { cause: err },
      )
    }
  }

  /**
   * Readiness of the data directory's filesystem, read on every probe (a `statfs` and an
   * `access`): `disk` is `unavailable: disk_full` or `unavailable: read_only` before a write
   * fails, so a server restarted on a full disk is not `ready`.
   */
  async storageHealth(): Promise<StorageHealth> {
    if (this.#file === ':memory:') return { ready: true, checks: {} }
    const problem = diskProblem(dirname(this.#file))
    return {
      ready: true,
      checks: { disk: problem === undefined ? 'ready' : `unavailable: ${problem}` },
    }
  }

  /**
   * Lets go of erased bytes after a redaction (sqlite-erase.ts): index merge, VACUUM, WAL reset,
   * between transactions; and forgets the scope's vector graph, which keeps deleted vectors.
   */
  protected override async eraseRedactedBytes(scopeId: string): Promise<ErasureReport> {
    await this.#vectors.forgetGraph(scopeId)
    const file = this.#db.name !== ':memory:'
    return this.#runner.afterQueued(() => eraseFreedBytes(this.#db, file))
  }

  /**
   * SQLite's own check, between transactions (on a damaged file even a read transaction's commit
   * can fail): `integrity_check`, which also compares every index with its table, so damage in a
   * key column shows (`quick_check` does not; ≈ 75 ms at 10,000 memories, docs/benchmarks.md).
   */
  protected override integrityProblems(_full: boolean): Promise<string[]> {
    return this.#runner.afterQueued(async () => integrityProblems(this.#db, true))
  }

  /**
   * Compacts the full-text index in the background (sqlite-fts-compaction.ts) and runs the damage
   * check of a file database in a worker thread, at once and then every
   * `damageCheckIntervalMs` (sqlite-damage-check.ts); `close` stops both.
   */
  startIndexMaintenance(events: IndexMaintenanceEvents = {}): void {
    this.#compaction.start((r) => events.onDone?.({ index: 'full_text', ...r }), events.onError)
    const interval = events.damageCheckIntervalMs ?? DAMAGE_CHECK_INTERVAL_MS
    if (this.#file === ':memory:' || interval <= 0 || this.#damageTimer !== undefined) return
    const check = async (): Promise<void> => {
      const problems = await runDamageCheck(this.#file)
      if (this.#damageTimer === undefined || problems.length === 0) return
      this.damageChecked(problems)
      events.onDamage?.(problems)
    }
    const tick = (): void => {
      this.#damageRun = check().finally(() => {
        if (this.#damageTimer !== undefined) this.#damageTimer = setTimeout(tick, interval).unref()
      })
    }
    this.#damageTimer = setTimeout(tick, 0).unref()
  }

  /** Closes the connection after every queued transaction has finished. */
  override async close(): Promise<void> {
    const timer = this.#damageTimer
    this.#damageTimer = undefined
    clearTimeout(timer)
    await this.#damageRun
    this.#vectors.closeAnn()
    await this.#compaction.stop()
    await this.#runner.afterQueued(async () => {
      await this.#checkpointer?.stop()
      if (this.#db.open) this.#db.close()
    })
  }

  /**
   * Approximate vector search per scope: graphs and their state, after any build or catch-up
   * under way has finished (benchmarks and tests wait on it).
   */
  annStatus(): Promise<{ lastError: string | null; scopes: Record<string, AnnScopeStatus> }> {
    return this.#vectors.annStatus()
  }

  /** The underlying connection, for benchmarks and tests that measure raw SQL floors. */
  get rawDatabase(): Database.Database {
    return this.#db
  }
}

/** Retries an open-time statement while another process holds the database (same policy). */
function retryBusy<T>(attempt: () => T): Promise<T> {
  return withRetries(async () => attempt(), isBusy, SQLITE_OPEN_RETRY)
}

/** Opens the SQLite backend; see {@link SqliteMemoryBackend.open}. */
export function openSqliteBackend(options: SqliteBackendOptions): Promise<SqliteMemoryBackend> {
  return SqliteMemoryBackend.open(options)
}
