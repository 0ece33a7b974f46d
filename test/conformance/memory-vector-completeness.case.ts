/* Conformance: vector completeness compares every head's vector row, not a count. */
import { expect } from 'vitest'

import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import type { Area } from './harness.case.js'
import { expectCode, newScope, rememberOne } from './harness.case.js'

/** Tests that alter a stored hash behind the backend's back (a backend that cannot skips them). */
export const ALTER_HASH_TESTS = [
  'vector > completeness > an altered embedding hash is never a hit, and a new process refuses vector search for the scope',
]

export function vectorCompletenessTests(t: Area): void {
  t.group('completeness', () => {
    t.test(ALTER_HASH_TESTS[0]!.split(' > ').at(-1)!, async () => {
      const key = newScope('alter').replace(/\W/g, '')
      const embedder = new DeterministicEmbedder(384, 'conformance')
      const scopeId = newScope()
      const backend = await t.open({ reuse: key, embedder })
      const kept = await rememberOne(backend, scopeId, { kind: 'fact', text: 'heron nest reeds' })
      const altered = await rememberOne(backend, scopeId, {
        kind: 'fact',
        text: 'heron nest twigs',
      })
      const idsOf = (r: { hits: readonly { memoryRef: { artifactId: string } }[] }) =>
        r.hits.map((h) => h.memoryRef.artifactId).sort()
      expect((await backend.search({ scopeId, query: 'heron nest', mode: 'auto' })).mode).toBe(
        'hybrid',
      )
      await t.alterEmbeddingHash(backend, altered.memoryRef.artifactId)

      // This process still holds "complete" for the scope (nothing it can see moved): the per-hit
      // re-check is what keeps the altered vector out of every answer.
      const stale = await backend.search({ scopeId, query: 'heron nest twigs', mode: 'vector' })
      expect(stale.mode).toBe('vector')
      expect(idsOf(stale)).toEqual([kept.memoryRef.artifactId])

      // A new process compares every head: the scope is incomplete.
      const fresh = await t.open({ reuse: key, embedder })
      const auto = await fresh.search({ scopeId, query: 'heron nest', mode: 'auto' })
      expect(auto.mode).toBe('fts')
      expect(idsOf(auto)).toEqual([kept.memoryRef.artifactId, altered.memoryRef.artifactId].sort())
      for (const mode of ['vector', 'hybrid'] as const) {
        const err = await expectCode(
          fresh.search({ scopeId, query: 'heron nest', mode }),
          'capability_not_supported',
        )
        expect(err.details).toEqual({ capability: mode, scope_id: scopeId })
        expect(err.message).toContain(scopeId)
      }
      expect((await fresh.verify()).problems).toEqual([
        `memory ${altered.memoryRef.artifactId}: stale vector (does not match version 1)`,
      ])
      expect(await fresh.reindex()).toMatchObject({ embedded: 1, remaining: 0, error: null })
      expect((await fresh.search({ scopeId, query: 'heron nest', mode: 'auto' })).mode).toBe(
        'hybrid',
      )
      expect((await fresh.verify()).problems).toEqual([])
    })
  })
}
