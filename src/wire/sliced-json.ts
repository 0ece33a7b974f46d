/**
 * `JSON.parse` in slices, for request bodies holding many values: one `JSON.parse` of a body of
 * 50,000 object members holds the event loop for 35 ms or more. A first pass walks the text (as
 * `countJsonValues` does: strings skipped, brackets matched) and cuts every container holding
 * more than `group` values into runs of members or items at its own level, each holding about
 * `group` values; a container that large inside a run gets a run of its own and is cut the same
 * way. Each run is then parsed by `JSON.parse` (wrapped in `{…}` or `[…]`) and its members
 * defined on the result, with a pause between runs. The value is the one `JSON.parse` gives —
 * member order, a repeated key's last value, a `__proto__` key as an own member — and a text
 * `JSON.parse` refuses throws a `SyntaxError` here too.
 */
import type { Pause } from '../core/event-loop-slices.js'

const OBJECT = 0
const ARRAY = 1

/** A container of the text: `[start, end)` from its opening to past its closing bracket. */
interface Span {
  readonly kind: typeof OBJECT | typeof ARRAY
  readonly start: number
  end: number
  /** Values inside (members and items, every depth). */
  count: number
  /** Values since the last cut (runs hold about `group`). */
  sinceCut: number
  /** Commas of this level that end a run, in order. */
  readonly cuts: number[]
  /** Containers of this level holding more than `group` values: their own run, cut alike. */
  readonly large: Span[]
  /** The last comma of this level (-1 before the first); whether the next one ends a run. */
  lastComma: number
  cutAtNext: boolean
  /** An array before its first item. */
  empty: boolean
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
const onlySpace = (text: string, from: number, to: number): boolean => {
  for (let i = from; i < to; i += 1) if (!isSpace(text.charCodeAt(i))) return false
  return true
}
const invalid = (): SyntaxError => new SyntaxError('not valid JSON')

/** Parses `text` as `JSON.parse` does, pausing between runs of about `group` values. */
export async function parseJsonSliced(text: string, pause: Pause, group = 2000): Promise<unknown> {
  const top = await spans(text, pause, group)
  if (top === undefined || top === DEEP || top.count <= group) return JSON.parse(text)
  if (!onlySpace(text, 0, top.start) || !onlySpace(text, top.end, text.length)) throw invalid()
  return build(text, top, pause)
}

/**
 * Nesting past which a text is parsed whole: a valid request nests a few levels past its
 * metadata's 64, and a chain thousands deep (`[[[…]]]`) holds no wide container to cut.
 */
const MAX_DEPTH = 100
const DEEP = 'deep'

/**
 * The first pass: the top-level container with its cuts (undefined when the top is no container,
 * {@link DEEP} past {@link MAX_DEPTH}).
 */
async function spans(
  text: string,
  pause: Pause,
  group: number,
): Promise<Span | undefined | typeof DEEP> {
  const open: Span[] = []
  let top: Span | undefined
  let inString = false
  for (let i = 0; i < text.length; i += 1) {
    if ((i & 0xffff) === 0) await pause()
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i += 1
      else if (c === 0x22) inString = false
      continue
    }
    if (isSpace(c)) continue
    const frame = open.at(-1)
    if (frame !== undefined && frame.empty && c !== 0x5d) {
      frame.empty = false
      frame.count += 1
      frame.sinceCut += 1
    }
    if (c === 0x22) inString = true
    else if (c === 0x3a) {
      if (frame === undefined || frame.kind !== OBJECT) throw invalid()
      frame.count += 1
      frame.sinceCut += 1
    } else if (c === 0x2c) {
      if (frame === undefined) throw invalid()
      if (frame.kind === ARRAY) {
        frame.count += 1
        frame.sinceCut += 1
      }
      if (frame.cutAtNext || frame.sinceCut >= group) {
        frame.cuts.push(i)
        frame.sinceCut = 0
        frame.cutAtNext = false
      }
      frame.lastComma = i
    } else if (c === 0x7b || c === 0x5b) {
      if (top !== undefined && open.length === 0) throw invalid()
      const kind = c === 0x7b ? OBJECT : ARRAY
      const span: Span = {
        kind,
        start: i,
        end: -1,
        count: 0,
        sinceCut: 0,
        cuts: [],
        large: [],
        lastComma: -1,
        cutAtNext: false,
        empty: kind === ARRAY,
      }
      if (open.length === 0) top = span
      if (open.push(span) > MAX_DEPTH) return DEEP
    } else if (c === 0x7d || c === 0x5d) {
      const span = open.pop()
      if (span === undefined || span.kind !== (c === 0x7d ? OBJECT : ARRAY)) throw invalid()
      span.end = i + 1
      const parent = open.at(-1)
      if (parent !== undefined) {
        parent.count += span.count
        if (span.count > group) {
          // Its own run: cut before it (unless it opens its container's first run) and after.
          const lastCut = parent.cuts.at(-1) ?? -1
          if (parent.lastComma > lastCut) parent.cuts.push(parent.lastComma)
          parent.large.push(span)
          parent.cutAtNext = true
          parent.sinceCut = 0
        } else parent.sinceCut += span.count
      }
    }
  }
  if (inString || open.length > 0) throw invalid()
  return top
}

/** Builds the value of a cut container, one run at a time. */
async function build(text: string, span: Span, pause: Pause): Promise<unknown> {
  const object = span.kind === OBJECT
  const out: Record<string, unknown> | unknown[] = object ? {} : []
  const bounds = [span.start, ...span.cuts, span.end - 1]
  let next = 0
  for (let r = 0; r + 1 < bounds.length; r += 1) {
    await pause()
    const from = bounds[r]! + 1
    const to = bounds[r + 1]!
    const large = span.large[next]
    if (large !== undefined && large.start >= from && large.end <= to) {
      next += 1
      const key = object ? keyBefore(text, from, large.start) : undefined
      if (!object && !onlySpace(text, from, large.start)) throw invalid()
      if (!onlySpace(text, large.end, to)) throw invalid()
      const value = await build(text, large, pause)
      if (key === undefined) (out as unknown[]).push(value)
      else define(out as Record<string, unknown>, key, value)
      continue
    }
    if (onlySpace(text, from, to)) throw invalid()
    const run = text.slice(from, to)
    if (!object) {
      for (const item of JSON.parse(`[${run}]`) as unknown[]) (out as unknown[]).push(item)
      continue
    }
    const part = JSON.parse(`{${run}}`) as Record<string, unknown>
    for (const key of Object.keys(part)) define(out as Record<string, unknown>, key, part[key])
  }
  return out
}

/** The key of the member whose value starts at `valueStart` (`"key" :` before it). */
function keyBefore(text: string, from: number, valueStart: number): string {
  let end = valueStart
  while (end > from && isSpace(text.charCodeAt(end - 1))) end -= 1
  if (end <= from || text.charCodeAt(end - 1) !== 0x3a) throw invalid()
  const key: unknown = JSON.parse(text.slice(from, end - 1))
  if (typeof key !== 'string') throw invalid()
  return key
}

/** An own, plain member, as `JSON.parse` makes it (`__proto__` included; a repeat replaces). */
function define(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
}
