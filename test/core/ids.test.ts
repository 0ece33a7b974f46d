/**
 * Identifiers (core/ids.ts, docs/storage.md "Identifiers"): new ids are a prefix and a time-ordered
 * ULID; scope and memory ids are printable ASCII of 1–128 characters; source ids are NFC text of
 * 1–256 characters without control characters; a revision is an integer ≥ 1.
 */
import { describe, expect, it } from 'vitest'

import {
  checkMemoryId,
  checkRevision,
  checkScopeId,
  checkSourceId,
  MAX_ID_LENGTH,
  MAX_SOURCE_ID_BYTES,
  MAX_SOURCE_ID_CHARS,
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

describe('source ids', () => {
  it('are the reference ids: Unicode text, NFC, 1–256 characters, case kept', () => {
    expect([MAX_SOURCE_ID_CHARS, MAX_SOURCE_ID_BYTES]).toEqual([256, 1024])
    for (const id of ['A!~z', '会议纪要-2025-12-01', 'a b', 'note 😀 x', '纪'.repeat(256)]) {
      expect(checkSourceId(id)).toBe(id)
    }
    // 256 characters of four UTF-8 bytes each: the byte bound is reached, not passed.
    const widest = '😀'.repeat(256)
    expect(checkSourceId(widest)).toBe(widest)
    expect(Buffer.byteLength(widest)).toBe(MAX_SOURCE_ID_BYTES)
    // Two spellings of one id are one id: the decomposed form is stored composed.
    expect(checkSourceId('Cafe\u0301-纪要')).toBe('Caf\u00e9-纪要')
    expect(checkSourceId('x'.repeat(255) + 'e\u0301')).toBe('x'.repeat(255) + '\u00e9')
  })

  it('refuses control characters, edge white space, lone surrogates and more than 256 characters', () => {
    for (const bad of ['a\tb', 'a\nb', '\u0000', 'x\u007f', 'x\u0085y', 'x\ud800', '\udc00x']) {
      expect(refusal(() => checkSourceId(bad))).toBe(
        'source_id: must be text without control characters',
      )
    }
    for (const bad of [' a', 'a ', '\u3000会议', 'a\u00a0']) {
      expect(refusal(() => checkSourceId(bad))).toBe(
        'source_id: must not begin or end with white space',
      )
    }
    for (const bad of ['', '纪'.repeat(257), '😀'.repeat(257)]) {
      expect(refusal(() => checkSourceId(bad))).toBe('source_id: must be 1–256 characters')
    }
    expect(refusal(() => checkSourceId(12, 'x.y'))).toBe('x.y: must be a string')
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
