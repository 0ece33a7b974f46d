import { existsSync, realpathSync, statSync } from 'node:fs'

import Database from 'better-sqlite3'

import { PowerContextError } from '../../core/errors.js'
import type { ReferenceSession } from '../upgrade/reference-session.js'

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
  )
}

function sameFile(a: string, b: string | undefined): boolean {
  if (b === undefined || !existsSync(b)) return false
  return realpathSync(a) === realpathSync(b)
}

/**
 * Opens a Python-reference SQLite file for the upgrade. Writers are kept out the SQLite way: the
 * session takes the file's write lock at once (`BEGIN IMMEDIATE`, no busy wait), so a process
 * writing right now makes it refuse, and holds it to the end, so the reference server cannot
 * write while the upgrade reads (its writes fail busy). `PRAGMA query_only` makes sure this
 * connection itself never writes. When the file is also the target database (both use
 * `powercontext.db` in the same data directory), the lock is only tested and the session reads
 * one snapshot instead, since the upgrade writes through the target connection.
 * @throws PowerContextError `invalid_request` (no such file, not a database), `state_conflict`
 *   (another process holds the write lock).
 */
export function openSqliteReference(path: string, target?: string): ReferenceSession {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new PowerContextError('invalid_request', `no reference database file at ${path}`, {
      field: 'from',
    })
  }
  let db: Database.Database
  try {
    db = new Database(path, { fileMustExist: true })
    db.pragma('busy_timeout = 0')
    db.prepare('SELECT count(*) FROM sqlite_master').get()
  } catch (err) {
    throw new PowerContextError('invalid_request', `${path} is not a SQLite database`, {
      field: 'from',
      reason: (err as Error).message,
    })
  }
  const inPlace = sameFile(path, target)
  try {
    db.exec('BEGIN IMMEDIATE')
  } catch (err) {
    db.close()
    if (!isBusy(err)) throw err
    throw new PowerContextError(
      'state_conflict',
      `the reference database ${path} is being written (another process holds its write lock); stop the reference server and retry`,
      { reason: 'being_written' },
    )
  }
  if (inPlace) {
    db.exec('ROLLBACK')
    db.exec('BEGIN')
    db.prepare('SELECT count(*) FROM sqlite_master').get()
  }
  db.pragma('query_only = 1')
  const notes: string[] = []
  const wal = `${path}-wal`
  if (existsSync(wal) && statSync(wal).size > 0 && !inPlace) {
    notes.push(
      'a WAL file is present: another process may have the database open (stop the reference server)',
    )
  }
  const cache = new Map<string, Database.Statement>()
  const stmt = (sql: string): Database.Statement => {
    let s = cache.get(sql)
    if (s === undefined) cache.set(sql, (s = db.prepare(sql)))
    return s
  }
  return {
    kind: 'sqlite',
    origin: path,
    writeGuard: inPlace
      ? 'the reference tables share the target file: no writer was active at the start, and the upgrade reads one snapshot'
      : 'the write lock of the file is held for the whole run (a writer at the start refuses the upgrade)',
    notes,
    all: async <T>(sql: string, params: readonly unknown[] = []) => stmt(sql).all(...params) as T[],
    columns: async (table: string) => {
      const rows = stmt(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]
      return rows.length === 0 ? undefined : rows.map((r) => r.name)
    },
    tables: async () =>
      (
        stmt(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as {
          name: string
        }[]
      ).map((r) => r.name),
    close: async () => {
      if (!db.open) return
      if (db.inTransaction) db.exec('ROLLBACK')
      db.close()
    },
  }
}
