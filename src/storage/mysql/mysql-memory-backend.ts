import type { Pool } from 'mysql2/promise'
import mysql from 'mysql2/promise'

import { PowerContextError } from '../../core/errors.js'
import type { DatabaseBackendOptions } from '../engine/database-memory-backend.js'
import type {
  BackendCapabilities,
  RebuildReport,
  StorageHealth,
  VerifyOptions,
  VerifyReport,
} from '../spi/memory-backend.js'
import type { ErasureReport } from '../spi/redaction-types.js'
import { SqlMemoryBackend } from '../sql/sql-memory-backend.js'
import { TransactionRunner } from '../sql/transaction-runner.js'
import { mysqlSqlDialect } from './mysql-dialect.js'
import { mysqlDriver, mysqlPoolConfig } from './mysql-driver.js'
import { rebuildRedactedTables } from './mysql-erase.js'
import { sanitizedCause } from './mysql-errors.js'
import {
  emptyFulltextRows,
  FULLTEXT_GAP_PREFIX,
  fulltextIndexGap,
  fulltextMisses,
  refillFulltextRows,
} from './mysql-fts-repair.js'
import type { GaleraStatus } from './mysql-galera.js'
import {
  GALERA_SESSION_SETUP,
  galeraProblem,
  galeraStatusOf,
  isGaleraNode,
  statusRows,
} from './mysql-galera.js'
import type { NodeHealth } from './mysql-health.js'
import { clusterStatusOf, MysqlHealthProbe } from './mysql-health.js'
import { migrateMysql, withSchemaLock, withSchemaRetries } from './mysql-migrate.js'
import type { ServerProbe } from './mysql-probe.js'
import { ensureFulltext, ensureVectorColumn, probeServer } from './mysql-probe.js'
import { FULLTEXT_INDEX, FULLTEXT_TABLE, fulltextIndexSql } from './mysql-search.js'
import { MysqlSession } from './mysql-session.js'
import type { MysqlConnectionSettings } from './mysql-url.js'
import { parseDatabaseUrl, redactDatabaseUrl, redactSecret } from './mysql-url.js'
import type { VectorColumnState } from './mysql-vector-tx.js'

/** Options of the MySQL-protocol backend (OceanBase, MariaDB). */
export interface MysqlBackendOptions extends DatabaseBackendOptions {
  /** `mysql://user:password@host:port/database[?options]`; see `parseDatabaseUrl`. */
  readonly url: string
  /** Attempts of a transaction that meets deadlocks or lock timeouts. Default 30. */
  readonly maxAttempts?: number
  /**
   * Test hook: rewrites every statement of the row verbs, probes and migrations before it is
   * sent (the OceanBase emulation on MariaDB in `test/storage`). Never set it in production.
   */
  readonly rewriteSql?: (sql: string) => string
  /**
   * On a Galera node, every session waits for causality (`wsrep_sync_wait = 1`, see
   * mysql-galera.ts). Default true; false only to measure what it costs (`npm run bench:cluster`):
   * without it a client behind a load balancer may not read its own writes.
   */
  readonly causalReads?: boolean
}

/** Total time a transaction keeps retrying conflicts before giving up. */
const RETRY_DEADLINE_MS = 60_000
const MAX_ATTEMPTS_DEFAULT = 30

/** What the startup probes decided, for readiness and `doctor`. */
export interface MysqlStorageStatus {
  readonly server: ServerProbe
  /** Null when full-text search works, else why it is unavailable. */
  readonly ftsProblem: string | null
  /** Null when the vector column and index can be used, else why not. */
  readonly vectorProblem: string | null
  /**
   * Null when the FULLTEXT index finds every head (checked at open, by `verify` and after
   * `rebuild`), else what is missing; readiness reports it.
   */
  readonly ftsGap: string | null
  /** Index rows the last repair rewrote (at open: heads a database crash had left unsearchable). */
  readonly ftsRewritten: number
  /** The Galera node's state as last checked (open, readiness), or null: not a Galera node. */
  readonly galera: GaleraStatus | null
  /** True when sessions wait for causality (a Galera node with `causalReads` on). */
  readonly causalReads: boolean
}

/**
 * The MySQL-protocol backend on a mysql2 pool (docs/storage.md): OceanBase ≥ 4.3.5 in MySQL mode, or
 * MariaDB (FTS only). It adds no domain rule. Write transactions run SERIALIZABLE (SQLite's
 * serialised writers, across every replica sharing the database), with the `UPDATE … WHERE` head
 * CAS; deadlocks and lock timeouts roll back and rerun the whole transaction a bounded number of
 * times. Reads run on one consistent snapshot and never lock.
 */
export class MysqlMemoryBackend extends SqlMemoryBackend {
  readonly name: string
  /** Write transactions: every session SERIALIZABLE. */
  readonly #pool: Pool
  /** Read transactions: every session REPEATABLE READ (a consistent snapshot, no locks). */
  readonly #readPool: Pool
  #status: MysqlStorageStatus
  readonly #rewrite: ((sql: string) => string) | undefined
  readonly #runner: TransactionRunner
  readonly #health: MysqlHealthProbe
  /** The server restarted and the FULLTEXT check after it has not succeeded yet. */
  #repairPending = false
  /** The FULLTEXT check after a restart, while it runs (one at a time). */
  #afterRestart: Promise<void> | undefined
  readonly #database: string

  private constructor(
    pools: { write: Pool; read: Pool },
    settings: MysqlConnectionSettings,
    status: MysqlStorageStatus,
    vectorState: VectorColumnState,
    options: MysqlBackendOptions,
    health: MysqlHealthProbe,
  ) {
    // Set once `this` exists; the driver calls it for every new pooled connection after open.
    let onNewConnection = async (_sql: MysqlSession): Promise<void> => {}
    const driver = mysqlDriver({
      pool: pools.write,
      readPool: pools.read,
      dialect: status.server.dialect,
      password: settings.password,
      rewrite: options.rewriteSql,
      extraSetup: status.causalReads ? GALERA_SESSION_SETUP : [],
      onNewConnection: (sql) => onNewConnection(sql),
    })
    const bounds = {
      maxAttempts: options.maxAttempts ?? MAX_ATTEMPTS_DEFAULT,
      deadlineMs: RETRY_DEADLINE_MS,
    }
    const runner = new TransactionRunner(driver, bounds)
    super(options, {
      runner,
      dialect: mysqlSqlDialect(status.ftsProblem, vectorState),
    })
    this.name = status.server.dialect.name
    this.#pool = pools.write
    this.#readPool = pools.read
    this.#status = status
    this.#runner = runner
    this.#health = health
    this.#rewrite = options.rewriteSql
    this.#database = settings.database
    onNewConnection = (sql) => this.#noticeRestart(sql)
  }

  /**
   * Connects, probes the server, applies missing migrations, ensures the FULLTEXT and (OceanBase)
   * vector indexes, and settles the embedding profile. Capabilities follow what the probes found.
   * @throws PowerContextError `invalid_request` (bad URL), `internal_error` (cannot connect, the
   *   tenant is not in MySQL mode, the schema is newer); messages never contain the password.
   */
  static async open(options: MysqlBackendOptions): Promise<MysqlMemoryBackend> {
    const settings = parseDatabaseUrl(options.url)
    const config = mysqlPoolConfig(settings)
    const pool = mysql.createPool(config)
    const readPool = mysql.createPool(config)
    try {
      const conn = await pool.getConnection()
      let backend: MysqlMemoryBackend
      let health: MysqlHealthProbe
      try {
        const sql = new MysqlSession(conn, options.rewriteSql)
        const server = await probeServer(sql, settings.dialect)
        const nodeRows = await statusRows(sql)
        const galera = (await isGaleraNode(sql)) ? galeraStatusOf(nodeRows) : null
        health = new MysqlHealthProbe(config, galera !== null)
        health.sawStart(nodeRows)
        const causalReads = galera !== null && options.causalReads !== false
        // The schema version is read causally too: another node may have just migrated.
        if (causalReads) for (const statement of GALERA_SESSION_SETUP) await sql.run(statement)
        const schemaWork = async () => {
          await migrateMysql(sql, server.dialect)
          const ftsProblem = await ensureFulltext(sql, server)
          const stored = await sql.get<{ dimension: number }>(
            'SELECT dimension FROM embedding_profile WHERE id = 1',
          )
          const vectorState = await ensureVectorColumn(
            sql,
            server,
            stored?.dimension ?? options.embedder?.profile.dimension,
            settings.hnsw,
          )
          return { ftsProblem, vectorState }
        }
        const { ftsProblem, vectorState } = await withSchemaLock(sql, settings.database, () =>
          withSchemaRetries(schemaWork),
        )
        const status = {
          server,
          ftsProblem,
          vectorProblem: vectorState.problem,
          ftsGap: null,
          ftsRewritten: 0,
          galera,
          causalReads,
        }
        const pools = { write: pool, read: readPool }
        backend = new MysqlMemoryBackend(pools, settings, status, vectorState, options, health)
      } finally {
        conn.release()
      }
      await backend.initVectors()
      await backend.#repairFulltext(false)
      return backend
    } catch (err) {
      await Promise.all([pool.end(), readPool.end()]).catch(() => undefined)
      if (err instanceof PowerContextError && err.code !== 'internal_error') throw err
      const message = redactSecret((err as Error).message, settings.password)
      throw new PowerContextError(
        'internal_error',
        `cannot open database ${redactDatabaseUrl(options.url)}: ${message}`,
        err instanceof PowerContextError ? err.details : undefined,
        { cause: sanitizedCause(err, settings.password) },
      )
    }
  }

  /** Full-text search follows the startup probe (and the search modes with it). */
  protected override get fullTextProblem(): string | null {
    return this.#status.ftsProblem
  }

  /** The base class's capabilities and the cluster this node belongs to. */
  override get capabilities(): BackendCapabilities {
    const galera = this.#status.galera
    return { ...super.capabilities, cluster: galera === null ? null : clusterStatusOf(galera) }
  }

  /**
   * Live health for readiness: the server answers and, on a Galera node, is Synced in the primary
   * component (else `ready: false`: a load balancer must stop sending it work). After the server
   * restarted, the FULLTEXT index is checked and repaired before the node reports ready.
   */
  async storageHealth(): Promise<StorageHealth> {
    let health: NodeHealth
    try {
      health = await this.#health.check()
    } catch {
      return { ready: false, checks: { database: 'unavailable' } }
    }
    if (health.galera !== null) this.#status = { ...this.#status, galera: health.galera }
    const problem = health.galera === null ? null : galeraProblem(health.galera)
    if (problem !== null) return { ready: false, checks: { cluster: `unavailable: ${problem}` } }
    if (health.restarted) this.#repairPending = true
    if (this.#repairPending) {
      try {
        await this.#repairAfterRestart()
      } catch {
        return { ready: false, checks: { full_text: 'unavailable: checking after a restart' } }
      }
    }
    return { ready: true, checks: health.galera === null ? {} : { cluster: 'ready' } }
  }

  /**
   * Every new pooled connection reads the server's uptime first (one `SHOW STATUS`): the pool
   * reconnects after the database server restarted, so the restart is noticed by the first
   * request after it, without waiting for a readiness poll, and the FULLTEXT check starts in the
   * background (requests meanwhile are not held: one may still miss a head the crash left
   * unsearchable until it ends).
   */
  async #noticeRestart(sql: MysqlSession): Promise<void> {
    if (!this.#health.sawStart(await statusRows(sql))) return
    this.#repairPending = true
    this.#repairAfterRestart().catch(() => undefined) // readiness retries it
  }

  /** The FULLTEXT check after a restart; one at a time, pending until it succeeds. */
  #repairAfterRestart(): Promise<void> {
    this.#afterRestart ??= this.#repairFulltext(false)
      .then(() => {
        this.#repairPending = false
      })
      .finally(() => {
        this.#afterRestart = undefined
      })
    return this.#afterRestart
  }

  /** Server, dialect and the reasons a capability is unavailable (startup probes). */
  get storageStatus(): MysqlStorageStatus {
    return this.#status
  }

  /**
   * Readiness checks of the database's own capabilities: `full_text` is `ready`, `unavailable: …`
   * (the probe failed) or `incomplete: …` (the index misses heads: run `admin rebuild`).
   */
  override storageChecks(): Readonly<Record<string, string>> {
    const { ftsProblem, ftsGap } = this.#status
    const storage = super.storageChecks()
    if (ftsProblem !== null) return { ...storage, full_text: `unavailable: ${ftsProblem}` }
    return { ...storage, full_text: ftsGap === null ? 'ready' : `incomplete: ${ftsGap}` }
  }

  /** The base class's checks; what they find about the FULLTEXT index also feeds readiness. */
  override async verify(options?: VerifyOptions): Promise<VerifyReport> {
    const report = await super.verify(options)
    if (this.#status.ftsProblem === null) {
      const gap = report.problems.find((p) => p.startsWith(FULLTEXT_GAP_PREFIX)) ?? null
      this.#status = { ...this.#status, ftsGap: gap }
    }
    return report
  }

  /**
   * Rebuilds the projections (base class), then makes the FULLTEXT index find every head (see
   * {@link MysqlMemoryBackend.repairFulltext}, with the index recreated when rewriting rows is
   * not enough).
   */
  override async rebuild(): Promise<RebuildReport> {
    const report = await super.rebuild()
    await this.#repairFulltext(true)
    return report
  }

  /**
   * Makes the FULLTEXT index find every head again after a database crash (mysql-fts-repair.ts):
   * the heads it misses have their index rows rewritten in one transaction. Runs at open; call it
   * again after the database server restarted under a running process.
   * @returns the rows rewritten and what is still missing (null: nothing).
   */
  async repairFulltext(): Promise<{ rewritten: number; gap: string | null }> {
    return this.#repairFulltext(false)
  }

  async #repairFulltext(recreate: boolean): Promise<{ rewritten: number; gap: string | null }> {
    if (this.#status.ftsProblem !== null) return { rewritten: 0, gap: null }
    const misses = await this.#runner.run('read', (sql) => fulltextMisses(sql))
    let rewritten = 0
    if (misses.length > 0) {
      await this.#runner.run('write', (sql) => emptyFulltextRows(sql, misses))
      rewritten = await this.#runner.run('write', (sql) => refillFulltextRows(sql, misses))
    }
    // Only when something was missing: the check reads every head's marker (≈ one search).
    let gap = misses.length === 0 ? null : await this.#indexGap()
    if (gap !== null && recreate) {
      // The index itself is damaged (rows rewritten and still not found): DDL, outside any
      // transaction, under the schema lock so that replicas do not rebuild it at once.
      const conn = await this.#pool.getConnection()
      try {
        const sql = new MysqlSession(conn, this.#rewrite)
        await withSchemaLock(sql, this.#database, async () => {
          await sql.run(`ALTER TABLE ${FULLTEXT_TABLE} DROP INDEX ${FULLTEXT_INDEX}`)
          await sql.run(fulltextIndexSql(this.#status.server.dialect))
        })
      } finally {
        conn.release()
      }
      gap = await this.#indexGap()
    }
    this.#status = { ...this.#status, ftsGap: gap, ftsRewritten: rewritten }
    return { rewritten, gap }
  }

  #indexGap(): Promise<string | null> {
    return this.#runner.run('read', (sql) => fulltextIndexGap(sql))
  }

  /** After a redaction: the tables that held the text rebuilt (mysql-erase.ts, docs/storage.md). */
  protected override async eraseRedactedBytes(_scopeId: string): Promise<ErasureReport> {
    const conn = await this.#pool.getConnection()
    try {
      const sql = new MysqlSession(conn, this.#rewrite)
      return await rebuildRedactedTables(
        sql,
        this.#status.server.dialect.name,
        this.#status.galera !== null,
      )
    } finally {
      conn.release()
    }
  }

  /** Ends every pooled connection (after the transactions in flight). Idempotent. */
  override async close(): Promise<void> {
    await Promise.all([this.#pool.end(), this.#readPool.end()]).catch(() => undefined)
  }
}

/** Opens the MySQL-protocol backend; see {@link MysqlMemoryBackend.open}. */
export function openMysqlBackend(options: MysqlBackendOptions): Promise<MysqlMemoryBackend> {
  return MysqlMemoryBackend.open(options)
}
