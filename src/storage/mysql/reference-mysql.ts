import mysql from 'mysql2/promise'

import { PowerContextError } from '../../core/errors.js'
import type { ReferenceSession } from '../upgrade/reference-session.js'
import { parseDatabaseUrl, redactDatabaseUrl, redactSecret } from './mysql-url.js'

/** MySQL: `Lock wait timeout exceeded` (a metadata lock held by a writer). */
const ER_LOCK_WAIT_TIMEOUT = 1205

/** Seconds a table lock waits for writers in progress before the upgrade refuses. */
const LOCK_WAIT_SECONDS = 2

/**
 * Opens a Python-reference MySQL-family database (MariaDB, MySQL, OceanBase in MySQL mode) for the
 * upgrade, on one connection. Writers are kept out with `LOCK TABLES … READ` on every `pc_*` table
 * for the whole run: a write in progress makes the lock time out and the upgrade refuse; a writer
 * arriving later waits until the upgrade ends. A server that does not support table locks is read
 * in one consistent snapshot instead, and the preflight says so. Nothing is ever written.
 * @throws PowerContextError `invalid_request` (bad URL, cannot connect), `state_conflict` (a
 *   write is in progress); messages never contain the password.
 */
export async function openMysqlReference(url: string): Promise<ReferenceSession> {
  const settings = parseDatabaseUrl(url)
  const origin = redactDatabaseUrl(url)
  let conn: mysql.Connection
  try {
    conn = await mysql.createConnection({
      host: settings.host,
      port: settings.port,
      user: settings.user,
      ...(settings.password === undefined ? {} : { password: settings.password }),
      database: settings.database,
      charset: 'utf8mb4',
      supportBigNumbers: true,
      bigNumberStrings: false,
    })
  } catch (err) {
    throw new PowerContextError(
      'invalid_request',
      `cannot connect to the reference database ${origin}: ${redactSecret((err as Error).message, settings.password)}`,
      { field: 'from' },
    )
  }
  const all = async <T>(sql: string, params: readonly unknown[] = []): Promise<T[]> => {
    const [rows] = await conn.query(sql, params as unknown[])
    return rows as T[]
  }
  const tables = async (): Promise<string[]> =>
    (
      await all<{ name: string }>(
        `SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()
         ORDER BY TABLE_NAME`,
      )
    ).map((r) => r.name)
  const notes: string[] = []
  let writeGuard: string
  try {
    const reference = (await tables()).filter((t) => t.startsWith('pc_'))
    await conn.query(`SET SESSION lock_wait_timeout = ${LOCK_WAIT_SECONDS}`)
    if (reference.length > 0) {
      await conn.query(`LOCK TABLES ${reference.map((t) => `\`${t}\` READ`).join(', ')}`)
    }
    writeGuard =
      'every pc_* table is locked for reading for the whole run (a writer at the start refuses the upgrade; later writers wait)'
  } catch (err) {
    const errno = (err as { errno?: unknown }).errno
    if (errno === ER_LOCK_WAIT_TIMEOUT) {
      await conn.end().catch(() => undefined)
      throw new PowerContextError(
        'state_conflict',
        `the reference database ${origin} is being written (its tables stayed locked ${LOCK_WAIT_SECONDS} s); stop the reference server and retry`,
        { reason: 'being_written' },
      )
    }
    await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT').catch(async (e: unknown) => {
      await conn.end().catch(() => undefined)
      throw e
    })
    writeGuard =
      'one consistent snapshot is read (the server refused table locks: stop the reference server first)'
    notes.push(`table locks unavailable: ${(err as Error).message}`)
  }
  const others = await all<{ n: number }>(
    `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST
     WHERE DB = DATABASE() AND ID <> CONNECTION_ID()`,
  ).catch(() => [{ n: 0 }])
  const n = Number(others[0]?.n ?? 0)
  if (n > 0)
    notes.push(
      `${n} other session(s) are connected to the database (a reference server still running waits on its writes)`,
    )
  return {
    kind: 'mysql',
    origin,
    writeGuard,
    notes,
    all,
    columns: async (table: string) => {
      const rows = await all<{ name: string }>(
        `SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
        [table],
      )
      return rows.length === 0 ? undefined : rows.map((r) => r.name)
    },
    tables,
    close: async () => {
      await conn.query('UNLOCK TABLES').catch(() => undefined)
      await conn.query('ROLLBACK').catch(() => undefined)
      await conn.end().catch(() => undefined)
    },
  }
}
