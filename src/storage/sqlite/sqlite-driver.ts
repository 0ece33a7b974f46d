/*
 * SQLite driver wiring for the shared transaction runner: one better-sqlite3 connection,
 * `BEGIN IMMEDIATE` writes and deferred reads, every attempt serialised by the runner's mutex.
 * Another process holding the write lock is waited for by the runner's timer-paced retries, never
 * inside SQLite: its `busy_timeout` waits synchronously and would stall the event loop (health
 * probes and every other request) for as long as it waits. So the connection's busy timeout is 0
 * and a lock held past the wait budget is `storage_unavailable` (`busy`), answered 503 with
 * `Retry-After`.
 */
import type Database from 'better-sqlite3'

import { PowerContextError } from '../../core/errors.js'
import type { SqlSession } from '../sql/session.js'
import type { StorageFailureReason } from '../sql/storage-health.js'
import { storageUnavailable } from '../sql/storage-health.js'
import type { RetryBounds, SqlConnection, SqlDriver } from '../sql/transaction-runner.js'
import { isSqliteUniqueViolation } from './sqlite-dialect.js'

/**
 * How long a unit of work waits for another process's write lock before it is refused with
 * `storage_unavailable` (`busy`), ms: under the typed client's 10 s default timeout, so a caller
 * gets the typed answer rather than a timeout.
 */
export const SQLITE_LOCK_WAIT_MS = 8_000

/**
 * SQLite's retry bounds for a unit of work waiting `lockWaitMs` at most: no attempt limit, pauses
 * up to 50 ms (a try is one cheap `BEGIN IMMEDIATE`, so a released lock is taken promptly).
 */
export function sqliteRetry(lockWaitMs = SQLITE_LOCK_WAIT_MS): RetryBounds {
  return { maxAttempts: Infinity, deadlineMs: lockWaitMs, maxPauseMs: 50 }
}

/** Bounds while opening the database (a second process may be creating or migrating it). */
export const SQLITE_OPEN_RETRY: RetryBounds = sqliteRetry(60_000)

/** Another connection holds a lock this statement needs. */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
  )
}

/** Translates driver errors before they leave the adapter. */
export function toSqliteStorageError(err: unknown): PowerContextError {
  if (err instanceof PowerContextError) return err
  if (isSqliteUniqueViolation(err)) {
    return new PowerContextError(
      'revision_conflict',
      'the memory changed concurrently',
      undefined,
      { cause: err },
    )
  }
  if (isBusy(err)) {
    return storageUnavailable(
      'busy',
      'another process held the database write lock past the wait budget; retry',
      err,
    )
  }
  const unavailable = storageFailure(err)
  if (unavailable !== undefined) return unavailable
  return new PowerContextError('internal_error', 'storage failure', undefined, { cause: err })
}

/** SQLite result codes (primary code of an extended one) that mean the file cannot be written. */
const FAILURE_REASONS: Readonly<Record<string, [StorageFailureReason, string]>> = {
  SQLITE_FULL: ['disk_full', 'the disk holding the database is full'],
  SQLITE_READONLY: ['read_only', 'the database file cannot be written (read-only)'],
  SQLITE_IOERR: ['io_error', 'the database file could not be read or written (I/O error)'],
  SQLITE_CANTOPEN: ['unavailable', 'the database file cannot be opened'],
  SQLITE_CORRUPT: ['corrupt', 'the database file is damaged; run `powercontext admin verify`'],
  SQLITE_NOTADB: ['corrupt', 'the database file is damaged; run `powercontext admin verify`'],
}

/** A failure of the file itself as `storage_unavailable`, else undefined. */
export function storageFailure(err: unknown): PowerContextError | undefined {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return undefined
  // An I/O error caused by a full disk (e.g. growing the WAL) is a full disk.
  let primary = code.split('_').slice(0, 2).join('_')
  if (primary === 'SQLITE_IOERR' && /disk is full/i.test(String((err as Error).message))) {
    primary = 'SQLITE_FULL'
  }
  const known = FAILURE_REASONS[primary]
  return known === undefined ? undefined : storageUnavailable(known[0], known[1], err)
}

/**
 * The driver of one connection; reads and writes differ only in how they begin (and `afterWrite`
 * runs after each committed write: the WAL checkpointer's cue, sqlite-checkpointer.ts).
 */
export function sqliteDriver(
  db: Database.Database,
  session: SqlSession,
  afterWrite: () => void = () => {},
): SqlDriver {
  const connection = (begin: string, after: () => void): SqlConnection => ({
    session,
    begin: async () => void db.exec(begin),
    commit: async () => {
      db.exec('COMMIT')
      after()
    },
    rollback: async () => {
      if (db.inTransaction) db.exec('ROLLBACK')
    },
    release: () => {},
  })
  const write = connection('BEGIN IMMEDIATE', afterWrite)
  const read = connection('BEGIN', () => {})
  return {
    connect: async (mode) => (mode === 'write' ? write : read),
    isRetryable: isBusy,
    isBroken: () => false,
    toStorageError: (err) => toSqliteStorageError(err),
  }
}
