/* Conformance: `list` (keyset pages, filters) and `changes` (the per-scope change log). */
import { expect } from 'vitest'

import type { Memory } from '../../src/core/memory-model.js'
import type { ConformanceSuite } from './harness.case.js'
import { ALL_STATES, expectCode, newScope, rememberOne } from './harness.case.js'

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export function listArea(suite: ConformanceSuite): void {
  suite.area('list', (t) => {
    async function fiveMemories(scopeId: string): Promise<Memory[]> {
      const { results } = await t.backend.remember({
        scopeId,
        entries: ['one', 'two', 'three', 'four', 'five'].map((w, i) => ({
          kind: i % 2 === 0 ? 'fact' : 'decision',
          text: `listed ${w}`,
        })),
      })
      return results.map((r) => r.memory)
    }

    t.test('lists active memories by default; states and kinds filter', async () => {
      const scopeId = newScope()
      const [a, b, c, d] = await fiveMemories(scopeId)
      await t.backend.forget({ scopeId, memoryId: b!.memoryRef.artifactId })
      await t.backend.forget({ scopeId, memoryId: c!.memoryRef.artifactId })
      const ids = async (q: Omit<Parameters<typeof t.backend.list>[0], 'scopeId'>) =>
        (await t.backend.list({ scopeId, ...q })).memories.map((m) => m.memoryRef.artifactId)
      const id = (m: Memory | undefined) => m!.memoryRef.artifactId
      const all = (await t.backend.list({ scopeId, states: ALL_STATES })).memories
      expect(all).toHaveLength(5)
      const active = all.filter((m) => m.state === 'active').map(id)
      expect(active).toHaveLength(3)
      expect(await ids({})).toEqual(active)
      expect(await ids({ states: ['active'] })).toEqual(active)
      expect(await ids({ states: ['forgotten'] })).toEqual([id(b), id(c)].sort(byId))
      expect(await ids({ states: ['merged', 'retired'] })).toEqual([])
      expect(await ids({ kinds: ['decision'] })).toEqual([id(d)])
      expect(await ids({ kinds: ['decision'], states: ALL_STATES })).toEqual(
        [id(b), id(d)].sort(byId),
      )
      expect(await ids({ kinds: ['fact', 'decision'] })).toEqual(active)
      expect(await ids({ kinds: ['unknown_kind'] })).toEqual([])
      expect(await ids({ states: ['forgotten'], kinds: ['fact'] })).toEqual([id(c)])
      const stateOf = new Map(all.map((m) => [id(m), m.state]))
      expect([a, b, c, d].map((m) => stateOf.get(id(m)))).toEqual([
        'active',
        'forgotten',
        'forgotten',
        'active',
      ])
    })

    t.test('pages by memory id with an exclusive keyset cursor', async () => {
      const scopeId = newScope()
      const created = await fiveMemories(scopeId)
      const expected = created.map((m) => m.memoryRef.artifactId).sort(byId)
      const pages: string[][] = []
      let after: string | undefined
      for (let i = 0; i < 10; i++) {
        const page = await t.backend.list({ scopeId, limit: 2, ...(after ? { after } : {}) })
        pages.push(page.memories.map((m) => m.memoryRef.artifactId))
        if (page.nextAfter === null) break
        expect(page.nextAfter).toBe(pages.at(-1)!.at(-1))
        after = page.nextAfter
      }
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1])
      expect(pages.flat()).toEqual(expected)
      const rest = await t.backend.list({ scopeId, after: expected[1]! })
      expect(rest.memories.map((m) => m.memoryRef.artifactId)).toEqual(expected.slice(2))
      expect(rest.nextAfter).toBeNull()
      const exact = await t.backend.list({ scopeId, limit: 5 })
      expect(exact.memories).toHaveLength(5)
      expect(exact.nextAfter).toBeNull()
      const past = await t.backend.list({ scopeId, after: expected[4]! })
      expect(past).toEqual({ memories: [], nextAfter: null })
    })

    t.test('shows each memory at its current version', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'listed at v1' })
      const v2 = await t.backend.update({ scopeId, memoryRef: m.memoryRef, text: 'listed at v2' })
      expect((await t.backend.list({ scopeId })).memories).toEqual([v2.memory])
    })

    t.test('page size defaults to 100 and is bounded to 1..500', async () => {
      const scopeId = newScope()
      for (let batch = 0; batch < 2; batch++) {
        await t.backend.remember({
          scopeId,
          entries: Array.from({ length: 51 }, (_, i) => ({
            kind: 'fact',
            text: `page ${batch} ${i}`,
          })),
        })
      }
      const first = await t.backend.list({ scopeId })
      expect(first.memories).toHaveLength(100)
      expect(first.nextAfter).toBe(first.memories.at(-1)!.memoryRef.artifactId)
      expect((await t.backend.list({ scopeId, limit: 500 })).memories).toHaveLength(102)
      expect((await t.backend.list({ scopeId, limit: 1 })).memories).toHaveLength(1)
      for (const limit of [0, 501, -1, 1.5]) {
        await expectCode(t.backend.list({ scopeId, limit }), 'invalid_request')
      }
    })
  })
}

export function changesArea(suite: ConformanceSuite): void {
  suite.area('changes', (t) => {
    t.test('sequence numbers start at 1 and are contiguous; since is exclusive', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'seq one' })
      await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'seq two' })
      await t.backend.update({ scopeId, memoryRef: m.memoryRef, text: 'seq one again' })
      await t.backend.forget({ scopeId, memoryId: m.memoryRef.artifactId })
      const all = await t.backend.changes({ scopeId, since: 0 })
      expect(all.changes.map((c) => c.seq)).toEqual([1, 2, 3, 4])
      expect(all.headSeq).toBe(4)
      const after2 = await t.backend.changes({ scopeId, since: 2 })
      expect(after2.changes).toEqual(all.changes.slice(2))
      expect(after2.headSeq).toBe(4)
      expect(all).toMatchObject({ hasMore: false, nextSince: 4 })
      expect(await t.backend.changes({ scopeId, since: 4 })).toEqual({
        changes: [],
        headSeq: 4,
        hasMore: false,
        nextSince: 4,
      })
      const limited = await t.backend.changes({ scopeId, since: 0, limit: 3 })
      expect(limited.changes).toEqual(all.changes.slice(0, 3))
      expect(limited).toMatchObject({ headSeq: 4, hasMore: true, nextSince: 3 })
      const exact = await t.backend.changes({ scopeId, since: 0, limit: 4 })
      expect(exact).toMatchObject({ headSeq: 4, hasMore: false, nextSince: 4 })
    })

    t.test('since beyond the head is invalid_request naming since', async () => {
      const scopeId = newScope()
      await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'head one' })
      const err = await expectCode(t.backend.changes({ scopeId, since: 2 }), 'invalid_request')
      const message = "2 is beyond the scope's last change (head_seq 1)"
      expect(err.details?.['errors']).toEqual([{ field: 'since', message }])
      expect(err.message).toBe(`since: ${message}`)
      await expectCode(t.backend.changes({ scopeId: newScope(), since: 1 }), 'invalid_request')
      expect((await t.backend.changes({ scopeId: newScope(), since: 0 })).changes).toEqual([])
    })

    t.test(
      'more than 1,000 changes are paged explicitly and the pages join into the whole log',
      async () => {
        const scopeId = newScope()
        for (let b = 0; b < 25; b++) {
          await t.backend.remember({
            scopeId,
            entries: Array.from({ length: 50 }, (_, i) => ({
              kind: 'fact',
              text: `paged change ${b} ${i}`,
            })),
          })
        }
        const first = await t.backend.changes({ scopeId, since: 0 })
        expect(first.changes).toHaveLength(1000)
        expect(first).toMatchObject({ headSeq: 1250, hasMore: true, nextSince: 1000 })
        const seqs: number[] = first.changes.map((c) => c.seq)
        for (let page = first; page.hasMore;) {
          page = await t.backend.changes({ scopeId, since: page.nextSince, limit: 100 })
          seqs.push(...page.changes.map((c) => c.seq))
          if (!page.hasMore) expect(page.nextSince).toBe(1250)
        }
        expect(seqs).toEqual(Array.from({ length: 1250 }, (_, i) => i + 1))
        const whole = await t.backend.changes({ scopeId, since: 0, limit: 10000 })
        expect(whole).toMatchObject({ hasMore: false, nextSince: 1250 })
        expect(whole.changes).toHaveLength(1250)
      },
      120_000,
    )

    t.test('rows carry op, revisions and states for add/update/forget/restore', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'op row' })
      const memoryId = m.memoryRef.artifactId
      await t.backend.update({ scopeId, memoryRef: m.memoryRef, text: 'op row two' })
      await t.backend.forget({ scopeId, memoryId })
      await t.backend.restore({ scopeId, memoryId })
      const { changes } = await t.backend.changes({ scopeId, since: 0 })
      expect(
        changes.map((c) => [
          c.op,
          c.memoryId,
          c.fromRevision,
          c.toRevision,
          c.fromState,
          c.toState,
        ]),
      ).toEqual([
        ['add', memoryId, null, 1, null, 'active'],
        ['update', memoryId, 1, 2, 'active', 'active'],
        ['forget', memoryId, 2, 2, 'active', 'forgotten'],
        ['restore', memoryId, 2, 2, 'forgotten', 'active'],
      ])
      for (const c of changes) {
        expect(new Date(c.at).toISOString()).toBe(c.at)
        expect(typeof c.operationId).toBe('string')
        expect(c.operationId.length).toBeGreaterThan(0)
      }
      expect(new Set(changes.map((c) => c.operationId)).size).toBe(4)
    })

    t.test('the rows of one request share one operation id', async () => {
      const scopeId = newScope()
      await t.backend.remember({
        scopeId,
        entries: [
          { kind: 'fact', text: 'op batch a' },
          { kind: 'fact', text: 'op batch b' },
        ],
      })
      await t.backend.remember({ scopeId, entries: [{ kind: 'fact', text: 'op batch c' }] })
      const { changes } = await t.backend.changes({ scopeId, since: 0 })
      expect(changes).toHaveLength(3)
      expect(changes[0]!.operationId).toBe(changes[1]!.operationId)
      expect(changes[2]!.operationId).not.toBe(changes[0]!.operationId)
    })

    t.test('rows never contain memory text', async () => {
      const scopeId = newScope()
      const text = 'secret-marker-7f3a never leaks'
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text, reason: 'r' })
      await t.backend.update({ scopeId, memoryRef: m.memoryRef, text: `${text} twice` })
      const { changes } = await t.backend.changes({ scopeId, since: 0 })
      expect(changes).toHaveLength(2)
      for (const row of changes) {
        expect(row).not.toHaveProperty('text')
        expect(JSON.stringify(row)).not.toContain('secret-marker-7f3a')
      }
    })

    t.test('scopes have independent sequences', async () => {
      const a = newScope()
      const b = newScope()
      await rememberOne(t.backend, a, { kind: 'fact', text: 'scope a first' })
      await rememberOne(t.backend, a, { kind: 'fact', text: 'scope a second' })
      await rememberOne(t.backend, b, { kind: 'fact', text: 'scope b first' })
      const ca = await t.backend.changes({ scopeId: a, since: 0 })
      const cb = await t.backend.changes({ scopeId: b, since: 0 })
      expect(ca.changes.map((c) => c.seq)).toEqual([1, 2])
      expect(cb.changes.map((c) => c.seq)).toEqual([1])
      expect(cb.headSeq).toBe(1)
      expect(await t.backend.changes({ scopeId: newScope(), since: 0 })).toEqual({
        changes: [],
        headSeq: 0,
        hasMore: false,
        nextSince: 0,
      })
    })

    t.test('since must be an integer ≥ 0 and limit 1..10000', async () => {
      const scopeId = newScope()
      for (const since of [-1, 1.5, Number.NaN]) {
        await expectCode(t.backend.changes({ scopeId, since }), 'invalid_request')
      }
      for (const limit of [0, 10_001]) {
        await expectCode(t.backend.changes({ scopeId, since: 0, limit }), 'invalid_request')
      }
      expect((await t.backend.changes({ scopeId, since: 0, limit: 10_000 })).headSeq).toBe(0)
    })
  })
}
