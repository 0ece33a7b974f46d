import letterRanges from '@unicode/unicode-14.0.0/General_Category/Letter/ranges.mjs'
import numberRanges from '@unicode/unicode-14.0.0/General_Category/Number/ranges.mjs'

import { casefold } from './casefold.js'

/** Version tag of the analyzer rules; bump it whenever tokens could change for some input. */
export const ANALYZER_VERSION = 'v1'

/** One bit per code point: set when the code point is a word character (L*, N*, or `_`). */
let wordBits: Uint32Array | undefined

function getWordBits(): Uint32Array {
  if (wordBits !== undefined) return wordBits
  const bits = new Uint32Array(0x110000 >>> 5)
  for (const ranges of [letterRanges, numberRanges]) {
    for (const range of ranges) {
      for (let cp = range.begin; cp < range.end; cp++) bits[cp >>> 5]! |= 1 << (cp & 31)
    }
  }
  bits[0x5f >>> 5]! |= 1 << (0x5f & 31)
  wordBits = bits
  return bits
}

/** CJK ideograph ranges that are split into unigrams and bigrams (assigned or not). */
function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x2fa1f)
  )
}

function emitCjkRun(run: number[], tokens: string[]): void {
  const hex = run.map((cp) => cp.toString(16))
  for (const h of hex) tokens.push('u_' + h)
  for (let i = 1; i < hex.length; i++) tokens.push('b_' + hex[i - 1]! + '_' + hex[i]!)
}

/**
 * Analyzer v1 tokens for stored searchable text and for queries: NFC, Unicode full case folding
 * (Python `str.casefold()`), then a scan by code point. Maximal runs of word characters (Unicode
 * L* / N* as in Unicode 14, plus `_`) become one token each; maximal runs of CJK ideographs emit
 * every unigram `u_<hex>` and then every bigram `b_<hex>_<hex>`; everything else (punctuation,
 * whitespace, symbols, combining marks) separates. Order and duplicates are kept.
 *
 * @example
 * analyzeTokens('Foo-bar v1.5') // ['foo', 'bar', 'v1', '5']
 * analyzeTokens('abc中文') // ['abc', 'u_4e2d', 'u_6587', 'b_4e2d_6587']
 */
export function analyzeTokens(text: string): string[] {
  const s = casefold(text.normalize('NFC'))
  const bits = getWordBits()
  const tokens: string[] = []
  const n = s.length
  let wordStart = -1
  let cjkRun: number[] | undefined
  for (let i = 0; i < n; i++) {
    let cp = s.charCodeAt(i)
    let width = 1
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
      const lo = s.charCodeAt(i + 1)
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000
        width = 2
      }
    }
    if (isCjk(cp)) {
      if (wordStart >= 0) {
        tokens.push(s.slice(wordStart, i))
        wordStart = -1
      }
      if (cjkRun === undefined) cjkRun = [cp]
      else cjkRun.push(cp)
    } else {
      if (cjkRun !== undefined) {
        emitCjkRun(cjkRun, tokens)
        cjkRun = undefined
      }
      if ((bits[cp >>> 5]! >>> (cp & 31)) & 1) {
        if (wordStart < 0) wordStart = i
      } else if (wordStart >= 0) {
        tokens.push(s.slice(wordStart, i))
        wordStart = -1
      }
    }
    i += width - 1
  }
  if (wordStart >= 0) tokens.push(s.slice(wordStart))
  if (cjkRun !== undefined) emitCjkRun(cjkRun, tokens)
  return tokens
}

/**
 * Analyzer v1 output as one string: the tokens of {@link analyzeTokens} joined by single spaces,
 * or `''` when the text has no tokens. This is the form stored in (and matched against) the
 * full-text index.
 *
 * @example
 * analyzeText('Straße İstanbul!') // 'strasse i stanbul'
 * analyzeText('中文世界') // 'u_4e2d u_6587 u_4e16 u_754c b_4e2d_6587 b_6587_4e16 b_4e16_754c'
 */
export function analyzeText(text: string): string {
  return analyzeTokens(text).join(' ')
}
