/*
 * Driver errors translated before they leave the adapter: nothing above
 * `storage/mysql/` knows mysql2's error shapes, and no message or cause carries the password.
 */
import { PowerContextError } from '../../core/errors.js'
import { storageUnavailable } from '../sql/storage-health.js'
import { redactSecret } from './mysql-url.js'

interface DriverError {
  readonly code?: unknown
  readonly errno?: unknown
  readonly sqlState?: unknown
  readonly fatal?: unknown
  readonly message?: unknown
}

/** Duplicate key (a concurrent writer inserted the same version, source or cursor first). */
export const ER_DUP_ENTRY = 1062

/** Disk full (1021 `ER_DISK_FULL`), table full (1114 `ER_RECORD_FILE_FULL`). */
const DISK_FULL_ERRNOS = new Set([1021, 1114])
/** `Got error N from storage engine` (1030); N = 28 is ENOSPC. */
const ER_GET_ERRNO = 1030
/** A Galera node not ready for clients (1047 `ER_UNKNOWN_COM_ERROR`, SQLSTATE 08S01). */
const ER_WSREP_NOT_READY = 1047
/** `--read-only` server (1290 `ER_OPTION_PREVENTS_STATEMENT`). */
const ER_READ_ONLY = 1290

/**
 * Failures of open-time schema work that a rerun clears: deadlock (1213) and lock wait timeout
 * (1205) — on Galera also a certification conflict with another node's write — and `Query
 * execution was interrupted` (1317), a statement brute-force aborted by another node's replicated
 * DDL (total order isolation). Servers opening a new database at once on several nodes meet them.
 * The source id widening (mysql-source-ids.ts) reads which foreign keys exist, then drops and adds
 * them: another node doing the same in between makes a drop miss (1091 `ER_CANT_DROP_FIELD_OR_KEY`)
 * or an add collide (1005 `ER_CANT_CREATE_TABLE` with errno 121, 1826 `ER_FK_DUP_NAME`); the rerun
 * reads the keys again and finds the work done.
 */
const SCHEMA_CONFLICT_ERRNOS = new Set([1005, 1091, 1205, 1213, 1317, 1826])

/** True when open-time schema work failed on a conflict with a concurrent opener: run it again. */
export function isSchemaConflict(err: unknown): boolean {
  return isRetryable(err, SCHEMA_CONFLICT_ERRNOS)
}

/** Socket-level failures and server answers that mean "no usable connection". */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'POOL_CLOSED',
])
/**
 * Access denied (1045, 1698), unknown database (1049), too many connections (1040), gone away
 * (2006, 2013).
 */
const CONNECTION_ERRNOS = new Set([1040, 1045, 1049, 1698, 2006, 2013])

function driverError(err: unknown): DriverError {
  return typeof err === 'object' && err !== null ? (err as DriverError) : {}
}

/** True when the error is one of `errnos` (deadlock, lock wait timeout, …): retry the transaction. */
export function isRetryable(err: unknown, errnos: ReadonlySet<number>): boolean {
  const errno = driverError(err).errno
  return typeof errno === 'number' && errnos.has(errno)
}

/** True when the connection is unusable (refused, lost, denied, unknown database). */
export function isConnectionError(err: unknown): boolean {
  const e = driverError(err)
  return (
    (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) ||
    (typeof e.errno === 'number' && CONNECTION_ERRNOS.has(e.errno)) ||
    e.fatal === true
  )
}

/** Failures that mean the connection went away mid-statement (no answer from the server). */
const LOST_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
])
/** Server has gone away (2006), lost connection during query (2013). */
const LOST_ERRNOS = new Set([2006, 2013])

/**
 * True when a statement's answer was lost with the connection: for a `COMMIT`, the transaction
 * may or may not have committed (the server can apply it and fail to answer).
 */
export function isAnswerLost(err: unknown): boolean {
  const e = driverError(err)
  return (
    (typeof e.code === 'string' && LOST_CODES.has(e.code)) ||
    (typeof e.errno === 'number' && LOST_ERRNOS.has(e.errno))
  )
}

/**
 * A copy of a driver error safe to keep as `cause` and to log: its message with the password
 * removed, its code, errno and SQL state, but not the statement text (which holds memory text).
 */
export function sanitizedCause(err: unknown, password: string | undefined): Error {
  const e = driverError(err)
  const message = typeof e.message === 'string' ? e.message : String(err)
  const copy = new Error(redactSecret(message, password)) as Error & Record<string, unknown>
  copy.name = 'MysqlDriverError'
  for (const key of ['code', 'errno', 'sqlState'] as const) {
    if (e[key] !== undefined) copy[key] = e[key]
  }
  return copy
}

/**
 * Translates a failure of a transaction: domain errors pass through; a duplicate key becomes
 * `revision_conflict` (a concurrent writer won); connection failures, a full disk and a read-only
 * server become `storage_unavailable` (`details.reason` `unavailable`, `disk_full`, `read_only`);
 * everything else `internal_error`, with the password removed from the message and the cause.
 */
export function toStorageError(
  err: unknown,
  password: string | undefined,
  busy = false,
): PowerContextError {
  if (err instanceof PowerContextError) return err
  const cause = sanitizedCause(err, password)
  const e = driverError(err)
  if (e.errno === ER_DUP_ENTRY) {
    return new PowerContextError(
      'revision_conflict',
      'the memory changed concurrently',
      undefined,
      {
        cause,
      },
    )
  }
  if (busy) {
    return storageUnavailable(
      'busy',
      'the database kept reporting conflicts (deadlocks or lock timeouts); retry',
      cause,
    )
  }
  if (e.errno === ER_WSREP_NOT_READY) {
    return storageUnavailable(
      'unavailable',
      'the database node is not ready (Galera: joining, or without quorum)',
      cause,
    )
  }
  if (isConnectionError(err)) {
    const what = typeof e.code === 'string' ? e.code : 'connection failed'
    return storageUnavailable('unavailable', `database connection failed: ${what}`, cause)
  }
  if (typeof e.errno === 'number' && DISK_FULL_ERRNOS.has(e.errno)) {
    return storageUnavailable('disk_full', 'the database server is out of disk space', cause)
  }
  if (e.errno === ER_GET_ERRNO && /\b28\b/.test(cause.message)) {
    return storageUnavailable('disk_full', 'the database server is out of disk space', cause)
  }
  if (e.errno === ER_READ_ONLY) {
    return storageUnavailable('read_only', 'the database server is read-only', cause)
  }
  return new PowerContextError('internal_error', 'storage failure', undefined, { cause })
}
