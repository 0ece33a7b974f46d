/*
 * Golden vectors for Analyzer v1. Every expectation below, and every case in
 * test/fixtures/analyzer-golden.json, was produced by a throwaway Python 3.11 (Unicode 14.0.0)
 * reference, not by the TypeScript code under test:
 *
 *   s = unicodedata.normalize('NFC', text).casefold()
 *   for ch in s (by code point):
 *     CJK (U+3400–4DBF, U+4E00–9FFF, U+F900–FAFF, U+20000–2FA1F) -> extend the CJK run
 *     elif ch.isalnum() or ch == '_'                               -> extend the word run
 *     else                                                         -> end both runs
 *   a word run emits itself; a CJK run emits 'u_<hex>' per code point, then 'b_<hex>_<hex>'
 *   per adjacent pair (lowercase hex, no padding); runs are emitted in document order.
 *
 * The fixture holds 360 seeded random strings mixing code points (assigned in Unicode 14) from
 * ~24 pools (ASCII, Latin, combining marks, Greek, Cyrillic, Armenian, Hebrew/Arabic, Devanagari,
 * Thai, Georgian/Cherokee, Hangul/Jamo, Kana, CJK BMP/compat/astral, fullwidth, symbols, emoji,
 * astral cased scripts, math alphanumerics, digits, special folds), 60 base + combining mark
 * strings for NFC, and every code point that changes under casefold (in chunks of 64, between
 * word characters). Each case is `[input, expected analyzeText(input)]`.
 */
import { readFileSync } from 'node:fs'

import { describe, expect, it } from 'vitest'

import { ANALYZER_VERSION, analyzeText, analyzeTokens } from '../../src/core/analyzer.js'
import { casefold } from '../../src/core/casefold.js'

interface GoldenFixture {
  analyzer: string
  unicode: string
  cases: [string, string][]
}

const golden = JSON.parse(
  readFileSync(new URL('../fixtures/analyzer-golden.json', import.meta.url), 'utf8'),
) as GoldenFixture

describe('casefold', () => {
  it.each([
    ['ABCdef', 'abcdef'],
    ['', ''],
    ['Straße', 'strasse'],
    ['\u0130', 'i\u0307'],
    ['ΌΣΟΣ', 'όσοσ'],
    ['ς', 'σ'],
    ['\ufb01', 'fi'],
    ['\u13a0\uab70', '\u13a0\u13a0'],
    ['\u212a \u212b \u00b5', 'k å μ'],
    ['\u{10400}', '\u{10428}'],
    ['\u01c5', '\u01c6'],
    ['\u1fb3', 'αι'],
    ['中文', '中文'],
    // ASCII letters inside a non-ASCII string, at the edges of A–Z.
    ['A@Z[`a{z\u00e9\u00c9', 'a@z[`a{z\u00e9\u00e9'],
    // Surrogates: a pair folds as one code point; a lone one is kept and the next character read.
    ['\ud801A', '\ud801a'],
    ['\u{10400}A\u{10401}', '\u{10428}a\u{10429}'],
    ['\u00c9\ud801', '\u00e9\ud801'],
    ['\udc00\u{10400}', '\udc00\u{10428}'],
    // Only a high surrogate starts a pair, and only a low one ends it.
    ['\u00c9\udc00', '\u00e9\udc00'],
    ['\uff21\udc00', '\uff41\udc00'],
    ['\ud801\uff21', '\ud801\uff41'],
  ])('casefold(%j) = %j', (input, expected) => {
    expect(casefold(input)).toBe(expected)
  })

  it('returns non-folding strings unchanged', () => {
    const s = 'already folded: σ é 中文 \u{20000} ひらがな ᏣᎳᎩ'
    expect(casefold(s)).toBe(s)
  })
})

describe('analyzeTokens golden vectors', () => {
  it.each<[string, string[]]>([
    ['Hello, World! The quick brown fox.', ['hello', 'world', 'the', 'quick', 'brown', 'fox']],
    ['foo-bar baz_qux café_42', ['foo', 'bar', 'baz_qux', 'café_42']],
    ['v1.5 and 3.14159 or 2024-06-01', ['v1', '5', 'and', '3', '14159', 'or', '2024', '06', '01']],
    ['__init__ --flag=value', ['__init__', 'flag', 'value']],
    [
      '中文世界',
      ['u_4e2d', 'u_6587', 'u_4e16', 'u_754c', 'b_4e2d_6587', 'b_6587_4e16', 'b_4e16_754c'],
    ],
    ['中', ['u_4e2d']],
    ['abc中文def', ['abc', 'u_4e2d', 'u_6587', 'b_4e2d_6587', 'def']],
    [
      'SQLite的全文搜索 works',
      [
        'sqlite',
        'u_7684',
        'u_5168',
        'u_6587',
        'u_641c',
        'u_7d22',
        'b_7684_5168',
        'b_5168_6587',
        'b_6587_641c',
        'b_641c_7d22',
        'works',
      ],
    ],
    ['\u{20000}\u{2a6d6}x\u{2f800}', ['u_20000', 'u_2a6d6', 'b_20000_2a6d6', 'x', 'u_4e3d']],
    ['\uf900\uf91c', ['u_8c48', 'u_5375', 'b_8c48_5375']],
    ['ひらがな カタカナ ｶﾀｶﾅ 한국어', ['ひらがな', 'カタカナ', 'ｶﾀｶﾅ', '한국어']],
    ['こんにちは世界', ['こんにちは', 'u_4e16', 'u_754c', 'b_4e16_754c']],
    ['\u1100\u1161\u11a8', ['\uac01']],
    ['हिन्दी भाषा', ['ह', 'न', 'द', 'भ', 'ष']],
    ['cafe\u0301 CAFÉ', ['caf\u00e9', 'caf\u00e9']],
    ['e\u0301\u0323', ['\u1eb9']],
    ['Straße STRASSE ẞ', ['strasse', 'strasse', 'ss']],
    ['İstanbul', ['i', 'stanbul']],
    ['ΌΣΟΣ σοφός', ['όσοσ', 'σοφόσ']],
    ['ΣΊΣΥΦΟΣ', ['σίσυφοσ']],
    ['x\u0345y', ['x\u03b9y']],
    ['\ufb01ne \ufb02ow', ['fine', 'flow']],
    ['ᏣᎳᎩ ꮳꮃꭹ', ['ᏣᎳᎩ', 'ᏣᎳᎩ']],
    ['\u01c4emal \u01c5emal', ['\u01c6emal', '\u01c6emal']],
    ['hello👋world 🎉 ok ✓ a+b=c € 100', ['hello', 'world', 'ok', 'a', 'b', 'c', '100']],
    ['ＡＢＣ１２３', ['ａｂｃ１２３']],
    ['Ⅻ ① ²', ['ⅻ', '①', '²']],
    ['\u210c\u{1d400}\u{1d7cf}', ['\u210c\u{1d400}\u{1d7cf}']],
    ['', []],
    ['   \t\n  ', []],
    ['!!! ... ???', []],
  ])('analyzeTokens(%j)', (input, expected) => {
    expect(analyzeTokens(input)).toEqual(expected)
  })
})

describe('analyzeTokens edges', () => {
  // Both ends of each CJK range and the code point just outside it (the reference's ranges are
  // inclusive, assigned or not); U+F900 itself is NFC-mapped to U+8C48 (a case above).
  it.each<[string, string[]]>([
    ['\u33ff\u3400', ['u_3400']],
    ['\u4dbf\u4dc0', ['u_4dbf']],
    ['\u4dff\u4e00', ['u_4e00']],
    ['\u9fff\ua000', ['u_9fff', '\ua000']],
    ['\uf8ff\ufa0e', ['u_fa0e']],
    ['\ufaff\ufb00', ['u_faff', 'ff']],
    ['\u{1ffff}\u{20000}', ['u_20000']],
    ['\u{2fa1f}\u{2fa20}', ['u_2fa1f']],
    // CJK Extension G (U+30000, a letter since Unicode 13) is outside the ranges: a word.
    ['\u{30000}', ['\u{30000}']],
  ])('analyzeTokens(%j)', (input, expected) => {
    expect(analyzeTokens(input)).toEqual(expected)
  })

  // A pair is one code point; a lone surrogate separates and never swallows its neighbour.
  it.each<[string, string[]]>([
    ['\u{10000}', ['\u{10000}']],
    ['a\udc00b', ['a', 'b']],
    ['\uff41\udc00', ['\uff41']],
    ['\ud800a', ['a']],
    ['\ud800\ue000', []],
    ['\ud800\uff41', ['\uff41']],
    ['x\ud800', ['x']],
  ])('analyzeTokens(%j) with surrogates', (input, expected) => {
    expect(analyzeTokens(input)).toEqual(expected)
  })
})

describe('analyzeText', () => {
  it('joins tokens with single spaces', () => {
    expect(analyzeText('  Foo--bar\t\tBAZ ')).toBe('foo bar baz')
    expect(analyzeText('中文世界')).toBe(
      'u_4e2d u_6587 u_4e16 u_754c b_4e2d_6587 b_6587_4e16 b_4e16_754c',
    )
  })

  it('returns the empty string when there are no tokens', () => {
    expect(analyzeText('')).toBe('')
    expect(analyzeText(' \u3000\n\t')).toBe('')
    expect(analyzeText('🎉 — ✓')).toBe('')
  })

  it('is version v1', () => {
    expect(ANALYZER_VERSION).toBe('v1')
  })
})

describe('analyzer golden fixture (Python 3.11 reference)', () => {
  it('covers the expected rules and Unicode version', () => {
    expect(golden.analyzer).toBe(ANALYZER_VERSION)
    expect(golden.unicode).toBe('14.0.0')
    expect(golden.cases.length).toBeGreaterThan(400)
  })

  it('matches every case', () => {
    const mismatches = golden.cases
      .map(([input, expected]) => ({ input, expected, actual: analyzeText(input) }))
      .filter((c) => c.actual !== c.expected)
    expect(mismatches).toEqual([])
  })
})
