/* Query planning for the full-text channel (docs/search.md "How the query is planned"). */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import { analyzeTokens } from '../../src/core/analyzer.js'
import type { PlannedTerm, QueryPlan } from '../../src/core/query-plan.js'
import {
  admits,
  countsWhenUnknown,
  englishStemPrefix,
  matchedTerms,
  MAX_PLANNED_TERMS,
  planQuery,
  QUERY_STOP_WORDS,
  requiredSharedKnown,
  termMatches,
} from '../../src/core/query-plan.js'
import { admitsFts, requiredSharedTerms } from '../../src/core/search-rules.js'

const plan = (query: string): QueryPlan => planQuery(analyzeTokens(query))
const shown = (p: QueryPlan): string[] =>
  p.terms.map((t) => (t.prefix === undefined ? t.token : `${t.prefix}*`))

describe('englishStemPrefix', () => {
  it.each([
    ['painting', 'paint'],
    ['painted', 'paint'],
    ['paints', 'paint'],
    ['paint', 'paint'],
    ['running', 'run'],
    ['planned', 'plan'],
    ['hiking', 'hik'],
    ['hikes', 'hik'],
    ['hike', 'hik'],
    ['studies', 'stud'],
    ['studied', 'stud'],
    ['study', 'stud'],
    ['classes', 'class'],
    ['boxes', 'box'],
    ['watches', 'watch'],
    ['dogs', 'dog'],
    ['falling', 'fall'],
    ['need', 'need'],
    ['bus', undefined],
    ['focus', 'focus'],
    ['thing', 'thing'],
    ['used', 'used'],
  ])('%s → %s', (token, prefix) => {
    expect(englishStemPrefix(token)).toBe(prefix)
  })

  // Each rule reads the end of the token only, and a stem keeps 3 letters (else the token).
  it.each([
    ['axes', 'axes'],
    ['sses', 'sses'],
    ['ssesa', 'ssesa'],
    ['zesty', 'zest'],
    ['lists', 'list'],
    ['agreed', 'agreed'],
    ['ages', 'age'],
    ['myth', 'myth'],
    ['system', 'system'],
  ])('%s → %s (edges)', (token, prefix) => {
    expect(englishStemPrefix(token)).toBe(prefix)
  })

  it('leaves short tokens, numbers, CJK and accented words to exact matching', () => {
    for (const token of [
      'dog',
      'art',
      '2023',
      'v1',
      'u_4e2d',
      'b_4e2d_6587',
      'café',
      'snake_case',
    ]) {
      expect(englishStemPrefix(token)).toBeUndefined()
    }
  })

  it('is always a prefix of at least 3 letters of the token', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,14}$/), (token) => {
        const prefix = englishStemPrefix(token)
        if (prefix === undefined) return token.length < 4
        return token.startsWith(prefix) && prefix.length >= 3
      }),
    )
  })
})

describe('planQuery', () => {
  it('drops generic stop words and expands the rest to stem prefixes', () => {
    expect(shown(plan('When did Melanie paint a sunrise?'))).toEqual([
      'melani*',
      'paint*',
      'sunris*',
    ])
    expect(shown(plan("What is Caroline's identity?"))).toEqual(['carolin*', 'identit*'])
  })

  it('keeps the stop words when nothing else is left', () => {
    expect(shown(plan('what is this'))).toEqual(['what*', 'is', 'this*'])
    expect(shown(plan('The Who'))).toEqual(['the', 'who'])
  })

  it('makes one term of tokens with one stem, and of repeated tokens', () => {
    const p = plan('paint Painting PAINTED paints')
    expect(p.terms).toEqual([{ token: 'paint', prefix: 'paint' }])
    expect(p.requiredShared).toBe(1)
  })

  it('keeps numbers, short words and CJK terms exact', () => {
    expect(plan('my dog in 2023 中文').terms).toEqual([
      { token: 'dog' },
      { token: '2023' },
      { token: 'u_4e2d' },
      { token: 'u_6587' },
      { token: 'b_4e2d_6587' },
    ])
  })

  it('requires the admission share of the planned terms', () => {
    expect(plan('!!! ...').terms).toEqual([])
    expect(plan('!!! ...').requiredShared).toBe(Number.POSITIVE_INFINITY)
    expect(plan('the red kiwi').requiredShared).toBe(1)
    expect(plan('red kiwi mango').requiredShared).toBe(2)
    expect(plan('a1 a2 a3 a4 a5 a6 a7 a8 a9').requiredShared).toBe(3)
  })

  it('only ever plans analyser tokens and prefixes of them', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (query) => {
        const tokens = new Set(analyzeTokens(query))
        return planQuery([...tokens]).terms.every(
          (t) => tokens.has(t.token) && (t.prefix === undefined || t.token.startsWith(t.prefix)),
        )
      }),
    )
  })

  it('keeps the 32 most valuable terms of a long query, in query order', () => {
    const fillers = Array.from({ length: 1600 }, (_, i) => `x${i.toString(36).padStart(3, '0')}`)
    const tokens = [...fillers.slice(0, 10), 'deploy', ...fillers.slice(10), 'kubernetes', 'deploy']
    const plan = planQuery(tokens)
    expect(plan.terms).toHaveLength(MAX_PLANNED_TERMS)
    expect(plan.requiredShared).toBe(8)
    // Repeated first (deploy), then the longest (kubernetes), then the earliest fillers.
    expect(plan.terms.map((t) => t.token)).toEqual([
      ...fillers.slice(0, 10),
      'deploy',
      ...fillers.slice(10, 30),
      'kubernetes',
    ])
    // Deterministic, and a 32-term query is kept whole.
    expect(planQuery(tokens)).toEqual(plan)
    expect(planQuery(fillers.slice(0, 32)).terms).toHaveLength(32)
  })

  it('counts repeats of a token and uses of one stem toward a term’s value', () => {
    // 40 exact six-character fillers, each used once: a shorter term stays only by its uses.
    const fillers = Array.from({ length: 40 }, (_, i) => `y${String(i).padStart(5, '0')}`)
    const repeated = planQuery([...fillers, 'k8s', 'k8s']).terms.map((t) => t.token)
    expect(repeated).toEqual([...fillers.slice(0, 31), 'k8s'])
    const stems = planQuery([...fillers, 'paint', 'painting']).terms.map((t) => t.token)
    expect(stems).toEqual([...fillers.slice(0, 31), 'paint'])
  })

  it('gives an exact term no prefix field at all', () => {
    expect(plan('dog 2023').terms).toStrictEqual([{ token: 'dog' }, { token: '2023' }])
  })

  it('has a generic stop word list (lower case, no digits)', () => {
    for (const word of QUERY_STOP_WORDS) expect(word).toMatch(/^[a-z]+$/)
    for (const word of ['may', 'won', 'like', 'one', 'new']) {
      expect(QUERY_STOP_WORDS.has(word)).toBe(false)
    }
  })
})

describe('admission under a plan', () => {
  const paint: PlannedTerm = { token: 'painting', prefix: 'paint' }

  it('counts a token equal to the term or its prefix followed by letters', () => {
    expect(termMatches(paint, 'painting')).toBe(true)
    expect(termMatches(paint, 'paint')).toBe(true)
    expect(termMatches(paint, 'painter')).toBe(true)
    expect(termMatches(paint, 'pain')).toBe(false)
    expect(termMatches(paint, 'paint_brush')).toBe(false)
    expect(termMatches(paint, 'paint2')).toBe(false)
    expect(termMatches({ token: 'cafe', prefix: 'caf' }, 'café')).toBe(false)
    expect(termMatches({ token: 'dog' }, 'dogs')).toBe(false)
    expect(termMatches({ token: 'dog' }, 'undefined')).toBe(false)
    expect(termMatches(paint, 'repainted')).toBe(false)
    // Every letter a–z may follow the prefix.
    expect(termMatches({ token: 'caroline', prefix: 'carolin' }, 'carolina')).toBe(true)
    expect(termMatches({ token: 'walter', prefix: 'walt' }, 'waltz')).toBe(true)
    expect(termMatches({ token: 'walter', prefix: 'walt' }, 'walt{')).toBe(false)
    expect(termMatches({ token: 'walter', prefix: 'walt' }, 'walt`')).toBe(false)
  })

  it('counts distinct planned terms, not tokens', () => {
    const p = plan('painting sunrise lake')
    expect(p.requiredShared).toBe(2)
    expect(admits(p, analyzeTokens('I painted, paints and painting'))).toBe(false)
    expect(admits(p, analyzeTokens('I painted that lake sunrise'))).toBe(true)
    expect(admits(p, analyzeTokens('lakes and sunrises'))).toBe(true)
  })

  it('admits nothing for an empty plan', () => {
    expect(admits(plan('...'), ['anything'])).toBe(false)
  })

  it('is the admission rule of docs/search.md when no term has a prefix', () => {
    const exact = fc.stringMatching(/^(?:[0-9]{1,3}|[a-z]{1,3})$/)
    fc.assert(
      fc.property(
        fc.array(exact, { maxLength: 12 }),
        fc.array(exact, { maxLength: 20 }),
        (q, c) => {
          const p = planQuery(q.filter((t) => !QUERY_STOP_WORDS.has(t)))
          const terms = new Set(p.terms.map((t) => t.token))
          expect(p.requiredShared).toBe(requiredSharedTerms(terms.size))
          return admits(p, c) === admitsFts(terms, c)
        },
      ),
    )
  })
})

describe('requiredSharedKnown (unknown words do not veto)', () => {
  const plan = (q: string) => planQuery(analyzeTokens(q))

  it('leaves words no memory has out of the share', () => {
    const p = plan('deploy zebra marker 7731')
    expect(p.requiredShared).toBe(2)
    expect(requiredSharedKnown(p, [true, false, false, false])).toBe(1)
    expect(requiredSharedKnown(p, [true, true, true, true])).toBe(2)
    expect(requiredSharedKnown(p, [false, false, false, false])).toBe(Number.POSITIVE_INFINITY)
  })

  it('always counts CJK unigrams and bigrams, known or not', () => {
    const p = plan('英文')
    expect(p.terms.map((t) => countsWhenUnknown(t))).toEqual([true, true, true])
    expect(requiredSharedKnown(p, [true, true, false])).toBe(p.requiredShared)
    expect(countsWhenUnknown({ token: 'zebra', prefix: 'zebr' })).toBe(false)
  })

  it('matchedTerms and admits agree with the share', () => {
    const p = plan('deploy zebra marker 7731')
    const tokens = analyzeTokens('The staging deploy uses eu-west.')
    expect(matchedTerms(p, tokens)).toEqual([true, false, false, false])
    expect(admits(p, tokens)).toBe(false)
    expect(admits(p, tokens, requiredSharedKnown(p, matchedTerms(p, tokens)))).toBe(true)
  })
})
