import { describe, expect, it } from 'vitest'

import {
  BM25_B,
  BM25_K1,
  bm25Idf,
  bm25Order,
  bm25OrderSliced,
  bm25Score,
} from '../../src/core/bm25.js'
import type { PlannedTerm } from '../../src/core/query-plan.js'

// Expected values computed by hand (python3: math.log, the formula of docs/search.md).
describe('bm25', () => {
  it('uses the documented short-text constants', () => {
    expect([BM25_K1, BM25_B]).toEqual([0.9, 0.4])
  })

  it('idf = ln(1 + (N − df + 0.5) / (df + 0.5)), df capped to [0, N]', () => {
    expect(bm25Idf(4, 1)).toBeCloseTo(Math.log(1 + 3.5 / 1.5), 12)
    expect(bm25Idf(4, 1)).toBeCloseTo(1.2039728043259361, 12)
    expect(bm25Idf(4, 2)).toBeCloseTo(Math.LN2, 12)
    expect(bm25Idf(1000, 0)).toBeCloseTo(7.601901959875166, 12)
    expect(bm25Idf(10, 10)).toBeCloseTo(0.04652001563489291, 12)
    // A prefix's summed df may exceed N: it counts as N (the idf stays positive).
    expect(bm25Idf(10, 25)).toBe(bm25Idf(10, 10))
    expect(bm25Idf(10, -1)).toBe(bm25Idf(10, 0))
  })

  it('scores tf with saturation and length normalisation', () => {
    const red: PlannedTerm = { token: 'red' }
    const stats = { documents: 4, averageLength: 3, documentFrequencies: [2] }
    // ln 2 · 2 · 1.9 / (2 + 0.9 · (0.6 + 0.4 · 3/3))
    expect(bm25Score([red], ['red', 'red', 'blue'], stats)).toBeCloseTo(0.9082618228026869, 12)
    expect(bm25Score([red], ['blue'], stats)).toBe(0)
  })

  it('counts tf with admission matching: stem prefixes, a-z continuations only', () => {
    const terms: PlannedTerm[] = [{ token: 'painting', prefix: 'paint' }, { token: 'red' }]
    const stats = { documents: 10, averageLength: 2.5, documentFrequencies: [3, 5] }
    // paint* matches painted and paint (tf 2), not paint_x nor painter2; red tf 1; len 5.
    const tokens = ['painted', 'paint', 'paint_x', 'painter2', 'red']
    expect(bm25Score(terms, tokens, stats)).toBeCloseTo(1.9175511517648198, 12)
  })

  it('a short text sharing one common word ranks below a longer one with the rare word', () => {
    const terms: PlannedTerm[] = [{ token: 'caroline', prefix: 'carolin' }, { token: 'identity' }]
    const stats = { documents: 1000, averageLength: 20, documentFrequencies: [400, 12] }
    const short = ['thanks', 'caroline']
    const answer = [...Array.from({ length: 28 }, (_, i) => `w${i}`), 'caroline', 'identity']
    expect(bm25Order([short, answer], (t) => t, terms, stats)).toEqual([answer, short])
  })

  it('orders best first; equal scores keep the input order; the input is untouched', () => {
    const terms: PlannedTerm[] = [{ token: 'kiwi' }]
    const stats = { documents: 10, averageLength: 3, documentFrequencies: [4] }
    const docs = [
      { id: 'a', t: ['kiwi', 'x', 'y', 'z'] },
      { id: 'b', t: ['kiwi', 'kiwi', 'x'] },
      { id: 'c', t: ['kiwi', 'x', 'y', 'z'] },
      { id: 'd', t: ['x'] },
    ]
    const order = bm25Order(docs, (d) => d.t, terms, stats).map((d) => d.id)
    expect(order).toEqual(['b', 'a', 'c', 'd'])
    expect(docs.map((d) => d.id)).toEqual(['a', 'b', 'c', 'd'])
  })

  it('sliced: the same order, one pause before each candidate', async () => {
    const terms: PlannedTerm[] = [{ token: 'kiwi' }, { token: 'painted', prefix: 'paint' }]
    const stats = { documents: 50, averageLength: 6, documentFrequencies: [9, 14] }
    const words = ['kiwi', 'paint', 'painter', 'painted', 'x', 'y', 'paint9']
    const docs = Array.from({ length: 40 }, (_, i) =>
      Array.from({ length: 1 + (i % 9) }, (_, k) => words[(i * 7 + k * 3) % words.length]!),
    )
    let pauses = 0
    const sliced = await bm25OrderSliced(
      docs,
      (d) => d,
      terms,
      stats,
      async () => {
        pauses += 1
      },
    )
    expect(sliced).toEqual(bm25Order(docs, (d) => d, terms, stats))
    expect(new Set(sliced.map((d) => bm25Score(terms, d, stats))).size).toBeGreaterThan(5)
    expect(pauses).toBe(docs.length)
  })

  it('an empty index (no average) normalises by the document itself', () => {
    const stats = { documents: 0, averageLength: 0, documentFrequencies: [0] }
    const score = bm25Score([{ token: 'x' }], ['x', 'y'], stats)
    expect(score).toBeCloseTo((bm25Idf(0, 0) * 1.9) / (1 + 0.9), 12)
  })
})
