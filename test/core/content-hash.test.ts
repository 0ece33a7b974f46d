/**
 * Content hashes (core/content-hash.ts, docs/memory-model.md): the wire form of refs, refs in one canonical
 * order without duplicates, the canonical bytes of a version's content, and its domain-separated
 * SHA-256 pinned to a golden value (changing it is a migration).
 */
import { createHash } from 'node:crypto'

import { describe, expect, it } from 'vitest'

import {
  artifactRefJson,
  canonicalContent,
  contentHash,
  hashCanonicalContent,
  normalizeArtifactRefs,
  normalizeSourceRefs,
  sameContent,
  sourceRefJson,
  VERSION_CONTENT_DOMAIN,
} from '../../src/core/content-hash.js'
import type { VersionContent } from '../../src/core/memory-model.js'
import { refusal } from './refusal.js'

const content = (over: Partial<VersionContent> = {}): VersionContent => ({
  kind: 'fact',
  text: 'The build uses Node 22.',
  sources: [
    { name: 'content', sourceId: 'src-b' },
    { name: 'content', sourceId: 'src-a' },
  ],
  artifacts: [
    { artifactId: 'mem_b', revision: 1 },
    { artifactId: 'mem_a', revision: 2 },
  ],
  observedAt: '2026-12-02T10:00:00Z',
  ...over,
})

const CANONICAL =
  '{"artifacts":[{"artifact_id":"mem_a","revision":2},{"artifact_id":"mem_b","revision":1}],' +
  '"kind":"fact","observed_at":"2026-12-02T10:00:00Z",' +
  '"sources":[{"name":"content","source_id":"src-a"},{"name":"content","source_id":"src-b"}],' +
  '"text":"The build uses Node 22."}'

describe('refs', () => {
  it('have a snake_case wire form', () => {
    expect(sourceRefJson({ name: 'content', sourceId: 's' })).toEqual({
      name: 'content',
      source_id: 's',
    })
    expect(artifactRefJson({ artifactId: 'mem_a', revision: 3 })).toEqual({
      artifact_id: 'mem_a',
      revision: 3,
    })
  })

  it('are sorted by canonical bytes and de-duplicated, source ids in NFC', () => {
    expect(
      normalizeSourceRefs([
        { name: 'content', sourceId: 'b' },
        { name: 'content', sourceId: 'caf\u00e9' },
        { name: 'content', sourceId: 'cafe\u0301' },
        { name: 'content', sourceId: 'a' },
        { name: 'content', sourceId: 'b' },
      ]),
    ).toEqual([
      { name: 'content', sourceId: 'a' },
      { name: 'content', sourceId: 'b' },
      { name: 'content', sourceId: 'caf\u00e9' },
    ])
    expect(
      normalizeArtifactRefs([
        { artifactId: 'mem_b', revision: 1 },
        { artifactId: 'mem_a', revision: 10 },
        { artifactId: 'mem_a', revision: 9 },
        { artifactId: 'mem_b', revision: 1 },
      ]),
    ).toEqual([
      { artifactId: 'mem_a', revision: 10 },
      { artifactId: 'mem_a', revision: 9 },
      { artifactId: 'mem_b', revision: 1 },
    ])
    expect(normalizeSourceRefs([])).toEqual([])
  })
  it('name the offending ref by its path when it is not canonical JSON', () => {
    expect(
      refusal(() =>
        normalizeArtifactRefs([
          { artifactId: 'a', revision: 1 },
          { artifactId: 'b', revision: Number.NaN },
        ]),
      ),
    ).toBe('artifacts[1].revision: must be a finite number')
    expect(refusal(() => normalizeSourceRefs([{ name: 'content', sourceId: 'x\ud800' }]))).toBe(
      'sources[0].source_id: contains a lone surrogate',
    )
  })
})

describe('canonical content and its hash', () => {
  it('writes the content as RFC 8785 JSON with refs in canonical order', () => {
    expect(canonicalContent(content())).toBe(CANONICAL)
    expect(canonicalContent(content({ sources: [], artifacts: [], observedAt: null }))).toBe(
      '{"artifacts":[],"kind":"fact","observed_at":null,"sources":[],"text":"The build uses Node 22."}',
    )
  })

  it('names the content field that is not canonical JSON', () => {
    expect(refusal(() => canonicalContent(content({ text: 'a\ud800' })))).toBe(
      'content.text: contains a lone surrogate',
    )
  })

  it('hashes the domain prefix, a NUL and the canonical bytes with SHA-256', () => {
    expect(VERSION_CONTENT_DOMAIN).toBe('powercontext:memory-version-content:v1')
    const expected = createHash('sha256')
      .update(`powercontext:memory-version-content:v1\u0000${CANONICAL}`)
      .digest('hex')
    expect(hashCanonicalContent(CANONICAL)).toBe(expected)
    expect(contentHash(content())).toBe(expected)
    expect(hashCanonicalContent('')).toBe(
      createHash('sha256').update('powercontext:memory-version-content:v1\u0000').digest('hex'),
    )
    expect(contentHash(content())).toMatch(/^[0-9a-f]{64}$/)
  })

  it('is pinned: the hash of a fixed content never changes', () => {
    expect(contentHash(content())).toBe(
      'd8c6453d1b529985be041563064103b94cc28d39acaa962f9cf4b16e963eed74',
    )
  })

  it('calls contents the same when they differ only in ref order or duplicates', () => {
    const a = content()
    const b = content({
      sources: [...a.sources].reverse().concat(a.sources),
      artifacts: [...a.artifacts].reverse(),
    })
    expect(sameContent(a, b)).toBe(true)
    expect(contentHash(a)).toBe(contentHash(b))
    for (const other of [
      content({ kind: 'decision' }),
      content({ text: 'The build uses Node 20.' }),
      content({ observedAt: null }),
      content({ sources: a.sources.slice(1) }),
      content({ artifacts: [{ artifactId: 'mem_a', revision: 3 }] }),
    ]) {
      expect(sameContent(a, other)).toBe(false)
      expect(contentHash(other)).not.toBe(contentHash(a))
    }
  })
})
