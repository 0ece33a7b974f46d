/**
 * How a window's free sources are laid out for the proposing calls: every source is read whole.
 * A source longer than one call's budget is cut into consecutive parts (at a line break when one
 * is near the end of the part, never inside a surrogate pair), and parts are packed, in window
 * order and kinds together, into as few calls as the budget allows.
 */
import type { SourceKind } from '../core/source-kinds.js'
import { sourceKind } from '../core/source-kinds.js'
import type { WindowSource } from '../storage/spi/flush-types.js'

/** One piece of a source: characters `[from, to)` of its content (UTF-16 code units). */
export interface SourcePart {
  readonly source: WindowSource
  readonly kind: Exclude<SourceKind, 'memory'>
  readonly from: number
  readonly to: number
  /** 1-based number of this part and how many the source has. */
  readonly part: number
  readonly parts: number
}

/** Where a part of at most `budget` characters starting at `from` ends. */
function partEnd(content: string, from: number, budget: number): number {
  let end = Math.min(content.length, from + budget)
  if (end === content.length) return end
  // A line break in the last quarter of the part makes a cleaner cut than the character budget.
  const breakAt = content.lastIndexOf('\n', end - 1)
  if (breakAt >= from + Math.floor((budget * 3) / 4)) return breakAt + 1
  const code = content.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end -= 1
  return end
}

/** The parts of one source; a source within the budget is one part. */
export function sourceParts(source: WindowSource, budget: number): SourcePart[] {
  const kind = sourceKind(source) as SourcePart['kind']
  const bounds: [number, number][] = []
  let from = 0
  do {
    const to = partEnd(source.content, from, budget)
    bounds.push([from, to])
    from = to
  } while (from < source.content.length)
  return bounds.map(([f, t], i) => ({
    source,
    kind,
    from: f,
    to: t,
    part: i + 1,
    parts: bounds.length,
  }))
}

/** The proposing calls of a window: parts packed in window order, at most `budget` characters each. */
export function proposeCalls(sources: readonly WindowSource[], budget: number): SourcePart[][] {
  const calls: SourcePart[][] = []
  let current: SourcePart[] = []
  let used = 0
  for (const source of sources) {
    for (const part of sourceParts(source, budget)) {
      const size = part.to - part.from
      if (current.length > 0 && used + size > budget) {
        calls.push(current)
        current = []
        used = 0
      }
      current.push(part)
      used += size
    }
  }
  if (current.length > 0) calls.push(current)
  return calls
}
