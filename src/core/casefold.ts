import commonFolds from '@unicode/unicode-14.0.0/Case_Folding/C/symbols.mjs'
import fullFolds from '@unicode/unicode-14.0.0/Case_Folding/F/symbols.mjs'

/** Matches strings made only of ASCII, where full case folding equals `toLowerCase()`. */
const ASCII_ONLY = /^\p{ASCII}*$/u

/** Code point → folded string, for every non-ASCII character that changes under folding. */
let foldMap: Map<number, string> | undefined

function getFoldMap(): Map<number, string> {
  if (foldMap !== undefined) return foldMap
  const map = new Map<number, string>()
  // Status C (common) and F (full) never share a code point; S and T are deliberately skipped.
  for (const table of [commonFolds, fullFolds]) {
    for (const [from, to] of table) {
      const cp = from.codePointAt(0) as number
      if (cp >= 0x80) map.set(cp, to)
    }
  }
  foldMap = map
  return map
}

/**
 * Unicode full case folding, identical to Python 3.11's `str.casefold()` (Unicode 14.0,
 * CaseFolding.txt statuses C + F). Folding is per code point, without context and without
 * re-normalisation, so it can expand a string and emit combining marks.
 *
 * @example
 * casefold('Straße') // 'strasse'
 * casefold('İ') // 'i\u0307'
 * casefold('ΌΣΟΣ') // 'όσοσ'
 */
export function casefold(s: string): string {
  if (ASCII_ONLY.test(s)) return s.toLowerCase()
  const map = getFoldMap()
  const n = s.length
  let out = ''
  let last = 0
  for (let i = 0; i < n; i++) {
    let cp = s.charCodeAt(i)
    if (cp < 0x80) {
      if (cp >= 0x41 && cp <= 0x5a) {
        out += s.slice(last, i) + String.fromCharCode(cp + 32)
        last = i + 1
      }
      continue
    }
    let width = 1
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
      const lo = s.charCodeAt(i + 1)
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000
        width = 2
      }
    }
    const folded = map.get(cp)
    if (folded !== undefined) {
      out += s.slice(last, i) + folded
      last = i + width
    }
    i += width - 1
  }
  return last === 0 ? s : out + s.slice(last)
}
