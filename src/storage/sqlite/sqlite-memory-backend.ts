import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import Database from 'better-sqlite3'

import { PowerContextError } from '../../core/errors.js'
import type { DatabaseBackendOptions } from '../engine/database-memory-backend.js'
import { DatabaseMemoryBackend } from '../engine/database-memory-backend.js'
import type { DialectTx } from '../spi/dialect-tx.js'
import { AsyncMutex } from '../sql/async-mutex.js'
import { GraphStore } from './sqlite-ann-store.js'
import type { AnnScopeStatus } from './sqlite-ann-types.js'
import type { AnnSettings } from './sqlite-ann-types.js'
import { ANN_DEFAULTS } from './sqlite-ann-types.js'
import { loadHnswlib } from './sqlite-ann-types.js'
import { SqliteDialectTx } from './sqlite-dialect-tx.js'
import { migrate } from './sqlite-schema.js'
import { loadSqliteVectorIndex } from './sqlite-vector.js'
import { SqliteVectorTx } from './sqlite-vector-tx.js'

/** Options of the embedded SQLite backend. */
export interface SqliteBackendOptions extends DatabaseBackendOptions {
  /** A file path (parent directories are created) or `:memory:`. */
  readonly database: string
  /** `FULL` (default) fsyncs every commit; `NORMAL` may lose the last commits on power loss. */
  readonly synchronous?: 'FULL' | 'NORMAL'
  /** How long one attempt waits for another process's write lock. Default 5000 ms. */
  readonly busyTimeoutMs?: number
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
}

/** Default memory-map window: sqlite-vec's brute-force scans are ≈ 2× faster memory-mapped. */
const MMAP_SIZE_DEFAULT = 512 * 1024 * 1024

/** Total time a transaction keeps retrying a busy database before giving up. */
const BUSY_DEADLINE_MS = 60_000

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
  )
}

/** Translates driver errors before they leave the adapter (STYLE R8). */
function toStorageError(err: unknown): PowerContextError {
  if (err instanceof PowerContextError) return err
  const code = (err as { code?: unknown }).code
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') {
    return new PowerContextError(
      'revision_conflict',
      'the memory changed concurrently',
      undefined,
      { cause: err },
    )
  }
  if (isBusy(err)) {
    return new PowerContextError('internal_error', 'the database stayed busy too long', undefined, {
      cause: err,
    })
  }
  return new PowerContextError('internal_error', 'storage failure', undefined, { cause: err })
}

/**
 * The embedded default backend: one SQLite file (or `:memory:`), WAL, `BEGIN IMMEDIATE` writes,
 * FTS5 full-text index. It adds no domain rule (DESIGN §4); every transaction on the connection is
 * serialised by a mutex, and other processes are waited for with a busy timeout plus retries.
 */
export class SqliteMemoryBackend extends DatabaseMemoryBackend {
  readonly name = 'sqlite'
  readonly #db: Database.Database
  readonly #tx: SqliteDialectTx
  readonly #lock = new AsyncMutex()

  private constructor(db: Database.Database, options: SqliteBackendOptions) {
    super(options)
    this.#db = db
    const { index, problem } = loadSqliteVectorIndex(db, options.vectorExtension)
    this.#tx = new SqliteDialectTx(db, new SqliteVectorTx(db, index, problem))
  }

  /** Turns on the approximate-search graphs of large scopes unless `vectorAnn` is false. */
  async #enableAnn(options: SqliteBackendOptions): Promise<void> {
    if (options.vectorAnn === false) return
    const vectors = this.#tx.vectors
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
      (work) => this.#lock.run(() => this.#transaction('BEGIN', async () => work(reader))),
      store,
    )
  }

  /**
   * Opens (creating if needed) a database and applies missing migrations. Opening an up-to-date
   * database reads one row: no index is rebuilt at startup.
   * @throws PowerContextError `internal_error` when the file cannot be opened or is newer.
   */
  static async open(options: SqliteBackendOptions): Promise<SqliteMemoryBackend> {
    const path = options.database
    let db: Database.Database | undefined
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
      db = new Database(path)
      db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`)
      db.pragma('foreign_keys = ON')
      // Setting `synchronous` loads the schema: a read, busy while another process creates the file.
      await retryBusy(() => db?.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`))
      if (path !== ':memory:') {
        await retryBusy(() => db?.pragma('journal_mode = WAL'))
        db.pragma(`mmap_size = ${options.mmapSizeBytes ?? MMAP_SIZE_DEFAULT}`)
      }
      const backend = new SqliteMemoryBackend(db, options)
      await backend.#lock.run(() =>
        backend.#transaction('BEGIN IMMEDIATE', async () => {
          migrate(db as Database.Database)
          backend.#tx.vectors.prepareIndex()
        }),
      )
      await backend.initVectors()
      await backend.#enableAnn(options)
      return backend
    } catch (err) {
      db?.close()
      throw new PowerContextError(
        'internal_error',
        `cannot open SQLite database ${path}: ${(err as Error).message}`,
        undefined,
        { cause: err },
      )
    }
  }

  async #transaction<T>(begin: string, work: () => Promise<T>): Promise<T> {
    await retryBusy(() => this.#db.exec(begin))
    try {
      const out = await work()
      this.#db.exec('COMMIT')
      return out
    } catch (err) {
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK')
      throw toStorageError(err)
    }
  }

  protected override inWriteTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T> {
    return this.#lock.run(() => this.#transaction('BEGIN IMMEDIATE', () => work(this.#tx)))
  }

  protected override inReadTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T> {
    return this.#lock.run(() => this.#transaction('BEGIN', () => work(this.#tx)))
  }

  /** Closes the connection after every queued transaction has finished. */
  override async close(): Promise<void> {
    this.#tx.vectors.closeAnn()
    await this.#lock.run(async () => {
      if (this.#db.open) this.#db.close()
    })
  }

  /**
   * Approximate vector search per scope: graphs and their state, after any build or catch-up
   * under way has finished (benchmarks and tests wait on it).
   */
  annStatus(): Promise<{ lastError: string | null; scopes: Record<string, AnnScopeStatus> }> {
    return this.#tx.vectors.annStatus()
  }

  /** The underlying connection, for benchmarks and tests that measure raw SQL floors. */
  get rawDatabase(): Database.Database {
    return this.#db
  }
}

async function retryBusy<T>(attempt: () => T): Promise<T> {
  const deadline = Date.now() + BUSY_DEADLINE_MS
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      return attempt()
    } catch (err) {
      if (!isBusy(err) || Date.now() > deadline) throw err
      await sleep(wait + Math.random() * wait)
    }
  }
}

/** Opens the SQLite backend; see {@link SqliteMemoryBackend.open}. */
export function openSqliteBackend(options: SqliteBackendOptions): Promise<SqliteMemoryBackend> {
  return SqliteMemoryBackend.open(options)
}
