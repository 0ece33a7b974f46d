import { describe, expect, it } from 'vitest'

import { canonicalJson, MAX_JSON_DEPTH } from '../../src/core/canonical.js'
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
