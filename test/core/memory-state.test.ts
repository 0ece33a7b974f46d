/**
 * The memory state machine (core/memory-state.ts, docs/memory-model.md): the transitions every writer takes,
 * that anything else is refused, and that no storage or runtime file compares a state literal.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { PowerContextError } from '../../src/core/errors.js'
import { MEMORY_STATES, type MemoryState } from '../../src/core/memory-model.js'
import {
  canApply,
  INITIAL_STATE,
  isActive,
  isForgotten,
  isMerged,
  isRetired,
  STATE_TRANSITIONS,
  stateAfter,
  type StateChangeOp,
} from '../../src/core/memory-state.js'

const ALLOWED: Record<StateChangeOp, Partial<Record<MemoryState, MemoryState>>> = {
  add: {},
  forget: { active: 'forgotten' },
  restore: { forgotten: 'active' },
  merge: { active: 'merged' },
  unmerge: { merged: 'active' },
  retire: { active: 'retired', forgotten: 'retired', merged: 'retired' },
}

describe('memory state machine', () => {
  it('allows exactly the transitions of docs/memory-model.md', () => {
    for (const op of Object.keys(STATE_TRANSITIONS) as StateChangeOp[]) {
      for (const from of MEMORY_STATES) {
        const to = ALLOWED[op][from]
        expect(canApply(op, from), `${op} from ${from}`).toBe(to !== undefined)
        if (to !== undefined) expect(stateAfter(op, from)).toBe(to)
        else expect(() => stateAfter(op, from)).toThrow(PowerContextError)
      }
    }
  })

  it('refuses a transition the table does not hold as internal_error', () => {
    try {
      stateAfter('forget', 'retired')
      expect.unreachable()
    } catch (err) {
      expect((err as PowerContextError).code).toBe('internal_error')
      // The log line of a writer's bug names the operation and the state it started from.
      expect((err as PowerContextError).message).toBe('no forget transition from retired')
    }
  })

  it('starts new memories active and names each state once', () => {
    expect(INITIAL_STATE).toBe('active')
    const named = MEMORY_STATES.map((s) =>
      [isActive, isForgotten, isMerged, isRetired].map((f) => f(s)),
    )
    expect(named).toEqual([
      [true, false, false, false],
      [false, true, false, false],
      [false, false, true, false],
      [false, false, false, true],
    ])
  })

  it('is the only place storage and runtime code compares a state literal', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory()
          ? files(join(dir, d.name))
          : d.name.endsWith('.ts')
            ? [join(dir, d.name)]
            : [],
      )
    const compare =
      /(?:===|!==)\s*'(?:active|forgotten|merged|retired)'|'(?:active|forgotten|merged|retired)'\s*(?:===|!==)/
    // These two read the Python reference's entry state (`active` | `inactive`), not ours.
    const reference = new Set([
      join('src', 'storage', 'upgrade', 'reference-payloads.ts'),
      join('src', 'storage', 'engine', 'legacy', 'legacy-import.ts'),
    ])
    const offenders = [...files('src/storage'), ...files('src/runtime')].filter(
      (f) => !reference.has(f) && compare.test(readFileSync(f, 'utf8')),
    )
    expect(offenders).toEqual([])
  })
})
