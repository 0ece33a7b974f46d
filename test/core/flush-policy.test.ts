/**
 * The flush window policy (core/flush-policy.ts, docs/sources-and-flush.md): window bounds, what follows a
 * failed attempt (count, isolate, skip a poison source), and which failures count.
 */
import { describe, expect, it } from 'vitest'

import {
  afterFailedAttempt,
  failureReaction,
  isIsolating,
  windowEnd,
} from '../../src/core/flush-policy.js'

const MAX = Number.MAX_SAFE_INTEGER

describe('window bounds', () => {
  it('ends at the smallest of high watermark, cursor + limit and until', () => {
    const b = { cursor: 10, highWatermark: 500, limit: 100, until: MAX, isolateThrough: 0 }
    expect(windowEnd(b)).toBe(110)
    expect(windowEnd({ ...b, highWatermark: 42 })).toBe(42)
    expect(windowEnd({ ...b, until: 15 })).toBe(15)
    expect(windowEnd({ ...b, highWatermark: 10 })).toBe(10) // nothing pending: empty window
  })

  it('reads one source at a time while isolating a failed window', () => {
    expect(isIsolating(10, 20)).toBe(true)
    expect(isIsolating(20, 20)).toBe(false)
    const b = { cursor: 10, highWatermark: 500, limit: 100, until: MAX, isolateThrough: 20 }
    expect(windowEnd(b)).toBe(11)
    expect(windowEnd({ ...b, cursor: 20 })).toBe(120)
  })
})

describe('after a failed attempt', () => {
  const base = { expected: 10, through: 50, attemptsBefore: 0, maxAttempts: 3, isolateThrough: 0 }

  it('counts a failed window against its first source and isolates the window', () => {
    expect(afterFailedAttempt(base)).toEqual({
      attempts: 1,
      skip: false,
      cursor: 10,
      isolateThrough: 50,
    })
  })

  it('never skips a source that failed inside a larger window', () => {
    const r = afterFailedAttempt({ ...base, attemptsBefore: 5 })
    expect(r).toMatchObject({ attempts: 6, skip: false, cursor: 10 })
  })

  it('skips a source that failed alone maxAttempts times and moves the cursor past it', () => {
    const alone = { ...base, through: 11, isolateThrough: 50 }
    expect(afterFailedAttempt({ ...alone, attemptsBefore: 1 })).toMatchObject({ skip: false })
    expect(afterFailedAttempt({ ...alone, attemptsBefore: 2 })).toEqual({
      attempts: 3,
      skip: true,
      cursor: 11,
      isolateThrough: 50,
    })
    expect(afterFailedAttempt({ ...alone, maxAttempts: 1 })).toMatchObject({ skip: true })
  })
})

describe('failure reaction', () => {
  const first = { cursorMoved: false, round: 0, maxReplans: 3 }

  it('plans again after a concurrent write while rounds remain, then passes it on', () => {
    expect(failureReaction('revision_conflict', first)).toBe('replan')
    expect(failureReaction('state_conflict', first)).toBe('replan')
    expect(failureReaction('memory_not_found', first)).toBe('replan')
    expect(failureReaction('internal_error', { ...first, cursorMoved: true })).toBe('replan')
    expect(failureReaction('revision_conflict', { ...first, round: 3 })).toBe('throw')
  })

  it('counts failures caused by the content, passes the others on', () => {
    expect(failureReaction('invalid_inference_output', first)).toBe('count')
    expect(failureReaction('invalid_request', first)).toBe('count')
    expect(failureReaction('inference_unavailable', first)).toBe('throw')
    expect(failureReaction('inference_timeout', first)).toBe('throw')
  })
})
