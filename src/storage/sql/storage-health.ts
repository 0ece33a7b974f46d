/*
 * Failures of the database itself — disk full, no connection, read-only or damaged file — are not
 * bugs and not the caller's fault: they are `storage_unavailable` (503) with a `details.reason`,
 * and readiness is degraded while they last.
 */
import { PowerContextError } from '../../core/errors.js'

/** Why the database cannot take a request (`details.reason` of `storage_unavailable`). */
export const STORAGE_FAILURE_REASONS = [
  'disk_full',
  'unavailable',
  'read_only',
  'io_error',
  'corrupt',
  'busy',
  'outcome_unknown',
] as const
export type StorageFailureReason = (typeof STORAGE_FAILURE_REASONS)[number]

/**
 * Reasons that pass by themselves, with the seconds a caller is told to wait before retrying
 * (`details.retry_after_seconds`, HTTP `Retry-After`): lock contention that outlasted the wait
 * budget, a lost connection.
 */
const RETRY_AFTER_SECONDS: Partial<Record<StorageFailureReason, number>> = {
  busy: 1,
  unavailable: 1,
  outcome_unknown: 1,
}

/** The typed error of a database that cannot take the request now. */
export function storageUnavailable(
  reason: StorageFailureReason,
  message: string,
  cause: unknown,
): PowerContextError {
  const retryAfter = RETRY_AFTER_SECONDS[reason]
  const details =
    retryAfter === undefined ? { reason } : { reason, retry_after_seconds: retryAfter }
  return new PowerContextError('storage_unavailable', message, details, { cause })
}

/** The reason of a `storage_unavailable` error, else undefined. */
function failureReason(err: unknown): string | undefined {
  if (!(err instanceof PowerContextError) || err.code !== 'storage_unavailable') return undefined
  const reason = err.details?.['reason']
  return typeof reason === 'string' ? reason : 'unavailable'
}

/** A short name of the damage a `corrupt` failure met: its row when known. */
function damageOf(err: PowerContextError): string {
  const row = err.details?.['row']
  return typeof row === 'string' ? `row ${row} is damaged` : err.message
}

/**
 * The last storage failure a transaction met, until a write commits again (a read succeeding
 * says nothing about a full disk). Readiness reports it as the `storage` check. Damage (`corrupt`:
 * a damaged row or page, found by a request, `verify` or the background check) stays until a
 * `verify` finds none: the file no longer reads back as written, so writes are refused
 * (docs/storage.md#damage-verify-and-salvage).
 */
export class StorageHealth {
  #failure: string | undefined
  #damage: string | undefined

  /** Records the outcome of one unit of work. */
  observe(mode: 'read' | 'write', err?: unknown): void {
    if (err === undefined) {
      if (mode === 'write') this.#failure = undefined
      return
    }
    const reason = failureReason(err)
    // Another process holding the lock says nothing about this database's health.
    if (reason === 'busy') return
    if (reason === 'corrupt') this.#damage ??= damageOf(err as PowerContextError)
    this.#failure = reason ?? this.#failure
  }

  /** Records what a check found: damage (its first problem) or, with none, a sound database. */
  checked(problems: readonly string[]): void {
    this.#damage = problems[0]
    if (problems.length === 0 && this.#failure === 'corrupt') this.#failure = undefined
  }

  /** The first damage found and not yet cleared by a clean `verify`. */
  get damage(): string | undefined {
    return this.#damage
  }

  /** `ready`, or `unavailable: <reason>` since the last storage failure or while damaged. */
  check(): string {
    if (this.#damage !== undefined) return 'unavailable: corrupt'
    return this.#failure === undefined ? 'ready' : `unavailable: ${this.#failure}`
  }
}
