/**
 * Large string members kept as the JSON text they were stored as, in UTF-8 bytes. A source of a
 * megabyte is stored as canonical JSON; reading it back used to make a string of that text, parse
 * it (another megabyte string), and stringify the content again for the answer (two more): four
 * megabytes on the JavaScript heap per read, and the garbage collections they cost. A member made
 * here with {@link withJsonText} is decoded and parsed only when something reads it;
 * {@link stringifyPieces} puts the stored bytes into the answer as they are. They must be
 * `JSON.stringify` of the string (canonical JSON's string form), so the answer is unchanged.
 */
import { randomUUID } from 'node:crypto'

/** A JSON string literal (quotes included) as UTF-8 bytes. */
export type JsonText = Uint8Array

/** Members of an object that are kept as JSON text: key → the text. */
const jsonTexts = new WeakMap<object, Map<string, JsonText>>()

const utf8 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')

/**
 * Defines `key` on `target` as an enumerable member whose value is `JSON.parse(text)`, parsed on
 * the first read and kept; returns `target`. `text` is a JSON string literal in the form
 * `JSON.stringify` gives it.
 */
export function withJsonText<T extends object>(target: T, key: string, text: JsonText): T {
  let value: string | undefined
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: false,
    get: () => (value ??= JSON.parse(utf8(text)) as string),
  })
  const texts = jsonTexts.get(target) ?? new Map<string, JsonText>()
  texts.set(key, text)
  jsonTexts.set(target, texts)
  return target
}

/**
 * Sets `to[key]` to `from[key]`; a member of `from` kept as JSON text stays so in `to` (not
 * parsed). Returns `to`.
 */
export function copyMember<T extends object, K extends keyof T & string>(
  from: { readonly [k in K]: T[K] },
  to: T,
  key: K,
): T {
  const text = jsonTextOf(from, key)
  if (text !== undefined) return withJsonText(to, key, text)
  to[key] = from[key]
  return to
}

/** The JSON text of `target[key]` when it was made by {@link withJsonText}. */
export function jsonTextOf(target: object, key: string): JsonText | undefined {
  return jsonTexts.get(target)?.get(key)
}

/**
 * The JSON string literal that opens `json` after `prefix` (ASCII), as a view of its bytes (no
 * copy), and where the rest begins; undefined when `json` does not begin with `prefix` and a
 * string. Only the closing quote is looked for (a quote after an even run of backslashes; no byte
 * of a multi-byte UTF-8 character is either): the literal is not checked, so `json` must be JSON
 * that was written as such (a stored canonical payload).
 */
export function leadingStringLiteral(
  json: Uint8Array,
  prefix: string,
): { text: JsonText; end: number } | undefined {
  const bytes = Buffer.from(json.buffer, json.byteOffset, json.byteLength)
  const open = prefix.length
  if (bytes.toString('latin1', 0, open) !== prefix || bytes[open] !== QUOTE) return undefined
  let at = open
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1)
    if (at < 0) return undefined
    let slashes = 0
    while (bytes[at - 1 - slashes] === BACKSLASH) slashes += 1
    if (slashes % 2 === 0) return { text: json.subarray(open, at + 1), end: at + 1 }
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * `JSON.stringify(value)` in pieces whose concatenation is the same text: the JSON text of members
 * made by {@link withJsonText} is a piece of its own, as stored (never parsed); the rest is
 * stringified around it. Values `toJSON` or other replacements would change are not expected here
 * (an operation's answer: plain objects, arrays, strings, numbers, booleans, null).
 */
export function stringifyPieces(value: unknown): (string | JsonText)[] {
  const stored: JsonText[] = []
  const marker = `\u0000json-text:${randomUUID()}:`
  const text = JSON.stringify(value, function (this: unknown, _key: string, v: unknown) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
    const texts = jsonTexts.get(v)
    if (texts === undefined) return v
    // A plain copy read by descriptor (so no kept member is parsed), its texts as markers.
    const copy: Record<string, unknown> = {}
    for (const key of Object.keys(v)) {
      const own = texts.get(key)
      if (own === undefined) {
        copy[key] = (v as Record<string, unknown>)[key]
      } else {
        copy[key] = `${marker}${stored.length}`
        stored.push(own)
      }
    }
    return copy
  })
  if (stored.length === 0) return [text]
  const pieces: (string | JsonText)[] = []
  let from = 0
  for (const [i, own] of stored.entries()) {
    const quoted = JSON.stringify(`${marker}${i}`)
    const at = text.indexOf(quoted, from)
    pieces.push(text.slice(from, at), own)
    from = at + quoted.length
  }
  pieces.push(text.slice(from))
  return pieces
}
