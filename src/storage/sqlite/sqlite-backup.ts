/*
 * `admin backup`: a consistent copy of a live SQLite database through SQLite's online backup API
 * (better-sqlite3's `db.backup`), safe while a server writes to it in WAL mode. Copying the file
 * with `cp` is not: the WAL holds committed transactions the main file does not have yet.
 */
import { existsSync, linkSync, rmSync, statSync } from 'node:fs'

import Database from 'better-sqlite3'

import { PowerContextError } from '../../core/errors.js'
import { checkExistingFile, integrityProblems, requirePowerContextSchema } from './sqlite-file.js'

/** What a backup wrote. */
export interface SqliteBackupReport {
  readonly source: string
  readonly target: string
  readonly pages: number
  readonly bytes: number
}

/** Pages per backup step: all of them, so the copy is one snapshot (never restarted by writes). */
const ALL_PAGES = 0x7fffffff

const fail = (field: string, message: string): PowerContextError =>
  new PowerContextError('invalid_request', message, { errors: [{ field, message }] })

/**
 * Copies the database at `source` to the new file `target` as one consistent snapshot, then
 * checks the copy (SQLite's `quick_check`, a PowerContext schema) before it appears under
 * `target`: a failed or damaged copy never does.
 * @throws PowerContextError `invalid_request` (no database at `source`, `target` exists or its
 *   directory does not), `internal_error` (an empty or foreign source file, the copy failed
 *   its check, or SQLite failed).
 */
export async function backupSqliteFile(
  source: string,
  target: string,
): Promise<SqliteBackupReport> {
  if (!checkExistingFile(source)) throw fail('data_dir', `no database at ${source}`)
  if (existsSync(target)) throw fail('to', `${target} exists; back up to a new file`)
  const partial = `${target}.partial-${process.pid}-${Date.now()}`
  try {
    const db = new Database(source, { fileMustExist: true })
    try {
      db.pragma('busy_timeout = 5000')
      requirePowerContextSchema(db, source)
      await db.backup(partial, { progress: () => ALL_PAGES })
    } catch (err) {
      if (err instanceof TypeError && /directory does not exist/.test(err.message))
        throw fail('to', `the directory of ${target} does not exist`)
      throw err
    } finally {
      db.close()
    }
    const copy = new Database(partial, { fileMustExist: true })
    let pages: number
    try {
      const problems = integrityProblems(copy, false)
      if (problems.length > 0)
        throw new PowerContextError('internal_error', `the copy failed its check: ${problems[0]}`)
      requirePowerContextSchema(copy, partial)
      pages = copy.pragma('page_count', { simple: true }) as number
    } finally {
      copy.close()
    }
    // A hard link refuses an existing target (another backup raced us); the partial name goes.
    linkSync(partial, target)
    return { source, target, pages, bytes: statSync(target).size }
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(partial + suffix, { force: true })
  }
}
