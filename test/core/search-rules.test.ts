/**
 * Search rules (core/search-rules.ts, the Python reference's values): the candidate pool, the FTS admission
 * threshold at each step, admission counting distinct shared terms, and reciprocal-rank fusion —
 * exact scores, a duplicate's rank, the channel order of `matched_by`, ties and the limit.
 */
import { describe, expect, it } from 'vitest'

import {
  admitsFts,
  candidatePoolSize,
  type ChannelHit,
  fuseRrf,
  requiredSharedTerms,
  RRF_K,
  SEARCH_CHANNELS,
} from '../../src/core/search-rules.js'

const hit = (memoryId: string, version = 1): ChannelHit => ({ memoryId, version })

describe('candidatePoolSize', () => {
  it('is four times the limit, at least 32', () => {
    expect([1, 7, 8, 9, 50].map(candidatePoolSize)).toEqual([32, 32, 32, 36, 200])
  })
})

describe('requiredSharedTerms', () => {
  it('needs one term for up to two, then max(2, ceil(n / 4)); an empty query needs infinitely many', () => {
    expect(requiredSharedTerms(0)).toBe(Number.POSITIVE_INFINITY)
    const needs = [1, 2, 3, 4, 8, 9, 12, 13].map(requiredSharedTerms)
    expect(needs).toEqual([1, 1, 2, 2, 2, 3, 3, 4])
  })
})

describe('admitsFts', () => {
  const terms = (...t: string[]) => new Set(t)

  it('admits nothing for an empty query', () => {
    expect(admitsFts(terms(), ['a', 'b'])).toBe(false)
    expect(admitsFts(terms(), [])).toBe(false)
  })

  it('admits a short query on one shared term', () => {
    expect(admitsFts(terms('a'), ['x', 'a'])).toBe(true)
    expect(admitsFts(terms('a', 'b'), ['b'])).toBe(true)
    expect(admitsFts(terms('a', 'b'), ['x', 'y'])).toBe(false)
  })

  it('counts distinct shared terms only', () => {
    expect(admitsFts(terms('a', 'b', 'c'), ['a', 'a', 'a'])).toBe(false)
    expect(admitsFts(terms('a', 'b', 'c'), ['a', 'x', 'a', 'b'])).toBe(true)
    expect(admitsFts(terms('a', 'b', 'c'), ['x', 'y', 'c'])).toBe(false)
    const nine = terms(...'abcdefghi')
    expect(admitsFts(nine, ['a', 'b', 'b', 'x'])).toBe(false)
    expect(admitsFts(nine, ['a', 'b', 'i'])).toBe(true)
  })

  it('reads any iterable and stops once admitted', () => {
    let read = 0
    function* tokens() {
      for (const t of ['a', 'b', 'c', 'd']) {
        read++
        yield t
      }
    }
    expect(admitsFts(terms('a', 'b', 'c'), tokens())).toBe(true)
    expect(read).toBe(2)
  })
})

describe('fuseRrf', () => {
  it('scores 1 / (k + rank) per channel and sums the channels', () => {
    expect(RRF_K).toBe(60)
    const fused = fuseRrf({ fts: [hit('a'), hit('b')], vector: [hit('c'), hit('a')] }, 10)
    expect(fused).toEqual([
      { memoryId: 'a', version: 1, score: 1 / 61 + 1 / 62, matchedBy: ['fts', 'vector'] },
      { memoryId: 'c', version: 1, score: 1 / 61, matchedBy: ['vector'] },
      { memoryId: 'b', version: 1, score: 1 / 62, matchedBy: ['fts'] },
    ])
  })

  it('keeps the first rank of a duplicate inside one list, which still uses a position', () => {
    const fused = fuseRrf({ fts: [hit('a'), hit('a'), hit('b')] }, 10)
    expect(fused).toEqual([
      { memoryId: 'a', version: 1, score: 1 / 61, matchedBy: ['fts'] },
      { memoryId: 'b', version: 1, score: 1 / 63, matchedBy: ['fts'] },
    ])
  })

  it('lists matched_by in channel order, whatever order the channels are given in', () => {
    expect(SEARCH_CHANNELS).toEqual(['fts', 'vector'])
    const [only] = fuseRrf({ vector: [hit('a')], fts: [hit('a')] }, 1)
    expect(only?.matchedBy).toEqual(['fts', 'vector'])
  })

  it('keeps versions of one memory apart, however the id and version read together', () => {
    const fused = fuseRrf({ fts: [hit('m1', 12), hit('m', 1)], vector: [hit('m11', 2)] }, 10)
    expect(fused.map((h) => [h.memoryId, h.version, h.matchedBy])).toEqual([
      ['m1', 12, ['fts']],
      ['m11', 2, ['vector']],
      ['m', 1, ['fts']],
    ])
    for (const [first, second] of [
      [2, 1],
      [1, 2],
    ]) {
      const versions = fuseRrf({ fts: [hit('m', first)], vector: [hit('m', second)] }, 10)
      expect(versions.map((h) => h.version)).toEqual([1, 2])
    }
  })

  it('breaks score ties by memory id in code-unit order, then by version', () => {
    const fused = fuseRrf({ fts: [hit('b', 1), hit('x')], vector: [hit('B', 1), hit('a', 3)] }, 10)
    expect(fused.map((h) => `${h.memoryId}@${h.version}`)).toEqual(['B@1', 'b@1', 'a@3', 'x@1'])
    const reversed = fuseRrf(
      { fts: [hit('B', 1), hit('x')], vector: [hit('b', 1), hit('a', 3)] },
      4,
    )
    expect(reversed.map((h) => `${h.memoryId}@${h.version}`)).toEqual(['B@1', 'b@1', 'a@3', 'x@1'])
  })

  it('cuts to the limit and skips missing channels', () => {
    const fts = [hit('a'), hit('b'), hit('c')]
    expect(fuseRrf({ fts }, 2).map((h) => h.memoryId)).toEqual(['a', 'b'])
    expect(fuseRrf({ fts }, 0)).toEqual([])
    expect(fuseRrf({}, 5)).toEqual([])
  })
})
