/**
 * Text rules (core/text-rules.ts, docs/memory-model.md): memory text, kind, reason and `observed_at` —
 * normalisation (NFC, trimmed), the size caps at their exact bounds, unstorable strings, and
 * timestamps that are real dates in a zone, normalised to UTC.
 */
import { describe, expect, it } from 'vitest'

import {
  assertStorableString,
  KNOWN_KINDS,
  MAX_KIND_CODE_POINTS,
  MAX_REASON_CODE_POINTS,
  MAX_TEXT_BYTES,
  normalizeKind,
  normalizeQuery,
  normalizeReason,
  normalizeText,
  normalizeTimestamp,
  utf8Length,
} from '../../src/core/text-rules.js'
import { refusal } from './refusal.js'

describe('utf8Length and storable strings', () => {
  it('counts UTF-8 bytes', () => {
    expect(['', 'a', 'é', '中', '\u{1f600}'].map(utf8Length)).toEqual([0, 1, 2, 3, 4])
  })

  it('refuses lone surrogates and NUL, naming the field', () => {
    expect(() => assertStorableString('text', 'fine \u{1f600}')).not.toThrow()
    expect(refusal(() => assertStorableString('text', 'a\ud800b'))).toBe(
      'text: contains a lone surrogate',
    )
    expect(refusal(() => assertStorableString('kind', 'a\u0000'))).toBe(
      'kind: contains a NUL character',
    )
  })
})

describe('normalizeText', () => {
  it('normalises to NFC and trims Unicode whitespace', () => {
    expect(normalizeText('\u3000 Cafe\u0301 \n')).toBe('Café')
  })

  it('keeps text of exactly the byte cap and refuses one byte more', () => {
    const exact = 'é'.repeat(MAX_TEXT_BYTES / 2)
    expect(normalizeText(exact)).toBe(exact)
    expect(refusal(() => normalizeText(exact + 'a'))).toBe('text: must be at most 8192 UTF-8 bytes')
    // The cap applies after trimming.
    expect(normalizeText(`  ${exact}  `)).toBe(exact)
  })

  it('refuses blank, non-string and unstorable text', () => {
    expect(refusal(() => normalizeText(' \t\n'))).toBe('text: must not be blank')
    expect(refusal(() => normalizeText('', 'entries[0].text'))).toBe(
      'entries[0].text: must not be blank',
    )
    expect(refusal(() => normalizeText(42))).toBe('text: must be a string')
    expect(refusal(() => normalizeText('a\u0000'))).toBe('text: contains a NUL character')
  })
})

describe('normalizeKind', () => {
  it('is an open string, NFC and trimmed', () => {
    expect(KNOWN_KINDS).toEqual(['fact', 'preference', 'decision', 'constraint', 'working_note'])
    expect(normalizeKind(' Re\u0301sume\u0301 ')).toBe('Résumé')
    expect(normalizeKind('my-own-kind')).toBe('my-own-kind')
  })

  it('counts code points, not UTF-16 units, against the cap', () => {
    const exact = '\u{1f600}'.repeat(MAX_KIND_CODE_POINTS)
    expect(normalizeKind(exact)).toBe(exact)
    expect(refusal(() => normalizeKind(exact + 'a'))).toBe('kind: must be at most 128 characters')
  })

  it('refuses blank and non-string kinds', () => {
    expect(refusal(() => normalizeKind('  '))).toBe('kind: must not be blank')
    expect(refusal(() => normalizeKind(null, 'kinds[0]'))).toBe('kinds[0]: must be a string')
  })
})

describe('normalizeReason', () => {
  it('reads absent, null and blank as no reason', () => {
    expect(normalizeReason(undefined)).toBeNull()
    expect(normalizeReason(null)).toBeNull()
    expect(normalizeReason(' \n ')).toBeNull()
    expect(normalizeReason('')).toBeNull()
  })

  it('normalises and caps at 512 code points', () => {
    expect(normalizeReason(' Cafe\u0301 closed ')).toBe('Café closed')
    const exact = '\u{1f600}'.repeat(MAX_REASON_CODE_POINTS)
    expect(normalizeReason(exact)).toBe(exact)
    expect(refusal(() => normalizeReason(exact + 'a'))).toBe(
      'reason: must be at most 512 characters',
    )
    expect(refusal(() => normalizeReason(7, 'why'))).toBe('why: must be a string')
  })
})

describe('normalizeQuery', () => {
  it('counts characters, not bytes: 8,192 CJK characters (24 KiB) pass, 8,193 do not', () => {
    expect(normalizeQuery('会'.repeat(8192))).toHaveLength(8192)
    expect(normalizeQuery('😀'.repeat(8192))).toHaveLength(16384)
    expect(refusal(() => normalizeQuery('会'.repeat(8193)))).toBe(
      'query: must be at most 8192 characters',
    )
    expect(refusal(() => normalizeQuery('  '))).toBe('query: must not be blank')
  })
})

describe('normalizeTimestamp', () => {
  it('reads absent and null as none', () => {
    expect(normalizeTimestamp(undefined)).toBeNull()
    expect(normalizeTimestamp(null)).toBeNull()
  })

  it.each([
    ['2026-12-02T10:00:00Z', '2026-12-02T10:00:00.000Z'],
    ['2026-12-02t10:00:00z', '2026-12-02T10:00:00.000Z'],
    [' 2026-12-02 10:00:00+01:30 ', '2026-12-02T08:30:00.000Z'],
    ['2026-12-02T23:59:59.123456789-05:00', '2026-12-03T04:59:59.123Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-01-01T00:00:00.5Z', '2000-01-01T00:00:00.500Z'],
    // Leap seconds (RFC 3339 §5.7): the instant that follows, as POSIX time counts them.
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['2016-12-31T18:59:60.25-05:00', '2017-01-01T00:00:00.000Z'],
    ['2015-06-30T23:59:60Z', '2015-07-01T00:00:00.000Z'],
  ])('normalises %j to UTC', (input, expected) => {
    expect(normalizeTimestamp(input)).toBe(expected)
  })

  it.each([
    '2026-12-02',
    '2026-12-02T10:00:00',
    '2026-12-02T10:00Z',
    'x2026-12-02T10:00:00Z',
    '2026-12-02T10:00:00Zx',
    '2026-12-02T10:00:00.Z',
    '2026-12-02T10:00:00.1234567890Z',
    '2026-12-02T10:00:00+0100',
    '26-12-02T10:00:00Z',
  ])('refuses %j without a zone or in another shape', (input) => {
    expect(refusal(() => normalizeTimestamp(input))).toBe(
      'observed_at: must be an RFC 3339 timestamp with a time zone',
    )
  })

  it.each([
    '2023-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-12-00T00:00:00Z',
    '2026-12-02T24:00:00Z',
    '2026-12-02T23:60:00Z',
    '2026-12-02T23:59:60Z',
    '2016-12-31T22:59:60Z',
    '2016-12-31T23:59:61Z',
    '2026-12-02T10:00:00+24:00',
  ])('refuses %j, which is not a real date and time', (input) => {
    expect(refusal(() => normalizeTimestamp(input, 'at'))).toBe('at: is not a valid date and time')
  })

  it('refuses a non-string', () => {
    expect(refusal(() => normalizeTimestamp(1_700_000_000))).toBe('observed_at: must be a string')
  })
})
