/**
 * Identifiers (core/ids.ts, docs/memory-model.md): new ids are a prefix and a time-ordered ULID; scope,
 * source and memory ids are printable ASCII of 1–128 characters; a revision is an integer ≥ 1.
 */
import { describe, expect, it } from 'vitest'

import {
  checkMemoryId,
  checkRevision,
  checkScopeId,
  checkSourceId,
  MAX_ID_LENGTH,
  MEMORY_ID_PREFIX,
  MERGE_ID_PREFIX,
  newMemoryId,
  newMergeId,
  newOperationId,
  OPERATION_ID_PREFIX,
} from '../../src/core/ids.js'
import { refusal } from './refusal.js'

const ULID = '[0-9A-HJKMNP-TV-Z]{26}'

describe('new ids', () => {
  it('are a prefix and a ULID, ordered by time and then by creation', () => {
    expect([MEMORY_ID_PREFIX, MERGE_ID_PREFIX, OPERATION_ID_PREFIX]).toEqual([
      'mem_',
      'mrg_',
      'op_',
    ])
    expect(newMemoryId()).toMatch(new RegExp(`^mem_${ULID}$`))
    expect(newMergeId()).toMatch(new RegExp(`^mrg_${ULID}$`))
    expect(newOperationId()).toMatch(new RegExp(`^op_${ULID}$`))
    const t = Date.UTC(2026, 11, 2)
    const ids = [newMemoryId(t), newMemoryId(t), newMemoryId(t + 1)]
    expect(new Set(ids).size).toBe(3)
    expect([...ids].sort()).toEqual(ids)
    // The ULID's first ten characters encode the time (never earlier than the last id's).
    expect(newMergeId(t + 2).slice(4, 14)).toBe(newOperationId(t + 2).slice(3, 13))
    expect(newMergeId(t + 3) > ids[2]!.replace('mem_', 'mrg_')).toBe(true)
  })
})

describe('printable ids', () => {
  it.each([
    ['scope_id', checkScopeId],
    ['source_id', checkSourceId],
    ['memory_id', checkMemoryId],
  ] as const)('%s: printable ASCII, 1–128 characters, case kept', (field, check) => {
    expect(MAX_ID_LENGTH).toBe(128)
    expect(check('A!~z')).toBe('A!~z')
    expect(check('x'.repeat(128))).toBe('x'.repeat(128))
    expect(refusal(() => check('x'.repeat(129)))).toBe(`${field}: must be 1–128 characters`)
    expect(refusal(() => check(''))).toBe(`${field}: must be 1–128 characters`)
    for (const bad of ['a b', 'tab\t', 'é', '\u007f', 'a\nb']) {
      expect(refusal(() => check(bad))).toBe(`${field}: must be printable ASCII without spaces`)
    }
    expect(refusal(() => check(12))).toBe(`${field}: must be a string`)
    expect(refusal(() => check('a b', 'x.y'))).toBe('x.y: must be printable ASCII without spaces')
  })
})

describe('checkRevision', () => {
  it('is an integer ≥ 1', () => {
    expect(checkRevision(1)).toBe(1)
    expect(checkRevision(2 ** 53 - 1)).toBe(2 ** 53 - 1)
    for (const bad of [0, -1, 1.5, '1', null, 2 ** 53, Number.NaN]) {
      expect(refusal(() => checkRevision(bad))).toBe('revision: must be an integer ≥ 1')
    }
    expect(refusal(() => checkRevision(0, 'expected_revision'))).toBe(
      'expected_revision: must be an integer ≥ 1',
    )
  })
})
