/**
 * The extraction budget on its own: caps of calls and tokens per local day, the pause until local
 * midnight, rate-limit backoff (a named reset time wins, else doubling), and its state surviving a
 * restart (a new budget on the same file).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import type { PowerContextError } from '../../src/core/errors.js'
import { ExtractionBudget } from '../../src/runtime/extraction-budget.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-budget-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const refused = (b: ExtractionBudget): PowerContextError => {
  try {
    b.admit()
  } catch (err) {
    return err as PowerContextError
  }
  throw new Error('admitted')
}

describe('extraction budget', () => {
  it('stops at the token cap until local midnight, and a restart keeps the state', async () => {
    const file = join(dir, 'tokens.json')
    let now = new Date(2026, 11, 6, 15, 0).getTime()
    const settings = { callsPerDay: 0, tokensPerDay: 1000 }
    const a = new ExtractionBudget(settings, { file, now: () => now })
    a.admit()
    a.record(1, { inputTokens: 900, outputTokens: 150 })
    const err = refused(a)
    expect(err.code).toBe('inference_unavailable')
    expect(err.details?.['reason']).toBe('budget_spent')
    expect(err.details?.['until']).toBe(new Date(2026, 11, 7, 0, 0).toISOString())
    await a.flushed()
    const b = new ExtractionBudget(settings, { file, now: () => now })
    expect(b.status()).toMatchObject({
      callsToday: 1,
      tokensToday: 1050,
      pausedReason: 'budget_spent',
    })
    expect(refused(b).message).toMatch(/^extraction paused: budget spent until /)
    now = new Date(2026, 11, 7, 0, 1).getTime()
    expect(() => b.admit()).not.toThrow()
    expect(b.status()).toMatchObject({ callsToday: 0, tokensToday: 0, pausedUntil: null })
  })

  it('a rate limit pauses until the named time, else for the backoff, doubling while it repeats', () => {
    let now = Date.parse('2026-12-06T10:00:00Z')
    const b = new ExtractionBudget(
      { callsPerDay: 0, tokensPerDay: 0, backoffMs: 60_000 },
      { now: () => now },
    )
    b.rateLimited('2026-12-06T12:00:00Z')
    expect(b.status().pausedUntil).toBe('2026-12-06T12:00:00.000Z')
    expect(refused(b).details?.['reason']).toBe('rate_limited')
    now = Date.parse('2026-12-06T12:00:00Z')
    b.admit()
    b.rateLimited(null)
    expect(b.status().pausedUntil).toBe('2026-12-06T12:02:00.000Z')
    now += 120_000
    b.admit()
    b.succeeded()
    b.rateLimited(null)
    expect(b.status().pausedUntil).toBe('2026-12-06T12:03:00.000Z')
  })

  it('counts calls against the call cap', () => {
    const b = new ExtractionBudget({ callsPerDay: 2, tokensPerDay: 0 })
    b.admit()
    b.record(2, { inputTokens: 0, outputTokens: 0 })
    expect(refused(b).details?.['reason']).toBe('budget_spent')
  })
})
