/*
 * SQLite driver wiring for the shared transaction runner: one better-sqlite3 connection,
 * `BEGIN IMMEDIATE` writes and deferred reads, every unit of work serialised by the runner's mutex,
 * other processes waited for by `busy_timeout` and by the runner's retries (sql/transaction-runner.ts).
 */
import type Database from 'better-sqlite3'

import { PowerContextError } from '../../core/errors.js'
import type { SqlSession } from '../sql/session.js'
import type { RetryBounds, SqlConnection, SqlDriver } from '../sql/transaction-runner.js'
import { isSqliteUniqueViolation } from './sqlite-dialect.js'

/**
 * SQLite's retry bounds: no attempt limit, a 60 s deadline (each attempt already waits up to
 * `busy_timeout` inside SQLite while another process holds the write lock).
 */
export const SQLITE_RETRY: RetryBounds = { maxAttempts: Infinity, deadlineMs: 60_000 }

/** Another connection holds a lock this statement needs. */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
  )
}

/** Translates driver errors before they leave the adapter (STYLE R8). */
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
    return new PowerContextError('internal_error', 'the database stayed busy too long', undefined, {
      cause: err,
    })
  }
  return new PowerContextError('internal_error', 'storage failure', undefined, { cause: err })
}

/** The driver of one connection; reads and writes differ only in how they begin. */
export function sqliteDriver(db: Database.Database, session: SqlSession): SqlDriver {
  const connection = (begin: string): SqlConnection => ({
    session,
    begin: async () => void db.exec(begin),
    commit: async () => void db.exec('COMMIT'),
    rollback: async () => {
      if (db.inTransaction) db.exec('ROLLBACK')
    },
    release: () => {},
  })
  const write = connection('BEGIN IMMEDIATE')
  const read = connection('BEGIN')
  return {
    connect: async (mode) => (mode === 'write' ? write : read),
    isRetryable: isBusy,
    isBroken: () => false,
    toStorageError: (err) => toSqliteStorageError(err),
  }
}
