/*
 * The row verbs of a MariaDB database outside any backend, on the test's own raw mysql2 pools:
 * the adapter's driver wiring (`mysqlDriver`) and the shared transaction runner, so a test can
 * write rows no operation would (damage on purpose) or cross two transactions. The backend
 * itself hands out no raw transaction.
 */
import mysql from 'mysql2/promise'

import { mysqlSqlDialect } from '../../src/storage/mysql/mysql-dialect.js'
import { mysqlDriver, mysqlPoolConfig } from '../../src/storage/mysql/mysql-driver.js'
import { MYSQL_DIALECTS } from '../../src/storage/mysql/mysql-search.js'
import { parseDatabaseUrl } from '../../src/storage/mysql/mysql-url.js'
import type { DialectTx } from '../../src/storage/spi/dialect-tx.js'
import { SqlRows } from '../../src/storage/sql/sql-rows.js'
import type { TransactionMode } from '../../src/storage/sql/transaction-runner.js'
import { TransactionRunner } from '../../src/storage/sql/transaction-runner.js'

/** Transactions on the row verbs of one database; `close` ends the pools. */
export interface RowTransactions {
  run<T>(mode: TransactionMode, work: (tx: DialectTx) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/**
 * Row-verb transactions on the MariaDB database of `url` (a backend has opened and migrated it),
 * retried as a backend's are; `maxAttempts` as the backend option (default 30).
 */
export function mysqlRowTransactions(
  url: string,
  options: { readonly maxAttempts?: number } = {},
): RowTransactions {
  const settings = parseDatabaseUrl(url)
  const pool = mysql.createPool(mysqlPoolConfig(settings))
  const readPool = mysql.createPool(mysqlPoolConfig(settings))
  const driver = mysqlDriver({
    pool,
    readPool,
    dialect: MYSQL_DIALECTS[settings.dialect ?? 'mariadb'],
    password: settings.password,
    rewrite: undefined,
    extraSetup: [],
    onNewConnection: async () => {},
  })
  const runner = new TransactionRunner(driver, {
    maxAttempts: options.maxAttempts ?? 30,
    deadlineMs: 60_000,
  })
  const dialect = mysqlSqlDialect(null, {
    dialect: undefined,
    hasColumn: false,
    problem: 'no vectors in row-verb tests',
  })
  return {
    run: (mode, work) => runner.run(mode, (session) => work(new SqlRows(session, dialect))),
    close: async () => {
      await Promise.all([pool.end(), readPool.end()])
    },
  }
}
