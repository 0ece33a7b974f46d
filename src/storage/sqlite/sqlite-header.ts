/*
 * What a database file path holds, read with node:fs only (no driver), so that `doctor` can look
 * at a data directory without loading better-sqlite3.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs'

/** The 16 bytes every SQLite 3 database file starts with. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1')

/** What is at a database path: nothing, an empty file, another kind of file, or a SQLite file. */
export type DatabaseFileState =
  | { readonly state: 'missing' }
  | { readonly state: 'empty' }
  | { readonly state: 'not_sqlite'; readonly bytes: number }
  | { readonly state: 'sqlite'; readonly bytes: number }

/**
 * Looks at the file without opening it as a database.
 * @throws the file system's error for anything but a missing file (e.g. `EACCES`).
 */
export function databaseFileState(path: string): DatabaseFileState {
  let size: number
  try {
    size = statSync(path).size
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' }
    throw err
  }
  if (size === 0) return { state: 'empty' }
  const head = Buffer.alloc(SQLITE_HEADER.length)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, head, 0, head.length, 0)
  } finally {
    closeSync(fd)
  }
  return head.equals(SQLITE_HEADER)
    ? { state: 'sqlite', bytes: size }
    : { state: 'not_sqlite', bytes: size }
}
