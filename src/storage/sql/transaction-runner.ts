/**
 * The one transaction runner of every SQL adapter (after kysely's runtime
 * driver owning connection, lock and retry). A unit of work is scoped to a callback: begin, run,
 * commit; or roll back and rethrow. No handle escapes.
 *
 * Retry policy (the same for every adapter): when the adapter classifies a failure as transient
 * lock contention (SQLite: `SQLITE_BUSY`/`SQLITE_LOCKED`, also from `BEGIN IMMEDIATE`; MySQL
 * family: deadlock, lock wait timeout, snapshot conflicts), the transaction is rolled back and the
 * WHOLE unit of work runs again — begin, callback, commit — after an exponential, jittered pause
 * (≈ 10 ms doubling to ≈ 250 ms, or the adapter's `maxPauseMs`), until it commits, `maxAttempts`
 * attempts were made or `deadlineMs` has passed since the first. The pause is a timer, never a
 * synchronous wait: the event loop keeps serving (health probes, other requests) while a unit of
 * work waits for a lock another process holds. With a `lock` (one connection), each attempt takes
 * the lock on its own, so other units of work on the connection run during the pause. Retrying the whole callback is the only safe choice for
 * a failure inside it: its reads may have come from the rolled-back snapshot. Any other failure,
 * and the last transient one, is translated by the adapter and thrown; the callback never sees a
 * retry. Callbacks therefore must not have effects outside the database (the base class only
 * computes and writes inside them).
 */
import { setTimeout as sleep } from 'node:timers/promises'

import type { PowerContextError } from '../../core/errors.js'
import { timeSlicer } from '../../core/event-loop-slices.js'
import type { AsyncMutex } from './async-mutex.js'
import type { SqlSession } from './session.js'
import { storageUnavailable } from './storage-health.js'

/** Read transactions see one consistent snapshot; write transactions are serialisable. */
export type TransactionMode = 'read' | 'write'

/** One connection checked out for one attempt. */
export interface SqlConnection {
  readonly session: SqlSession
  begin(): Promise<void>
  commit(): Promise<void>
  /** Rolls back an open transaction (a no-op when the database already ended it). */
  rollback(): Promise<void>
  /** Gives the connection back; `broken` ones are discarded. */
  release(broken: boolean): void
}

/** What an adapter supplies: connections, and how to read its driver's failures. */
export interface SqlDriver {
  connect(mode: TransactionMode): Promise<SqlConnection>
  /** Transient lock contention: the whole unit of work may run again. */
  isRetryable(err: unknown): boolean
  /** The connection cannot be used again. */
  isBroken(err: unknown): boolean
  /**
   * A failed `COMMIT` whose outcome is unknown: the connection was lost after it was sent, so
   * the server may have committed. Absent: a failed commit never committed (SQLite).
   */
  isCommitOutcomeUnknown?(err: unknown): boolean
  /** Translates a failure before it leaves the adapter; `exhausted`: retries ran out. */
  toStorageError(err: unknown, exhausted: boolean): PowerContextError
}

/** Bounds of the retry policy (see the file comment). */
export interface RetryBounds {
  readonly maxAttempts: number
  readonly deadlineMs: number
  /** Longest pause between attempts before jitter. Default 250 ms. */
  readonly maxPauseMs?: number
}

/** The pause before attempt `attempt + 1`: ≈ 10 ms doubling to ≈ `maxPauseMs`, ±50 % jitter. */
export function retryPause(attempt: number, maxPauseMs = 250): number {
  return Math.min(5 * 2 ** Math.min(attempt, 6), maxPauseMs) * (0.5 + Math.random())
}

/**
 * Runs `attempt` until it succeeds, a failure is not `retryable`, or the bounds are spent; the last
 * failure is rethrown as it is. Also used outside transactions (SQLite's open-time pragmas).
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  retryable: (err: unknown) => boolean,
  bounds: RetryBounds,
): Promise<T> {
  const deadline = Date.now() + bounds.deadlineMs
  for (let n = 1; ; n += 1) {
    try {
      return await attempt(n)
    } catch (err) {
      if (!retryable(err) || n >= bounds.maxAttempts || Date.now() >= deadline) throw err
      await sleep(Math.min(retryPause(n, bounds.maxPauseMs), Math.max(deadline - Date.now(), 1)))
    }
  }
}

/** Runs units of work on an adapter's connections (see the file comment). */
export class TransactionRunner {
  readonly #driver: SqlDriver
  readonly #bounds: RetryBounds
  readonly #lock: AsyncMutex | undefined
  /**
   * With a lock, queued units of work start one after another in microtasks, never giving the
   * event loop a turn (eight searches of a `prepare` ran as one block): an attempt starts only
   * after a yield once a slice's budget of work has run.
   */
  readonly #pause = timeSlicer()
  /** Units of work started and not settled (some may be pausing between attempts). */
  readonly #inFlight = new Set<Promise<unknown>>()

  /** `lock`: serialises every attempt (one connection, e.g. SQLite); none for a pool. */
  constructor(driver: SqlDriver, bounds: RetryBounds, lock?: AsyncMutex) {
    this.#driver = driver
    this.#bounds = bounds
    this.#lock = lock
  }

  /**
   * Runs `work` in one transaction; see the file comment for retries and errors. `bounds`
   * overrides the runner's for this unit of work (e.g. a longer wait when opening).
   */
  run<T>(
    mode: TransactionMode,
    work: (session: SqlSession) => Promise<T>,
    bounds: RetryBounds = this.#bounds,
  ): Promise<T> {
    const unit = this.#attempts(mode, work, bounds)
    const tracked = unit.catch(() => undefined)
    this.#inFlight.add(tracked)
    void tracked.then(() => this.#inFlight.delete(tracked))
    return unit
  }

  /**
   * Runs `work` outside any transaction, once every unit of work started before has settled
   * (including one pausing between attempts) and, with a lock, holding it (e.g. closing).
   */
  async afterQueued<T>(work: () => Promise<T>): Promise<T> {
    await Promise.all([...this.#inFlight])
    return this.#lock === undefined ? work() : this.#lock.run(work)
  }

  async #attempts<T>(
    mode: TransactionMode,
    work: (session: SqlSession) => Promise<T>,
    bounds: RetryBounds,
  ): Promise<T> {
    const driver = this.#driver
    const lock = this.#lock
    let retryable = false
    try {
      return await withRetries(
        () =>
          lock === undefined
            ? this.#attempt(mode, work)
            : lock.run(async () => {
                await this.#pause()
                return this.#attempt(mode, work)
              }),
        (err) => (retryable = !(err instanceof NotRetried) && driver.isRetryable(err)),
        bounds,
      )
    } catch (err) {
      if (err instanceof OutcomeUnknown) {
        // The translated error keeps the driver's cause safe to log (no password, no statement).
        const lost = driver.toStorageError(err.cause, false)
        throw storageUnavailable(
          'outcome_unknown',
          'the connection was lost after COMMIT was sent: the write may or may not have been applied; read the current state, then retry with its revision',
          lost.cause,
        )
      }
      throw driver.toStorageError(err instanceof NotRetried ? err.cause : err, retryable)
    }
  }

  /** One attempt: connect, begin, run, commit; or roll back and rethrow. */
  async #attempt<T>(mode: TransactionMode, work: (session: SqlSession) => Promise<T>): Promise<T> {
    const driver = this.#driver
    let conn: SqlConnection
    try {
      conn = await driver.connect(mode)
    } catch (err) {
      throw new NotRetried(err)
    }
    let open = false
    let broken = false
    try {
      await conn.begin()
      open = true
      const out = await work(conn.session)
      try {
        await conn.commit()
      } catch (err) {
        if (mode === 'write' && driver.isCommitOutcomeUnknown?.(err) === true)
          throw new OutcomeUnknown(err)
        throw err
      }
      open = false
      return out
    } catch (err) {
      if (open) await conn.rollback().catch(() => (broken = true))
      if (driver.isBroken(err instanceof OutcomeUnknown ? err.cause : err)) broken = true
      throw err
    } finally {
      conn.release(broken)
    }
  }
}

/** A failure to get a connection: reported as it is, never retried. */
class NotRetried extends Error {
  constructor(cause: unknown) {
    super('connection failed', { cause })
  }
}

/** A lost connection during `COMMIT`: never retried (the first attempt may have committed). */
class OutcomeUnknown extends Error {
  constructor(cause: unknown) {
    super('commit outcome unknown', { cause })
  }
}
