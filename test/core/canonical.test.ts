import { describe, expect, it } from 'vitest'

import {
  canonicalBytes,
  canonicalJson,
  canonicalJsonSliced,
  MAX_JSON_DEPTH,
} from '../../src/core/canonical.js'
import { PowerContextError } from '../../src/core/errors.js'

const nested = (levels: number): unknown => {
  let v: unknown = 'leaf'
  for (let i = 0; i < levels; i += 1) v = { k: v }
  return v
}

const nestedArrays = (levels: number): unknown => {
  let v: unknown = 'leaf'
  for (let i = 0; i < levels; i += 1) v = [v]
  return v
}

/** The `invalid_request` a call throws, as clients see it: message and details. */
const refusal = (call: () => unknown): { code: string; message: string; details: unknown } => {
  try {
    call()
  } catch (err) {
    if (!(err instanceof PowerContextError)) throw err
    return { code: err.code, message: err.message, details: err.details }
  }
  throw new Error('did not throw')
}

const invalid = (field: string, message: string) => ({
  code: 'invalid_request',
  message: `${field}: ${message}`,
  details: { errors: [{ field, message }] },
})

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

describe('canonicalJson refusals', () => {
  it('names the offending field by its path, "value" unless the caller names the root', () => {
    expect(refusal(() => canonicalJson(Number.NaN))).toEqual(
      invalid('value', 'must be a finite number'),
    )
    expect(refusal(() => canonicalJson({ a: [1, Number.POSITIVE_INFINITY] }, 'metadata'))).toEqual(
      invalid('metadata.a[1]', 'must be a finite number'),
    )
    expect(refusal(() => canonicalJson([{ s: 'ok' }, { s: '\udc00' }]))).toEqual(
      invalid('value[1].s', 'contains a lone surrogate'),
    )
    expect(refusal(() => canonicalJson({ k: { ['x\ud800']: 1 } }))).toEqual(
      invalid('value.k', 'has a key with a lone surrogate'),
    )
    expect(refusal(() => canonicalJson({ é: 1, 'e\u0301': 2 }))).toEqual(
      invalid('value', 'keys collide after NFC: é'),
    )
    expect(refusal(() => canonicalJson({ d: [new Date(0)] }))).toEqual(
      invalid('value.d[0]', 'is not a JSON value'),
    )
    expect(refusal(() => canonicalJson(undefined))).toEqual(invalid('value', 'is not a JSON value'))
  })

  it('counts array levels toward the nesting limit like object levels', () => {
    expect(canonicalJson(nestedArrays(MAX_JSON_DEPTH))).toBe(
      '['.repeat(MAX_JSON_DEPTH) + '"leaf"' + ']'.repeat(MAX_JSON_DEPTH),
    )
    expect(refusal(() => canonicalJson(nestedArrays(MAX_JSON_DEPTH + 1))).message).toBe(
      `value${'[0]'.repeat(MAX_JSON_DEPTH + 1)}: nests deeper than ${MAX_JSON_DEPTH} levels`,
    )
  })
})

describe('canonicalBytes', () => {
  it('is the UTF-8 of canonicalJson, with its refusals', () => {
    expect(Buffer.from(canonicalBytes({ b: 'e\u0301', a: 1 })).toString('hex')).toBe(
      Buffer.from('{"a":1,"b":"\u00e9"}', 'utf8').toString('hex'),
    )
    expect(refusal(() => canonicalBytes({ n: Number.NaN }))).toEqual(
      invalid('value.n', 'must be a finite number'),
    )
    expect(refusal(() => canonicalBytes(Number.NaN, 'entry'))).toEqual(
      invalid('entry', 'must be a finite number'),
    )
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
      // Two levels: one pause per array item; two per object member (encoded, then joined).
      const pausesOf = (x: unknown, depth: number): number =>
        depth >= 2 || x === null || typeof x !== 'object'
          ? 0
          : Object.values(x).reduce(
              (s: number, item) => s + (Array.isArray(x) ? 1 : 2) + pausesOf(item, depth + 1),
              0,
            )
      expect(pauses).toBe(pausesOf(v, 0))
    }
  })

  it('throws the error canonicalJson throws', async () => {
    const bad: unknown[] = [
      { é: 1, 'e\u0301': 2 },
      { a: { n: Number.NaN } },
      { z: [{ s: '\ud800' }], a: [{ s: 1n }] },
      { list: [1, undefined] },
      { a: undefined },
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
