import type { DatabaseBackendOptions } from '../engine/database-memory-backend.js'
import { DatabaseMemoryBackend } from '../engine/database-memory-backend.js'
import type { DialectTx } from '../spi/dialect-tx.js'
import type { SqlDialect } from './dialect.js'
import { SqlRows } from './sql-rows.js'
import { StorageHealth } from './storage-health.js'
import type { TransactionMode, TransactionRunner } from './transaction-runner.js'

/** What an SQL adapter hands the shared base: its transaction runner and its dialect hooks. */
export interface SqlEngine {
  readonly runner: TransactionRunner
  readonly dialect: SqlDialect
}

/**
 * The base of every SQL adapter (issue 13): transactions come from the one
 * {@link TransactionRunner} (lock, retry, rollback), and every transaction gets the row verbs
 * written once in `storage/sql/` ({@link SqlRows}) over the adapter's dialect hooks. Adapters add
 * only DDL, driver wiring, error mapping and their {@link SqlDialect}.
 */
export abstract class SqlMemoryBackend extends DatabaseMemoryBackend {
  readonly #engine: SqlEngine
  readonly #health = new StorageHealth()

  constructor(options: DatabaseBackendOptions, engine: SqlEngine) {
    super(options)
    this.#engine = engine
  }

  /** Runs `work` on the row verbs of one transaction. */
  protected inTransaction<T>(
    mode: TransactionMode,
    work: (tx: DialectTx) => Promise<T>,
  ): Promise<T> {
    const { runner, dialect } = this.#engine
    return runner
      .run(mode, (session) => work(new SqlRows(session, dialect)))
      .then(
        (out) => {
          this.#health.observe(mode)
          return out
        },
        (err: unknown) => {
          this.#health.observe(mode, err)
          throw err
        },
      )
  }

  /**
   * Readiness checks of the database: `storage` is `unavailable: <reason>` after a
   * `storage_unavailable` failure (disk full, connection lost, …) until a write commits again.
   */
  storageChecks(): Readonly<Record<string, string>> {
    return { storage: this.#health.check() }
  }

  protected override inWriteTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T> {
    return this.inTransaction('write', work)
  }

  protected override inReadTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T> {
    return this.inTransaction('read', work)
  }
}
