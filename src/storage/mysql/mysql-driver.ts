/*
 * MySQL-family driver wiring for the shared transaction runner: two mysql2 pools, write sessions
 * SERIALIZABLE (SQLite's serialised writers, across every replica sharing the database) and read
 * sessions REPEATABLE READ on one consistent snapshot; a connection that failed is destroyed, not
 * returned to its pool. A new pooled connection is first handed to `onNewConnection` (the backend
 * reads the server's uptime there: the pool reconnects after a database restart).
 */
import type { Pool, PoolConnection, PoolOptions } from 'mysql2/promise'

import type { SqlConnection, SqlDriver } from '../sql/transaction-runner.js'
import { isAnswerLost, isConnectionError, isRetryable, toStorageError } from './mysql-errors.js'
import type { MysqlDialect } from './mysql-search.js'
import { MysqlSession } from './mysql-session.js'
import type { MysqlConnectionSettings } from './mysql-url.js'

/** The pool options of a database URL's settings (both pools of a backend use them). */
export function mysqlPoolConfig(settings: MysqlConnectionSettings): PoolOptions {
  return {
    host: settings.host,
    port: settings.port,
    user: settings.user,
    ...(settings.password === undefined ? {} : { password: settings.password }),
    database: settings.database,
    connectionLimit: settings.connectionLimit,
    charset: 'utf8mb4',
    supportBigNumbers: true,
    bigNumberStrings: false,
    enableKeepAlive: true,
  }
}

/** What the driver needs: the pools, the product dialect, the password (to redact), a test hook. */
export interface MysqlDriverSettings {
  readonly pool: Pool
  readonly readPool: Pool
  readonly dialect: MysqlDialect
  readonly password: string | undefined
  readonly rewrite: ((sql: string) => string) | undefined
  /** Statements after the dialect's on every new connection (Galera: causal reads). */
  readonly extraSetup: readonly string[]
  /** Runs first on every new pooled connection, with default session settings. */
  readonly onNewConnection: (session: MysqlSession) => Promise<void>
}

/** The driver of one backend; each new pooled connection is set up once. */
export function mysqlDriver(s: MysqlDriverSettings): SqlDriver {
  const initialised = new WeakSet<object>()
  const checkout = async (write: boolean): Promise<PoolConnection> => {
    const conn = await (write ? s.pool : s.readPool).getConnection()
    const core = conn.connection as unknown as object
    if (!initialised.has(core)) {
      const level = write ? 'SERIALIZABLE' : 'REPEATABLE READ'
      try {
        await s.onNewConnection(new MysqlSession(conn, s.rewrite))
        for (const statement of [...s.dialect.sessionSetup, ...s.extraSetup]) {
          await conn.query(statement)
        }
        await conn.query(`SET SESSION TRANSACTION ISOLATION LEVEL ${level}`)
      } catch (err) {
        conn.destroy()
        throw err
      }
      initialised.add(core)
    }
    return conn
  }
  return {
    async connect(mode): Promise<SqlConnection> {
      const write = mode === 'write'
      const conn = await checkout(write)
      return {
        session: new MysqlSession(conn, s.rewrite),
        begin: async () =>
          void (await conn.query(write ? 'START TRANSACTION' : s.dialect.beginRead)),
        commit: async () => void (await conn.query('COMMIT')),
        rollback: async () => void (await conn.query('ROLLBACK')),
        release: (broken) => (broken ? conn.destroy() : conn.release()),
      }
    },
    isRetryable: (err) => isRetryable(err, s.dialect.retryableErrnos),
    isBroken: isConnectionError,
    isCommitOutcomeUnknown: isAnswerLost,
    toStorageError: (err, exhausted) => toStorageError(err, s.password, exhausted),
  }
}
