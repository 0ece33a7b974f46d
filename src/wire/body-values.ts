/**
 * Counting the values of a JSON request body before it is parsed. Parsing is one synchronous
 * step: a 2 MiB body of a hundred thousand tiny members (object keys, array items) holds the
 * event loop for tens of milliseconds in `JSON.parse` alone, and every later walk of it (schema,
 * secret rules, canonical encoding) costs as much again. A body holding more values than any valid
 * request needs is refused from its bytes, which costs ≈ 2 ms per MiB.
 */

import { MAX_CAPTURE_METADATA_VALUES } from '../storage/spi/memory-commands.js'

/**
 * Most JSON values (object members and array items) a request body may hold. The largest valid
 * request (`remember` of 100 entries with 100 source refs each) holds ≈ 31,000.
 */
export const MAX_BODY_VALUES = 50_000

/**
 * Most values a capture request body may hold: its metadata's bound plus the request's six
 * members (`scope_id` … `occurred_at`). A body holding more has metadata over the bound (or
 * repeated members), refused from its bytes like any body over {@link MAX_BODY_VALUES}.
 */
export const CAPTURE_BODY_VALUES = MAX_CAPTURE_METADATA_VALUES + 6

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/** What an open container is: an object, or an array before / after its first item. */
const OBJECT = 0
const EMPTY_ARRAY = 1
const ARRAY = 2

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

/**
 * The object members plus array items of a JSON text (the number of values it holds besides the
 * top-level one), counted from its UTF-8 bytes without parsing; stops counting once past `max`.
 * Invalid JSON gets some count; the parser refuses it afterwards.
 */
export function countJsonValues(body: Uint8Array, max = Infinity): number {
  const open: number[] = []
  let count = 0
  let inString = false
  for (let i = 0; i < body.length && count <= max; i += 1) {
    const b = body[i]!
    if (inString) {
      if (b === BACKSLASH) i += 1
      else if (b === QUOTE) inString = false
      continue
    }
    if (isSpace(b)) continue
    const top = open.length - 1
    if (open[top] === EMPTY_ARRAY && b !== CLOSE_ARRAY) {
      open[top] = ARRAY
      count += 1
    }
    if (b === QUOTE) inString = true
    else if (b === COLON) count += 1
    else if (b === COMMA) {
      if (open[top] === ARRAY) count += 1
    } else if (b === OPEN_ARRAY) open.push(EMPTY_ARRAY)
    else if (b === OPEN_OBJECT) open.push(OBJECT)
    else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) open.pop()
  }
  return count
}
