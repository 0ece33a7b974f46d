/**
 * The flush window policy (docs/sources-and-flush.md), pure: where a window ends, what follows a failed attempt
 * (count it, isolate the window's sources one at a time, skip a poison source), and which
 * failures are counted, planned again or passed to the caller. The journal (storage) and the
 * flusher (runtime) apply these decisions; neither makes its own.
 */
import type { ErrorCode } from './errors.js'

/** Where the journal stands when a window is read (positions are 1-based, the cursor is done). */
export interface WindowBounds {
  /** The scope's cursor: the last position processed. */
  readonly cursor: number
  /** The last position captured. */
  readonly highWatermark: number
  /** The checked `limit` of the flush (sources per window). */
  readonly limit: number
  /** The checked `until` of the flush (last position to read), or `Number.MAX_SAFE_INTEGER`. */
  readonly until: number
  /** Positions up to this one are read one at a time after a failed window (0: none). */
  readonly isolateThrough: number
}

/** True while a failed window's sources are read one at a time (poison isolation). */
export const isIsolating = (cursor: number, isolateThrough: number): boolean =>
  isolateThrough > cursor

/** The window's last position: `min(high watermark, cursor + (isolating ? 1 : limit), until)`. */
export function windowEnd(b: WindowBounds): number {
  const size = isIsolating(b.cursor, b.isolateThrough) ? 1 : b.limit
  return Math.min(b.highWatermark, b.cursor + size, b.until)
}

/** A failed attempt of the window `(expected, through]`. */
export interface FailedAttempt {
  readonly expected: number
  readonly through: number
  /** Earlier failed attempts of the window's first source. */
  readonly attemptsBefore: number
  /** Skip the source once this many attempts failed (≥ 1). */
  readonly maxAttempts: number
  /** The cursor's isolation mark before this attempt. */
  readonly isolateThrough: number
}

/** What follows a failed attempt. */
export interface AfterFailure {
  /** Failed attempts of the first source, this one included. */
  readonly attempts: number
  /** The first source failed alone `maxAttempts` times: it is skipped. */
  readonly skip: boolean
  /** The new cursor: past the skipped source, or unchanged. */
  readonly cursor: number
  /** The new isolation mark: the failed window is read one source at a time until its end. */
  readonly isolateThrough: number
}

/**
 * The failure counts against the window's first source; a source that failed alone (a window of
 * one) `maxAttempts` times is skipped and the cursor moves past it; the window's sources are read
 * one at a time until its end, so one poison source cannot hold the others back.
 */
export function afterFailedAttempt(f: FailedAttempt): AfterFailure {
  const position = f.expected + 1
  const attempts = f.attemptsBefore + 1
  const skip = f.through === position && attempts >= f.maxAttempts
  return {
    attempts,
    skip,
    cursor: skip ? position : f.expected,
    isolateThrough: Math.max(f.isolateThrough, f.through),
  }
}

/** Errors caused by what the window contains: they count towards skipping the source. */
const CONTENT_ERRORS: ReadonlySet<ErrorCode> = new Set([
  'invalid_inference_output',
  'invalid_request',
])
/** Errors of a plan made stale by a concurrent write: read and plan again. */
const STALE_ERRORS: ReadonlySet<ErrorCode> = new Set([
  'revision_conflict',
  'state_conflict',
  'memory_not_found',
])

/**
 * What the flusher does with a failed plan or apply: `replan` (read the window again) for a
 * stale plan or a moved cursor while rounds remain, `count` (a failed attempt, see
 * {@link afterFailedAttempt}) for a failure caused by the content, `throw` for anything else
 * (the cursor stays, nothing is counted: e.g. the model is unavailable).
 */
export function failureReaction(
  code: ErrorCode,
  f: { readonly cursorMoved: boolean; readonly round: number; readonly maxReplans: number },
): 'replan' | 'count' | 'throw' {
  if ((f.cursorMoved || STALE_ERRORS.has(code)) && f.round < f.maxReplans) return 'replan'
  return CONTENT_ERRORS.has(code) ? 'count' : 'throw'
}
