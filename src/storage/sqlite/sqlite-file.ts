/*
 * The database file itself: only a missing file creates a store, and it appears whole (created
 * under a temporary name, migrated, then linked into place), so an existing file — even a 0-byte
 * one — is always somebody's data and is refused unless it is a PowerContext database.
 */
import { existsSync, linkSync, renameSync, rmSync } from 'node:fs'

import Database from 'better-sqlite3'

import { PowerContextError } from '../../core/errors.js'
import { databaseFileState } from './sqlite-header.js'

/** Why a file is not opened (`details.reason` of the open error). */
export type RefusedFileReason =
  'empty_file' | 'not_a_database' | 'foreign_database' | 'schema_newer' | 'corrupt'

/** An open refused for a reason a person must act on; the message says what to do. */
export function refusedFile(
  path: string,
  reason: RefusedFileReason,
  message: string,
): PowerContextError {
  return new PowerContextError(
    'storage_unavailable',
    `cannot open SQLite database ${path}: ${message}`,
    { reason },
  )
}

/**
 * Checks an existing file before SQLite touches it: SQLite would treat a 0-byte file as a new
 * empty database and silently start over.
 * @returns false when the file does not exist (the caller creates it).
 * @throws PowerContextError (`details.reason` `empty_file` or `not_a_database`).
 */
export function checkExistingFile(path: string): boolean {
  const file = databaseFileState(path)
  if (file.state === 'missing') return false
  if (file.state === 'empty') {
    throw refusedFile(
      path,
      'empty_file',
      'the file is empty (0 bytes), not a PowerContext database; it may be a truncated copy — ' +
        'restore it from a backup, or remove it to start a new empty store',
    )
  }
  if (file.state === 'not_sqlite') {
    throw refusedFile(
      path,
      'not_a_database',
      'the file is not a SQLite database (unexpected header); point the data directory elsewhere',
    )
  }
  return true
}

/**
 * Refuses a SQLite database of another program. Accepted: one PowerContext created (a
 * `schema_version` row), the Python reference's (`pc_artifacts`: the in-place upgrade of
 * docs/upgrade.md adds this runtime's tables beside it), and one without any table. Run on an
 * existing file only, inside the write transaction that would migrate it.
 */
export function requirePowerContextSchema(db: Database.Database, path: string): void {
  const tables = new Set(
    (
      db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as {
        name: string
      }[]
    ).map((t) => t.name),
  )
  if (tables.size === 0 || tables.has('pc_artifacts')) return
  const row = tables.has('schema_version')
    ? (db.prepare('SELECT version FROM schema_version WHERE id = 1').get() as
        { version: number } | undefined)
    : undefined
  if (row === undefined || row.version < 1) {
    throw refusedFile(
      path,
      'foreign_database',
      'the file is a SQLite database but not a PowerContext one (no schema version); ' +
        'point the data directory elsewhere',
    )
  }
}

/**
 * Creates a new database at `path` whole: `init` runs in one transaction on a temporary file,
 * which is then hard-linked into place. When another process creates `path` first, its file wins
 * and ours is discarded.
 */
export function createDatabaseFile(path: string, init: (db: Database.Database) => void): void {
  const temporary = `${path}.creating-${process.pid}-${Date.now()}`
  try {
    const db = new Database(temporary)
    try {
      db.pragma('journal_mode = WAL')
      db.exec('BEGIN IMMEDIATE')
      init(db)
      db.exec('COMMIT')
    } finally {
      db.close()
    }
    try {
      linkSync(temporary, path)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'EEXIST') return
      // A file system without hard links: rename, which cannot refuse an existing file.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err
      if (!existsSync(path)) renameSync(temporary, path)
    }
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal'])
      rmSync(temporary + suffix, { force: true })
  }
}

/** Problems SQLite's own check reports (`quick_check`, or `integrity_check` when `full`). */
export function integrityProblems(db: Database.Database, full: boolean): string[] {
  const pragma = full ? 'integrity_check' : 'quick_check'
  let rows: Record<string, string>[]
  try {
    rows = db.pragma(`${pragma}(20)`) as Record<string, string>[]
  } catch (err) {
    return [`SQLite ${pragma}: ${(err as Error).message}`]
  }
  // One row may hold several lines; `*** in database main ***` only heads them.
  const lines = rows
    .flatMap((r) => String(Object.values(r)[0] ?? '').split('\n'))
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^\*\*\* in database \w+ \*\*\*$/.test(l))
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines.map((l) => `SQLite ${pragma}: ${l}`)
}

/** Refuses a damaged file at open (SQLite's `quick_check`: every page read once). */
export function requireIntact(db: Database.Database, path: string): void {
  const problems = integrityProblems(db, false)
  if (problems.length === 0) return
  const more = problems.length > 1 ? `, ${problems.length - 1} more` : ''
  throw refusedFile(
    path,
    'corrupt',
    `the database file is damaged (${problems[0]}${more}); ` +
      'run `powercontext admin verify`, then restore a backup or `powercontext admin salvage`',
  )
}
