/**
 * Command rules (core/command-rules.ts): the option checks every surface shares — integer limits
 * at their bounds, source and memory refs (sorted, de-duplicated, each bad item named by its
 * path), state and kind filters and a legacy citation — and the field and message of each refusal.
 */
import { describe, expect, it } from 'vitest'

import {
  checkArtifactRef,
  checkArtifactRefs,
  checkKinds,
  checkLegacyCitation,
  checkLimit,
  checkSourceRefs,
  checkStates,
} from '../../src/core/command-rules.js'
import { refusal } from './refusal.js'

describe('checkLimit', () => {
  const range = { min: 1, max: 100, fallback: 20 }

  it('returns the fallback when absent and the value at and inside the bounds', () => {
    expect(checkLimit(undefined, 'limit', range)).toBe(20)
    expect(checkLimit(1, 'limit', range)).toBe(1)
    expect(checkLimit(50, 'limit', range)).toBe(50)
    expect(checkLimit(100, 'limit', range)).toBe(100)
  })

  it('refuses anything but a safe integer', () => {
    for (const bad of [null, '10', 1.5, Number.NaN, Infinity, 2 ** 53]) {
      expect(refusal(() => checkLimit(bad, 'limit', range))).toBe('limit: must be an integer')
    }
  })

  it('refuses values just outside the bounds, naming the range', () => {
    expect(refusal(() => checkLimit(0, 'top_k', range))).toBe('top_k: must be between 1 and 100')
    expect(refusal(() => checkLimit(101, 'top_k', range))).toBe('top_k: must be between 1 and 100')
  })
})

describe('checkSourceRefs', () => {
  it('reads absent and null as none', () => {
    expect(checkSourceRefs(undefined)).toEqual([])
    expect(checkSourceRefs(null)).toEqual([])
  })

  it('sorts and de-duplicates the refs', () => {
    const a = { name: 'content', sourceId: 'a' }
    const b = { name: 'content', sourceId: 'b' }
    expect(checkSourceRefs([b, a, b])).toEqual([a, b])
  })

  it('refuses a non-array and names each bad item by its path', () => {
    expect(refusal(() => checkSourceRefs('a'))).toBe('sources: must be an array')
    expect(refusal(() => checkSourceRefs({}, 'evidence'))).toBe('evidence: must be an array')
    const ok = { name: 'content', sourceId: 'a' }
    expect(refusal(() => checkSourceRefs([ok, null]))).toBe('sources[1]: must be an object')
    expect(refusal(() => checkSourceRefs([ok, 'a']))).toBe('sources[1]: must be an object')
    expect(refusal(() => checkSourceRefs([{ name: 'file', sourceId: 'a' }]))).toBe(
      'sources[0].name: must be one of content',
    )
    expect(refusal(() => checkSourceRefs([{ sourceId: 'a' }]))).toBe(
      'sources[0].name: must be one of content',
    )
    expect(refusal(() => checkSourceRefs([ok, { name: 'content', sourceId: 'a\tb' }], 'ev'))).toBe(
      'ev[1].source_id: must be text without control characters',
    )
    expect(refusal(() => checkSourceRefs([{ name: 'content' }]))).toBe(
      'sources[0].source_id: must be a string',
    )
  })
})

describe('checkArtifactRefs', () => {
  it('reads absent and null as none, and sorts and de-duplicates', () => {
    expect(checkArtifactRefs(undefined)).toEqual([])
    expect(checkArtifactRefs(null)).toEqual([])
    const m1 = { artifactId: 'mem_a', revision: 2 }
    const m2 = { artifactId: 'mem_a', revision: 1 }
    const m3 = { artifactId: 'mem_0', revision: 5 }
    expect(checkArtifactRefs([m1, m2, m3, m1])).toEqual([m3, m2, m1])
  })

  it('refuses a non-array and names each bad item by its path', () => {
    expect(refusal(() => checkArtifactRefs('x'))).toBe('artifacts: must be an array')
    expect(refusal(() => checkArtifactRefs(1, 'inputs'))).toBe('inputs: must be an array')
    const ok = { artifactId: 'mem_a', revision: 1 }
    expect(refusal(() => checkArtifactRefs([ok, 7]))).toBe('artifacts[1]: must be an object')
    expect(refusal(() => checkArtifactRefs([ok, { artifactId: 'mem_b', revision: 0 }]))).toBe(
      'artifacts[1].revision: must be an integer ≥ 1',
    )
    expect(refusal(() => checkArtifactRefs([{ revision: 1 }], 'inputs'))).toBe(
      'inputs[0].artifact_id: must be a string',
    )
  })
})

describe('checkArtifactRef', () => {
  it('returns the id and revision', () => {
    expect(checkArtifactRef({ artifactId: 'mem_a', revision: 3, extra: 1 })).toEqual({
      artifactId: 'mem_a',
      revision: 3,
    })
  })

  it('names the field of each refusal', () => {
    expect(refusal(() => checkArtifactRef(null))).toBe('memory_ref: must be an object')
    expect(refusal(() => checkArtifactRef('mem_a', 'target'))).toBe('target: must be an object')
    expect(refusal(() => checkArtifactRef({ artifactId: '', revision: 1 }))).toBe(
      'memory_ref.artifact_id: must be 1–128 characters',
    )
    expect(refusal(() => checkArtifactRef({ artifactId: 'mem_a', revision: 1.5 }, 't'))).toBe(
      't.revision: must be an integer ≥ 1',
    )
  })
})

describe('checkStates', () => {
  it('defaults to active and de-duplicates, keeping first-seen order', () => {
    expect(checkStates(undefined)).toEqual(['active'])
    expect(checkStates(['merged', 'active', 'merged'])).toEqual(['merged', 'active'])
    expect(checkStates(['active', 'forgotten', 'merged', 'retired'])).toEqual([
      'active',
      'forgotten',
      'merged',
      'retired',
    ])
  })

  it('refuses an empty or non-array filter and unknown states', () => {
    expect(refusal(() => checkStates([]))).toBe('states: must be a non-empty array')
    expect(refusal(() => checkStates('active', 'state'))).toBe('state: must be a non-empty array')
    expect(refusal(() => checkStates(null))).toBe('states: must be a non-empty array')
    expect(refusal(() => checkStates(['active', 'deleted']))).toBe(
      'states: must contain only active, forgotten, merged, retired',
    )
  })
})

describe('checkKinds', () => {
  it('reads absent as all kinds and normalises and de-duplicates the rest', () => {
    expect(checkKinds(undefined)).toBeUndefined()
    expect(checkKinds([' fact ', 'fact', 'decision'])).toEqual(['fact', 'decision'])
    expect(checkKinds(['Cafe\u0301'])).toEqual(['Café'])
    const many = Array.from({ length: 32 }, (_, i) => `k${i}`)
    expect(checkKinds(many)).toEqual(many)
  })

  it('refuses an empty, non-array or too long list and names a bad kind by its index', () => {
    const range = 'kinds: must be an array of 1–32 kinds'
    expect(refusal(() => checkKinds([]))).toBe(range)
    expect(refusal(() => checkKinds('fact'))).toBe(range)
    expect(refusal(() => checkKinds(Array.from({ length: 33 }, (_, i) => `k${i}`)))).toBe(range)
    expect(refusal(() => checkKinds(null, 'kind_filter'))).toBe(
      'kind_filter: must be an array of 1–32 kinds',
    )
    expect(refusal(() => checkKinds(['fact', '  ']))).toBe('kinds[1]: must not be blank')
    expect(refusal(() => checkKinds(['fact', 3], 'k'))).toBe('k[1]: must be a string')
  })
})

describe('checkLegacyCitation', () => {
  const citation = {
    memoryRef: { family: 'memory', artifactId: 'memory', revision: 4 },
    entryId: 'ent_1',
    entryVersionId: 'ev_1',
  }

  it('returns the collection memory, its revision and the entry ids', () => {
    const expected = {
      memoryArtifactId: 'memory',
      memoryRevision: 4,
      entryId: 'ent_1',
      entryVersionId: 'ev_1',
    }
    expect(checkLegacyCitation(citation)).toEqual(expected)
    const { family: _family, ...noFamily } = citation.memoryRef
    expect(checkLegacyCitation({ ...citation, memoryRef: noFamily })).toEqual(expected)
  })

  it('names the field of each refusal', () => {
    expect(refusal(() => checkLegacyCitation(null))).toBe('legacy_citation: must be an object')
    expect(refusal(() => checkLegacyCitation('x', 'cite'))).toBe('cite: must be an object')
    expect(refusal(() => checkLegacyCitation({ ...citation, memoryRef: null }))).toBe(
      'legacy_citation.memory_ref: must be an object',
    )
    expect(refusal(() => checkLegacyCitation({ ...citation, memoryRef: 'memory' }, 'c'))).toBe(
      'c.memory_ref: must be an object',
    )
    const ref = citation.memoryRef
    expect(
      refusal(() => checkLegacyCitation({ ...citation, memoryRef: { ...ref, family: 'notes' } })),
    ).toBe('legacy_citation.memory_ref.family: must be memory')
    expect(
      refusal(() => checkLegacyCitation({ ...citation, memoryRef: { ...ref, family: null } })),
    ).toBe('legacy_citation.memory_ref.family: must be memory')
    expect(
      refusal(() => checkLegacyCitation({ ...citation, memoryRef: { ...ref, artifactId: 1 } })),
    ).toBe('legacy_citation.memory_ref.artifact_id: must be a string')
    expect(
      refusal(() => checkLegacyCitation({ ...citation, memoryRef: { ...ref, revision: 0 } })),
    ).toBe('legacy_citation.memory_ref.revision: must be an integer ≥ 1')
    expect(refusal(() => checkLegacyCitation({ ...citation, entryId: '' }))).toBe(
      'legacy_citation.entry_id: must be 1–128 characters',
    )
    expect(refusal(() => checkLegacyCitation({ ...citation, entryVersionId: 'a b' }))).toBe(
      'legacy_citation.entry_version_id: must be printable ASCII without spaces',
    )
  })
})
