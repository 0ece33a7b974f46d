/* Conformance: the journal's `related` search (retrieve-then-decide) says whether its hits are
 * every admitted match of the scope — false when the limit cut admitted hits, or when the full-text
 * candidate pool was full (candidates past it were never read), even with no hit admitted. */
import { expect } from 'vitest'

import type { ConformanceSuite } from './harness.case.js'
import { newScope } from './harness.case.js'

export function relatedArea(suite: ConformanceSuite): void {
  suite.area('related search', (t) => {
    const related = (scopeId: string, query: string, limit: number) =>
      t.backend.journal.related({ scopeId, query, limit })

    t.test('complete only when a larger limit could find nothing more', async () => {
      const scopeId = newScope()
      const { results } = await t.backend.remember({
        scopeId,
        entries: ['alpha beta one', 'alpha beta two', 'alpha beta three'].map((text) => ({
          kind: 'fact',
          text,
        })),
      })
      const cut = await related(scopeId, 'alpha beta', 2)
      expect([cut.hits.length, cut.complete]).toEqual([2, false])
      const all = await related(scopeId, 'alpha beta', 3)
      expect(all.complete).toBe(true)
      expect(all.hits.map((h) => h.memoryRef.artifactId).sort()).toEqual(
        results.map((r) => r.memory.memoryRef.artifactId).sort(),
      )
      expect((await related(scopeId, 'gamma', 5)).complete).toBe(true)
    })

    t.test('a full candidate pool is not the end, even without an admitted hit', async () => {
      const scopeId = newScope()
      // Each memory shares one of three query words: none passes admission (two shared words),
      // and a limit of 20 reads a pool of 80 of the 100 candidates.
      const words = ['pnpm', 'workspace', 'yaml']
      await t.backend.remember({
        scopeId,
        entries: Array.from({ length: 100 }, (_, i) => ({
          kind: 'fact',
          text: `${words[i % 3]} v${i}`,
        })),
      })
      const query = 'pnpm workspace yaml'
      expect(await related(scopeId, query, 20)).toMatchObject({ hits: [], complete: false })
      expect(await related(scopeId, query, 40)).toMatchObject({ hits: [], complete: true })
    })
  })
}
