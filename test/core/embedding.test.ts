import { createHash } from 'node:crypto'

import { describe, expect, it } from 'vitest'

import {
  admitsVector,
  cosineFromL2,
  describeProfile,
  EMBEDDING_CONTENT_DOMAIN,
  embeddingHash,
  embeddingHasher,
  makeEmbeddingProfile,
  normalizeEmbedding,
  sameProfile,
  VECTOR_MIN_COSINE,
} from '../../src/core/embedding.js'
import { PowerContextError } from '../../src/core/errors.js'
import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import { refusal } from './refusal.js'

const profile = makeEmbeddingProfile({ profileId: 'p1', model: 'm', dimension: 3 })
const hex = (c: string) => c.repeat(64)

/** The message and details of the `invalid_inference_output` a call throws. */
function rejection(fn: () => unknown): { message: string; details: unknown } {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(PowerContextError)
    expect((err as PowerContextError).code).toBe('invalid_inference_output')
    return {
      message: (err as PowerContextError).message,
      details: (err as PowerContextError).details,
    }
  }
  throw new Error('expected a rejection')
}

function reason(fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(PowerContextError)
    expect((err as PowerContextError).code).toBe('invalid_inference_output')
    return (err as PowerContextError).details?.['reason']
  }
  throw new Error('expected a rejection')
}

describe('makeEmbeddingProfile', () => {
  it('builds a frozen l2/unit profile', () => {
    expect(profile).toEqual({
      profileId: 'p1',
      model: 'm',
      dimension: 3,
      distance: 'l2',
      normalization: 'unit',
    })
    expect(Object.isFrozen(profile)).toBe(true)
    expect(describeProfile(profile)).toBe('p1 (m, 3, l2, unit)')
  })

  it('rejects bad ids, models and dimensions', () => {
    for (const bad of [
      { profileId: '', model: 'm', dimension: 3 },
      { profileId: 'has space', model: 'm', dimension: 3 },
      { profileId: 'p', model: ' ', dimension: 3 },
      { profileId: 'p', model: 'm', dimension: 0 },
      { profileId: 'p', model: 'm', dimension: 2.5 },
      { profileId: 'p', model: 'm', dimension: 8193 },
    ]) {
      expect(() => makeEmbeddingProfile(bad)).toThrow(PowerContextError)
    }
  })

  it('names the field and the rule of each refusal', () => {
    const make = (p: Record<string, unknown>) => () =>
      makeEmbeddingProfile({ profileId: 'p', model: 'm', dimension: 3, ...p } as never)
    const idRule = 'embedding.profile_id: must be 1–128 printable ASCII characters'
    for (const profileId of ['', 'has space', 'x'.repeat(129), 'caf\u00e9', 123]) {
      expect(refusal(make({ profileId }))).toBe(idRule)
    }
    const modelRule = 'embedding.model: must be a non-blank model id of at most 256 characters'
    for (const model of [' \t', 'm'.repeat(257), 7]) {
      expect(refusal(make({ model }))).toBe(modelRule)
    }
    expect(refusal(make({ model: 'm\ud800' }))).toBe('embedding.model: contains a lone surrogate')
    const dimensionRule = 'embedding.dimension: must be an integer 1–8192'
    for (const dimension of [0, -1, 2.5, 8193, Number.NaN, '3']) {
      expect(refusal(make({ dimension }))).toBe(dimensionRule)
    }
  })

  it('accepts the edges: 128-character ids, 256-character models, dimensions 1 and 8192', () => {
    const edges = [
      { profileId: '!'.repeat(128), model: 'm', dimension: 1 },
      { profileId: '~', model: 'm'.repeat(256), dimension: 8192 },
    ]
    for (const p of edges) expect(makeEmbeddingProfile(p)).toMatchObject(p)
  })

  it('profiles are equal only when every field is', () => {
    const same = makeEmbeddingProfile({ profileId: 'p1', model: 'm', dimension: 3 })
    expect(sameProfile(profile, same)).toBe(true)
    for (const other of [
      { profileId: 'p2', model: 'm', dimension: 3 },
      { profileId: 'p1', model: 'm2', dimension: 3 },
      { profileId: 'p1', model: 'm', dimension: 4 },
    ]) {
      expect(sameProfile(profile, makeEmbeddingProfile(other))).toBe(false)
    }
    // A profile read back from storage may name another distance or normalisation.
    expect(sameProfile(profile, { ...profile, distance: 'cosine' as never })).toBe(false)
    expect(sameProfile(profile, { ...profile, normalization: 'none' as never })).toBe(false)
  })
})

describe('normalizeEmbedding', () => {
  it('divides by the largest magnitude, then by the L2 norm', () => {
    const v = normalizeEmbedding([3, 0, -4], profile)
    expect(v[0]).toBeCloseTo(0.6, 15)
    expect(v[1]).toBe(0)
    expect(v[2]).toBeCloseTo(-0.8, 15)
    expect(Object.isFrozen(v)).toBe(true)
  })

  it('keeps huge components finite (max scaling first)', () => {
    const v = normalizeEmbedding([1e308, 1e308, 0], profile)
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 15)
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 15)
    const tiny = normalizeEmbedding([5e-324, 0, 0], profile)
    expect(tiny).toEqual([1, 0, 0])
  })

  it('accepts typed arrays', () => {
    expect(normalizeEmbedding(new Float32Array([0, 2, 0]), profile)).toEqual([0, 1, 0])
  })

  it('rejects NaN, Infinity, non-numbers, wrong dimensions and the zero vector', () => {
    expect(reason(() => normalizeEmbedding([1, NaN, 0], profile))).toBe('non_finite')
    expect(reason(() => normalizeEmbedding([1, Infinity, 0], profile))).toBe('non_finite')
    expect(reason(() => normalizeEmbedding([1, '2', 0], profile))).toBe('non_finite')
    expect(reason(() => normalizeEmbedding([1, 2], profile))).toBe('dimension')
    expect(reason(() => normalizeEmbedding([1, 2, 3, 4], profile))).toBe('dimension')
    expect(reason(() => normalizeEmbedding([], profile))).toBe('dimension')
    expect(reason(() => normalizeEmbedding([0, 0, -0], profile))).toBe('zero_vector')
    expect(reason(() => normalizeEmbedding(null as never, profile))).toBe('not_a_vector')
    expect(reason(() => normalizeEmbedding('abc' as never, profile))).toBe('not_a_vector')
    expect(reason(() => normalizeEmbedding({} as never, profile))).toBe('not_a_vector')
  })

  it('says what is wrong with the vector (the message clients see)', () => {
    expect(rejection(() => normalizeEmbedding(7 as never, profile))).toEqual({
      message: 'embedding rejected: not an array of numbers',
      details: { reason: 'not_a_vector' },
    })
    expect(rejection(() => normalizeEmbedding([1, 2], profile))).toEqual({
      message: 'embedding rejected: expected 3 dimensions, got 2',
      details: { reason: 'dimension' },
    })
    expect(rejection(() => normalizeEmbedding([1, 0, null], profile))).toEqual({
      message: 'embedding rejected: component 2 is not a finite number',
      details: { reason: 'non_finite' },
    })
    expect(rejection(() => normalizeEmbedding([0, 0, 0], profile))).toEqual({
      message: 'embedding rejected: the zero vector has no direction',
      details: { reason: 'zero_vector' },
    })
  })
})

describe('embeddingHash', () => {
  it('is SHA-256 over the domain, NUL and the JCS of profile + content hash', () => {
    const body =
      '{"content_hash":"' +
      hex('a') +
      '","profile":{"dimension":3,"distance":"l2","model":"m","normalization":"unit","profile_id":"p1"}}'
    const expected = createHash('sha256')
      .update(`${EMBEDDING_CONTENT_DOMAIN}\u0000${body}`)
      .digest('hex')
    expect(embeddingHash(profile, hex('a'))).toBe(expected)
  })

  it('binds every profile field and the content hash', () => {
    const base = embeddingHash(profile, hex('a'))
    expect(embeddingHash(profile, hex('b'))).not.toBe(base)
    for (const other of [
      { profileId: 'p2', model: 'm', dimension: 3 },
      { profileId: 'p1', model: 'n', dimension: 3 },
      { profileId: 'p1', model: 'm', dimension: 4 },
    ]) {
      expect(embeddingHash(makeEmbeddingProfile(other), hex('a'))).not.toBe(base)
    }
  })

  it('refuses a content hash that is not text (the path names it)', () => {
    const rule = 'embedding.content_hash: contains a lone surrogate'
    expect(refusal(() => embeddingHash(profile, '\ud800'))).toBe(rule)
    expect(refusal(() => embeddingHasher(profile)('\ud800'))).toBe(rule)
  })

  it('the fast hasher agrees with the canonical form, including non-ASCII models', () => {
    const unicode = makeEmbeddingProfile({ profileId: 'p', model: 'modèle-ü\u0301', dimension: 7 })
    for (const p of [profile, unicode]) {
      const fast = embeddingHasher(p)
      // Strings that JCS escapes or NFC changes must take the slow path, however hex-like.
      const escaped = ['"'.repeat(64), '\\' + hex('a'), hex('a') + '"', 'e\u0301'.repeat(32)]
      for (const h of [hex('0'), hex('f'), 'not-a-hex-hash', 'a', ...escaped]) {
        expect(fast(h)).toBe(embeddingHash(p, h))
      }
    }
  })
})

describe('cosine admission', () => {
  it('cosine = 1 − d²/2, clamped; null for missing distances', () => {
    expect(cosineFromL2(0)).toBe(1)
    expect(cosineFromL2(Math.SQRT2)).toBeCloseTo(0, 15)
    expect(cosineFromL2(2)).toBe(-1)
    expect(cosineFromL2(3)).toBe(-1)
    expect(cosineFromL2(null)).toBeNull()
    expect(cosineFromL2(undefined)).toBeNull()
    expect(cosineFromL2(NaN)).toBeNull()
  })

  it('admits exactly from the sqrt(2·(1 − 0.3)) boundary inwards', () => {
    const boundary = Math.sqrt(2 * (1 - VECTOR_MIN_COSINE))
    expect(admitsVector(boundary)).toBe(true)
    expect(admitsVector(boundary + 1e-9)).toBe(false)
    expect(admitsVector(0)).toBe(true)
    expect(admitsVector(null)).toBe(false)
  })
})

describe('DeterministicEmbedder (test tool)', () => {
  const embedder = new DeterministicEmbedder(384, 'unit')
  const cos = (a: readonly number[], b: readonly number[]) =>
    a.reduce((sum, x, i) => sum + x * (b[i] as number), 0)

  it('gives unit vectors of the profile dimension, the same for the same text', async () => {
    const [a, b] = await embedder.embed(['Red green blue', 'red GREEN blue'])
    expect(a).toHaveLength(384)
    expect(cos(a!, a!)).toBeCloseTo(1, 12)
    expect(cos(a!, b!)).toBeCloseTo(1, 12)
    expect(embedder.profile).toMatchObject({ profileId: 'unit', dimension: 384 })
  })

  it('texts sharing words are close; unrelated texts are not', async () => {
    const [a, b, c, empty] = await embedder.embed([
      'red green blue',
      'red yellow',
      'tax forms',
      '!!!',
    ])
    expect(cos(a!, b!)).toBeGreaterThan(VECTOR_MIN_COSINE)
    expect(Math.abs(cos(a!, c!))).toBeLessThan(VECTOR_MIN_COSINE)
    expect(empty).toHaveLength(384)
  })
})
