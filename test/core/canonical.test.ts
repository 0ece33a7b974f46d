import { describe, expect, it } from 'vitest'

import { canonicalJson, canonicalJsonSliced, MAX_JSON_DEPTH } from '../../src/core/canonical.js'
import { PowerContextError } from '../../src/core/errors.js'

const nested = (levels: number): unknown => {
  let v: unknown = 'leaf'
  for (let i = 0; i < levels; i += 1) v = { k: v }
  return v
}

describe('canonicalJson', () => {
  it('is RFC 8785 after NFC of strings and keys', () => {
    expect(canonicalJson({ b: 'e\u0301', a: [1, 2.5, null, true] })).toBe(
      '{"a":[1,2.5,null,true],"b":"é"}',
    )
    expect(canonicalJson({ '\u0065\u0301': 1 })).toBe('{"é":1}')
  })

  it('rejects keys that collide after NFC, non-finite numbers and lone surrogates', () => {
    for (const bad of [{ é: 1, 'e\u0301': 2 }, { n: Number.NaN }, { s: '\ud800' }]) {
      expect(() => canonicalJson(bad)).toThrow(PowerContextError)
    }
  })

  it('accepts nesting up to the limit and rejects deeper values without overflowing the stack', () => {
    expect(() => canonicalJson(nested(MAX_JSON_DEPTH))).not.toThrow()
    expect(() => canonicalJson(nested(MAX_JSON_DEPTH + 1))).toThrow(/nests deeper than/)
    expect(() => canonicalJson(nested(100_000))).toThrow(PowerContextError)
  })
})

describe('canonicalJsonSliced', () => {
  const values: unknown[] = [
    null,
    'e\u0301',
    [],
    {},
    { b: 'e\u0301', a: [1, 2.5, null, true], '\u0065\u0301': { z: [{ y: 1, x: 2 }], a: [] } },
    { candidates: [{ text: 'b', kind: 'fact' }, { text: 'a\u030a' }], n: 3, '\u00e9': 'k', e: 'l' },
    [
      [3, 2, { b: 1, a: [2, { d: 1, c: 0 }] }],
      'x',
      { '': 0, ' ': 1, A: 2, a: 3, '\u{1f600}': 4, '\uff10': 5 },
    ],
    { __proto__: null, k: 1 },
    JSON.parse('{"__proto__": {"a": 1}, "b": 2}'),
  ]

  it('gives the text of canonicalJson and pauses between members', async () => {
    for (const v of values) {
      let pauses = 0
      const text = await canonicalJsonSliced(v, 'value', async () => {
        pauses += 1
      })
      expect(text).toBe(canonicalJson(v))
      const members = (x: unknown): number =>
        x !== null && typeof x === 'object' ? Object.keys(x).length : 0
      const level2 =
        v !== null && typeof v === 'object'
          ? Object.values(v as object).reduce((s: number, x) => s + members(x), 0)
          : 0
      expect(pauses).toBe(members(v) + level2)
    }
  })

  it('throws the error canonicalJson throws', async () => {
    const bad: unknown[] = [
      { é: 1, 'e\u0301': 2 },
      { a: { n: Number.NaN } },
      { z: [{ s: '\ud800' }], a: [{ s: 1n }] },
      { list: [1, undefined] },
      new Date(0),
      { a: [new Map()] },
      { ['\ud800']: 1 },
      nested(MAX_JSON_DEPTH + 1),
    ]
    for (const v of bad) {
      let expected: unknown
      try {
        canonicalJson(v, 'record')
      } catch (err) {
        expected = err
      }
      expect(expected).toBeInstanceOf(PowerContextError)
      await expect(canonicalJsonSliced(v, 'record', async () => {})).rejects.toThrow(
        (expected as Error).message,
      )
    }
    expect(await canonicalJsonSliced(nested(MAX_JSON_DEPTH), 'v', async () => {})).toBe(
      canonicalJson(nested(MAX_JSON_DEPTH)),
    )
  })
})
