/* Conformance: `recent`, the multi-scope read behind prepared context's session brief — active
 * memories of several scopes in one snapshot, newest change first, kind filter, bounds. */
import { setTimeout as sleep } from 'node:timers/promises'

import { expect } from 'vitest'

import type { ConformanceSuite } from './harness.case.js'
import { expectCode, expectInvalidField, newScope, rememberOne, unsafe } from './harness.case.js'

const BRIEF = ['constraint', 'decision', 'preference']

export function recentArea(suite: ConformanceSuite): void {
  suite.area('recent', (t) => {
    t.test('active memories of several scopes, newest change first, by kind', async () => {
      const [a, b, other] = [newScope('recent-a'), newScope('recent-b'), newScope('recent-c')]
      // Stamps have millisecond resolution: keep each write in its own millisecond.
      const step = async <T>(work: () => Promise<T>): Promise<T> => {
        await sleep(3)
        return work()
      }
      const rule = await step(() =>
        rememberOne(t.backend, a, { kind: 'constraint', text: 'no force pushes' }),
      )
      const fact = await step(() =>
        rememberOne(t.backend, a, { kind: 'fact', text: 'CI takes six minutes' }),
      )
      const pref = await step(() =>
        rememberOne(t.backend, b, { kind: 'preference', text: 'short commit messages' }),
      )
      const choice = await step(() =>
        rememberOne(t.backend, a, { kind: 'decision', text: 'pnpm, not npm' }),
      )
      await step(() =>
        rememberOne(t.backend, other, { kind: 'constraint', text: 'other scope rule' }),
      )
      const updated = await step(() =>
        t.backend.update({
          scopeId: a,
          memoryRef: rule.memoryRef,
          text: 'never force-push to main',
        }),
      )
      const gone = await step(() =>
        rememberOne(t.backend, a, { kind: 'decision', text: 'tabs over spaces' }),
      )
      await step(() => t.backend.forget({ scopeId: a, memoryId: gone.memoryRef.artifactId }))

      const brief = await t.backend.recent({ scopeIds: [a, b], kinds: BRIEF })
      expect(brief.memories.map((m) => [m.memoryRef, m.scopeId, m.state])).toEqual([
        [updated.memory.memoryRef, a, 'active'],
        [choice.memoryRef, a, 'active'],
        [pref.memoryRef, b, 'active'],
      ])
      expect(brief.memories[0]!.text).toBe('never force-push to main')

      const all = await t.backend.recent({ scopeIds: [b, a, a] })
      expect(all.memories.map((m) => m.memoryRef.artifactId)).toEqual([
        rule.memoryRef.artifactId,
        choice.memoryRef.artifactId,
        pref.memoryRef.artifactId,
        fact.memoryRef.artifactId,
      ])
      const two = await t.backend.recent({ scopeIds: [a, b], limit: 2 })
      expect(two.memories).toHaveLength(2)

      // Coming back to active is a change: the restored memory is the newest.
      await sleep(3)
      await t.backend.restore({ scopeId: a, memoryId: gone.memoryRef.artifactId })
      const after = await t.backend.recent({ scopeIds: [a], kinds: ['decision'] })
      expect(after.memories.map((m) => m.memoryRef.artifactId)).toEqual([
        gone.memoryRef.artifactId,
        choice.memoryRef.artifactId,
      ])
      expect((await t.backend.recent({ scopeIds: [newScope('recent-empty')] })).memories).toEqual(
        [],
      )
    })

    t.test('bounds: 1–9 scope ids, valid kinds, limit 1–100', async () => {
      const a = newScope('recent-bad')
      const ten = Array.from({ length: 10 }, (_, i) => `${a}/${i}`)
      for (const scopeIds of [[], ten, unsafe<string[]>(a)]) {
        await expectInvalidField(
          t.backend.recent({ scopeIds }),
          'scope_ids',
          'must hold 1–9 scope ids',
        )
      }
      expect((await t.backend.recent({ scopeIds: ten.slice(0, 9) })).memories).toEqual([])
      await expectInvalidField(
        t.backend.recent({ scopeIds: [a, 'has space'] }),
        'scope_ids[1]',
        'must be printable ASCII without spaces',
      )
      await expectCode(t.backend.recent({ scopeIds: [a], kinds: [] }), 'invalid_request')
      await expectInvalidField(
        t.backend.recent({ scopeIds: [a], limit: 0 }),
        'limit',
        'must be between 1 and 100',
      )
      await expectCode(t.backend.recent({ scopeIds: [a], limit: 101 }), 'invalid_request')
    })
  })
}
