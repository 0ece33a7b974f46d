/*
 * Counting a request body's JSON values from its bytes (the check that refuses a body of too many
 * values before it is parsed): the count equals the members and items of the parsed value, for
 * any JSON text and any spacing, and the largest valid request stays under the limit.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import { countJsonValues, MAX_BODY_VALUES } from '../../src/wire/body-values.js'

/** Object members plus array items of a parsed value, at every level. */
function valuesOf(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + 1 + valuesOf(v), 0)
  if (typeof value === 'object' && value !== null)
    return Object.values(value).reduce((n: number, v) => n + 1 + valuesOf(v), 0)
  return 0
}

const bytes = (text: string) => Buffer.from(text, 'utf8')

describe('countJsonValues', () => {
  it('counts the members and items of any JSON value, however it is spaced', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, '\t', ' \r\n'), (value, space) => {
        const text = JSON.stringify(value, null, space)
        expect(countJsonValues(bytes(text))).toBe(valuesOf(JSON.parse(text)))
      }),
      { numRuns: 500, seed: 29 },
    )
  })

  it('is not misled by brackets, commas, colons, quotes or backslashes inside strings', () => {
    const tricky = { 'a:b,[c]{': ['x\\', '"],[{:', '\\"', { '\\': [] }], '': '' }
    expect(countJsonValues(bytes(JSON.stringify(tricky)))).toBe(valuesOf(tricky))
  })

  it('stops counting once past max', () => {
    const text = JSON.stringify(Array.from({ length: 1000 }, (_, i) => i))
    expect(countJsonValues(bytes(text))).toBe(1000)
    expect(countJsonValues(bytes(text), 10)).toBe(11)
  })

  it('leaves room for the largest valid request: remember of 100 entries × 100 source refs', () => {
    const body = {
      scope_id: 's'.repeat(256),
      entries: Array.from({ length: 100 }, (_, e) => ({
        kind: 'fact',
        text: `entry ${e}`,
        sources: Array.from({ length: 100 }, (_, s) => ({ name: 'content', source_id: `s-${s}` })),
        observed_at: null,
        reason: 'why',
      })),
    }
    const count = countJsonValues(bytes(JSON.stringify(body)))
    expect(count).toBe(valuesOf(body))
    expect(count).toBeLessThan(MAX_BODY_VALUES * 0.7)
  })
})
