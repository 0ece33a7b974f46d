import type { DatabaseBackendOptions } from '../engine/database-memory-backend.js'
import { DatabaseMemoryBackend } from '../engine/database-memory-backend.js'
import type { DialectTx } from '../spi/dialect-tx.js'
import type { VerifyReport } from '../spi/memory-backend.js'
import type { SqlDialect } from './dialect.js'
import { SqlRows } from './sql-rows.js'
import { StorageHealth, storageUnavailable } from './storage-health.js'
import type { TransactionMode, TransactionRunner } from './transaction-runner.js'

/** What an SQL adapter hands the shared base: its transaction runner and its dialect hooks. */
export interface SqlEngine {
  readonly runner: TransactionRunner
  readonly dialect: SqlDialect
}

/**
 * The base of every SQL adapter: transactions come from the one
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
   * `storage_unavailable` failure (disk full, connection lost, …) until a write commits again,
   * and `unavailable: corrupt` from the first damage found until a `verify` finds none.
   */
  storageChecks(): Readonly<Record<string, string>> {
    return { storage: this.#health.check() }
  }

  /** Records what a background damage check found (adapters that run one). */
  protected damageChecked(problems: readonly string[]): void {
    this.#health.checked(problems)
  }

  /** A clean `verify` clears the damage found before (e.g. projections since rebuilt). */
  protected override onVerified(report: VerifyReport): void {
    if (report.ok) this.#health.checked([])
  }

  /**
   * Writes of the operations; refused as `storage_unavailable` (`corrupt`) once damage has been
   * found, so nothing more is acknowledged on a file that does not read back as written.
   */
  protected override inWriteTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T> {
    const damage = this.#health.damage
    if (damage !== undefined) {
      return Promise.reject(
        storageUnavailable(
          'corrupt',
          `the database is damaged (${damage}); writes are refused: run \`powercontext admin verify\`, then restore a backup or \`powercontext admin salvage\``,
          undefined,
        ),
      )
    }
    return this.inTransaction('write', work)
  }

  protected override inCheckTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T> {
    return this.inTransaction('write', work)
  }

  protected override inReadTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T> {
    return this.inTransaction('read', work)
  }
}
