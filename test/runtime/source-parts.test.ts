/**
 * How long sources are laid out for the proposing calls: parts cover the whole content without
 * gaps or overlaps, cut at a line break near the end of a part when there is one, never inside a
 * surrogate pair; parts and whole sources are packed into as few calls as the budget allows.
 */
import { describe, expect, it } from 'vitest'

import { proposeCalls, sourceParts } from '../../src/runtime/source-parts.js'
import type { WindowSource } from '../../src/storage/spi/flush-types.js'

const source = (sourceId: string, content: string): WindowSource => ({
  sourceId,
  position: 1,
  content,
  mediaType: 'text/plain',
  metadata: {},
  occurredAt: null,
  capturedAt: '2026-12-06T00:00:00.000Z',
})

const rejoin = (s: WindowSource, budget: number): string =>
  sourceParts(s, budget)
    .map((p) => s.content.slice(p.from, p.to))
    .join('')

describe('source parts', () => {
  it('a source within the budget is one part, an empty one too', () => {
    expect(sourceParts(source('a', 'short'), 1000)).toMatchObject([
      { from: 0, to: 5, part: 1, parts: 1 },
    ])
    expect(sourceParts(source('e', ''), 1000)).toMatchObject([{ from: 0, to: 0, parts: 1 }])
  })

  it('covers a long source whole, cutting at a late line break', () => {
    const content = `${'x'.repeat(900)}\n${'y'.repeat(1500)}`
    const parts = sourceParts(source('l', content), 1000)
    expect(parts.map((p) => [p.from, p.to])).toEqual([
      [0, 901],
      [901, 1901],
      [1901, 2401],
    ])
    expect(rejoin(source('l', content), 1000)).toBe(content)
    expect(parts.map((p) => `${p.part}/${p.parts}`)).toEqual(['1/3', '2/3', '3/3'])
  })

  it('ignores an early line break and never splits a surrogate pair', () => {
    const content = `${'a'.repeat(10)}\n${'😀'.repeat(1000)}`
    const parts = sourceParts(source('s', content), 1000)
    expect(parts[0]?.to).toBe(999)
    for (const p of parts) {
      const piece = content.slice(p.from, p.to)
      expect(piece).toBe(piece.toWellFormed())
      expect(p.to - p.from).toBeLessThanOrEqual(1000)
    }
    expect(rejoin(source('s', content), 1000)).toBe(content)
  })

  it('packs sources and parts in window order into as few calls as fit', () => {
    const calls = proposeCalls(
      [source('a', 'a'.repeat(600)), source('b', 'b'.repeat(300)), source('c', 'c'.repeat(1500))],
      1000,
    )
    expect(calls.map((c) => c.map((p) => `${p.source.sourceId}:${p.from}-${p.to}`))).toEqual([
      ['a:0-600', 'b:0-300'],
      ['c:0-1000'],
      ['c:1000-1500'],
    ])
  })
})
