/*
 * Conformance: restore of merged and merge-result memories (docs/memory-model.md, docs/merges.md:
 * preview, then restore). Restoring an input undoes every effective merge above it in one operation:
 * inputs come back at their frozen versions, results are retired with all their versions; a
 * forgotten result comes back alone; `toRevision` undoes only the merges above the target.
 */
import { expect } from 'vitest'

import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import type { ConformanceSuite } from './harness.case.js'
import { expectCode } from './harness.case.js'
import { rowsOf, Scene, scopeState } from './merge-scene.case.js'

/** A, B → C; C, D → E (a chain of two merges), with A and D at version 2. */
export async function chainScene(backend: MemoryBackend): Promise<Scene> {
  const s = new Scene(backend)
  await s.addAll('A aardvark', 'B bison', 'D dingo')
  await s.update('A', 'anteater')
  await s.update('D', 'dormouse')
  await s.merge('C', ['A', 'B'], 'cheetah')
  await s.merge('E', ['C', 'D'], 'emu')
  await s.expectStates('A:merged@2 B:merged@1 C:merged@1 D:merged@2 E:active@1')
  return s
}

export function mergeRestoreArea(suite: ConformanceSuite): void {
  suite.area('restore of merges', (t) => {
    t.test('a forgotten merge result comes back alone; its inputs stay merged', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A alpaca', 'B beetle')
      await s.merge('C', ['A', 'B'], 'cricket')
      await t.backend.forget({ scopeId, memoryId: s.id('C') })
      await s.expectStates('A:merged B:merged C:forgotten@1')
      const since = await s.head()
      const res = await t.backend.restore({ scopeId, memoryId: s.id('C') })
      expect(res.status).toBe('restored')
      expect(s.refs([res.memory])).toEqual(['C@1'])
      expect(s.refs(res.restored)).toEqual(['C@1'])
      expect(res.retired).toEqual([])
      expect(rowsOf(await s.rowsSince(since))).toEqual(
        rowsOf([s.row('restore', 'C', [1, 1], ['forgotten', 'active'])]),
      )
      await s.expectStates('A:merged@1 B:merged@1 C:active@1')
      const h = await t.backend.history({ scopeId, memoryId: s.id('A') })
      expect(h.merges.map((m) => m.state)).toEqual(['effective'])
    })

    t.test('restoring an input undoes the merge: C retired with its later versions', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A aardvark', 'B bison')
      const a2 = await s.update('A', 'anteater')
      const { mergeId } = await s.merge('C', ['A', 'B'], 'cheetah')
      await s.update('C', 'cormorant')
      const since = await s.head()
      const res = await t.backend.restore({ scopeId, memoryId: s.id('A'), reason: 'wrong merge' })
      expect(res.status).toBe('restored')
      expect(res.memory).toEqual(a2)
      expect(s.refs(res.restored)).toEqual(['A@2', 'B@1'])
      expect(res.restored.every((m) => m.state === 'active' && m.mergedInto === null)).toBe(true)
      expect(s.refs(res.retired)).toEqual(['C@2'])
      expect(res.retired[0]).toMatchObject({
        state: 'retired',
        mergedInto: null,
        text: 'cormorant',
      })
      await s.expectStates('A:active@2 B:active@1 C:retired@2')
      const rows = await s.rowsSince(since)
      expect(rows.every((r) => r.reason === 'wrong merge')).toBe(true)
      expect(rowsOf(rows)).toEqual(
        rowsOf([
          s.row('retire', 'C', [2, 2], ['active', 'retired']),
          s.row('unmerge', 'A', [2, 2], ['merged', 'active']),
          s.row('unmerge', 'B', [1, 1], ['merged', 'active']),
        ]),
      )
      // C's whole history stays readable; the merge record says it was undone, and by what.
      const hc = await t.backend.history({ scopeId, memoryId: s.id('C') })
      expect(hc.versions.map((v) => [v.text, v.state])).toEqual([
        ['cheetah', 'retired'],
        ['cormorant', 'retired'],
      ])
      expect(hc.merges).toMatchObject([{ mergeId, state: 'undone' }])
      expect(hc.merges[0]!.undoneOperationId).toBe(rows[0]!.operationId)
      expect(hc.merges[0]!.undoneAt).toBe(rows[0]!.at)
      const c1 = await t.backend.get({ scopeId, memoryId: s.id('C'), revision: 1 })
      expect(c1).toMatchObject({ state: 'retired', currentRevision: 2 })
      expect(s.refs(c1.memory.artifacts)).toEqual(['A@2', 'B@1'])
      // The effect holds: restoring either input again is unchanged.
      const before = await scopeState(t.backend, scopeId)
      for (const name of ['A', 'B']) {
        const again = await t.backend.restore({ scopeId, memoryId: s.id(name) })
        expect(again).toMatchObject({ status: 'unchanged', restored: [], retired: [] })
      }
      // Retired is terminal: no restore (with or without a version), preview, edit or merge.
      const memoryId = s.id('C')
      await expectCode(t.backend.restore({ scopeId, memoryId }), 'state_conflict')
      await expectCode(t.backend.restore({ scopeId, memoryId, toRevision: 1 }), 'state_conflict')
      await expectCode(t.backend.restorePreview({ scopeId, memoryId }), 'state_conflict')
      const c2 = { artifactId: memoryId, revision: 2 }
      await expectCode(t.backend.update({ scopeId, memoryRef: c2, text: 'x' }), 'state_conflict')
      await expectCode(t.backend.forget({ scopeId, memoryId }), 'state_conflict')
      await expectCode(s.merge('X', ['C', 'A'], 'xerus'), 'state_conflict')
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      await s.expectStates('A:active@2 B:active@1 C:retired@2')
    })

    t.test('undoing a merge retires its result whatever its state', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A alpaca', 'B beetle')
      await s.merge('C', ['A', 'B'], 'cricket')
      await t.backend.forget({ scopeId, memoryId: s.id('C') })
      const preview = await t.backend.restorePreview({ scopeId, memoryId: s.id('B') })
      expect(s.refs(preview.plan.restore)).toEqual(['A@1', 'B@1'])
      expect(s.refs(preview.plan.retire)).toEqual(['C@1'])
      expect(preview.plan.leavingSearch).toEqual([]) // C was not searchable
      const since = await s.head()
      const res = await t.backend.restore({ scopeId, memoryId: s.id('B') })
      expect(s.refs(res.retired)).toEqual(['C@1'])
      expect(rowsOf(await s.rowsSince(since))).toEqual(
        rowsOf([
          s.row('retire', 'C', [1, 1], ['forgotten', 'retired']),
          s.row('unmerge', 'A', [1, 1], ['merged', 'active']),
          s.row('unmerge', 'B', [1, 1], ['merged', 'active']),
        ]),
      )
      await s.expectStates('A:active@1 B:active@1 C:retired@1')
    })

    t.test('restoring B of A,B→C; C,D→E undoes E then C in one operation', async () => {
      const s = await chainScene(t.backend)
      const { scopeId } = s
      const since = await s.head()
      const res = await t.backend.restore({ scopeId, memoryId: s.id('B') })
      expect(res.status).toBe('restored')
      expect(s.refs([res.memory])).toEqual(['B@1'])
      expect(s.refs(res.restored)).toEqual(['A@2', 'B@1', 'D@2'])
      expect(s.refs(res.retired)).toEqual(['C@1', 'E@1'])
      expect(res.retired.every((m) => m.state === 'retired')).toBe(true)
      await s.expectStates('A:active@2 B:active@1 C:retired@1 D:active@2 E:retired@1')
      const rows = await s.rowsSince(since)
      const of = (name: string) => rows.filter((r) => r.memoryId === s.id(name))
      for (const [name, revision] of [
        ['A', 2],
        ['B', 1],
        ['D', 2],
      ] as const) {
        expect(rowsOf(of(name))).toEqual(
          rowsOf([s.row('unmerge', name, [revision, revision], ['merged', 'active'])]),
        )
      }
      expect(rowsOf(of('E'))).toEqual(rowsOf([s.row('retire', 'E', [1, 1], ['active', 'retired'])]))
      // C may pass through active (brought back by E's undo) before its own undo retires it.
      expect(of('C').at(-1)).toMatchObject({ op: 'retire', toState: 'retired', toRevision: 1 })
      expect(of('C').every((r) => r.op === 'retire' || r.op === 'unmerge')).toBe(true)
      expect(rows.length).toBe(5 + of('C').length - 1)
      for (const name of ['C', 'E']) {
        const h = await t.backend.history({ scopeId, memoryId: s.id(name) })
        const own = h.merges.filter((m) => m.resultId === s.id(name))
        expect(own).toMatchObject([{ state: 'undone', undoneOperationId: rows[0]!.operationId }])
      }
    })

    t.test('an input that is itself a merge result comes back whole', async () => {
      for (const target of ['B', 'D']) {
        const s = new Scene(t.backend)
        const { scopeId } = s
        await s.addAll('A alpaca', 'B beetle', 'X xenops', 'Y yak')
        await s.merge('D', ['X', 'Y'], 'dugong')
        await s.merge('C', ['A', 'B'], 'cricket')
        await s.merge('E', ['C', 'D'], 'eagle')
        const res = await t.backend.restore({ scopeId, memoryId: s.id(target) })
        expect(s.names(res.retired)).toEqual(target === 'B' ? ['C', 'E'] : ['E'])
        expect(s.names(res.restored)).toEqual(target === 'B' ? ['A', 'B', 'D'] : ['C', 'D'])
        const ab = target === 'B' ? 'A:active B:active C:retired' : 'A:merged B:merged C:active'
        await s.expectStates(`${ab} D:active@1 E:retired X:merged@1 Y:merged@1`)
        expect((await s.current('X')).mergedInto).toBe(s.id('D'))
        // D's own merge is undone only by restoring one of its inputs.
        await t.backend.restore({ scopeId, memoryId: s.id('X') })
        await s.expectStates(`${ab} D:retired@1 E:retired X:active@1 Y:active@1`)
      }
    })

    t.test('restoring an old version of C under E undoes only E', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A alpaca', 'B beetle', 'D dingo')
      const { memory: c1 } = await s.merge('C', ['A', 'B'], 'cricket')
      await s.update('C', 'crane')
      await s.merge('E', ['C', 'D'], 'eagle')
      const since = await s.head()
      const res = await t.backend.restore({ scopeId, memoryId: s.id('C'), toRevision: 1 })
      expect(res.status).toBe('restored')
      const { text, kind, sources, artifacts, observedAt, contentHash } = c1
      expect(res.memory).toMatchObject({ text, kind, sources, artifacts, observedAt, contentHash })
      expect(res.memory).toMatchObject({ state: 'active', mergedInto: null })
      expect(s.refs(res.restored)).toEqual(['C@3', 'D@1'])
      expect(s.refs(res.retired)).toEqual(['E@1'])
      await s.expectStates('A:merged@1 B:merged@1 C:active@3 D:active@1 E:retired@1')
      expect((await s.current('A')).mergedInto).toBe(s.id('C'))
      expect(rowsOf(await s.rowsSince(since))).toEqual(
        rowsOf([
          s.row('retire', 'E', [1, 1], ['active', 'retired']),
          s.row('unmerge', 'C', [2, 2], ['merged', 'active']),
          s.row('update', 'C', [2, 3], ['active', 'active']),
          s.row('unmerge', 'D', [1, 1], ['merged', 'active']),
        ]),
      )
      const hc = await t.backend.history({ scopeId, memoryId: s.id('C') })
      expect(hc.versions.map((v) => v.text)).toEqual(['cricket', 'crane', 'cricket'])
      expect(hc.merges.map((m) => [s.name(m.resultId), m.state])).toEqual([
        ['C', 'effective'],
        ['E', 'undone'],
      ])
    })

    t.test(
      'restoring an input to an old version keeps the others at their frozen versions',
      async () => {
        const s = new Scene(t.backend)
        const { scopeId } = s
        await s.addAll('A alpaca', 'B beetle')
        await s.update('A', 'anteater')
        await s.update('B', 'bumblebee')
        await s.merge('C', ['A', 'B'], 'cricket')
        const res = await t.backend.restore({ scopeId, memoryId: s.id('A'), toRevision: 1 })
        expect(s.refs([res.memory])).toEqual(['A@3'])
        expect(res.memory.text).toBe('alpaca')
        expect(s.refs(res.restored)).toEqual(['A@3', 'B@2'])
        await s.expectStates('A:active@3 B:active@2 C:retired@1')
      },
    )
  })
}

export function restorePreviewArea(suite: ConformanceSuite): void {
  suite.area('restore preview', (t) => {
    t.test('returns the plan and a token, changes nothing, and the token executes it', async () => {
      const s = await chainScene(t.backend)
      const { scopeId } = s
      const memoryId = s.id('B')
      const before = await scopeState(t.backend, scopeId)
      const preview = await t.backend.restorePreview({ scopeId, memoryId })
      expect(s.refs(preview.plan.restore)).toEqual(['A@2', 'B@1', 'D@2'])
      expect(s.refs(preview.plan.retire)).toEqual(['C@1', 'E@1'])
      expect(s.refs(preview.plan.leavingSearch)).toEqual(['E@1'])
      expect(preview.plan.newVersion).toBeNull()
      expect(preview.previewToken).toMatch(/^[A-Za-z0-9_-]{1,128}$/)
      expect(await t.backend.restorePreview({ scopeId, memoryId })).toEqual(preview)
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      await s.expectStates('A:merged@2 B:merged@1 C:merged@1 D:merged@2 E:active@1')
      const res = await t.backend.restore({ scopeId, memoryId, previewToken: preview.previewToken })
      expect(res.status).toBe('restored')
      expect(s.refs(res.restored)).toEqual(s.refs(preview.plan.restore))
      expect(s.refs(res.retired)).toEqual(s.refs(preview.plan.retire))
      await s.expectStates('A:active@2 B:active@1 C:retired@1 D:active@2 E:retired@1')
    })

    t.test('plans a forgotten memory, an old version under E, and an active memory', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A alpaca', 'B beetle', 'D dingo', 'F ferret', 'G gecko')
      await s.merge('C', ['A', 'B'], 'cricket')
      await s.update('C', 'crane')
      await s.merge('E', ['C', 'D'], 'eagle')
      await s.update('G', 'gerbil')
      await t.backend.forget({ scopeId, memoryId: s.id('F') })
      const before = await scopeState(t.backend, scopeId)
      const plan = async (name: string, toRevision?: number) =>
        (await t.backend.restorePreview({ scopeId, memoryId: s.id(name), toRevision })).plan
      const f = await plan('F')
      expect([f.restore, f.retire, f.leavingSearch].map((l) => s.refs(l))).toEqual([
        ['F@1'],
        [],
        [],
      ])
      expect(f.newVersion).toBeNull()
      const c = await plan('C', 1)
      expect(s.refs(c.restore)).toEqual(['C@2', 'D@1'])
      expect(s.refs(c.retire)).toEqual(['E@1'])
      expect(s.refs(c.leavingSearch)).toEqual(['E@1'])
      expect(c.newVersion).toEqual({ memoryId: s.id('C'), fromRevision: 1, version: 3 })
      const g = await plan('G')
      expect([g.restore, g.retire, g.leavingSearch, g.newVersion]).toEqual([[], [], [], null])
      const g1 = await plan('G', 1)
      expect([g1.restore, g1.retire]).toEqual([[], []])
      // G stays active, but its current text leaves search for version 1's.
      expect(s.refs(g1.leavingSearch)).toEqual(['G@2'])
      expect(g1.newVersion).toEqual({ memoryId: s.id('G'), fromRevision: 1, version: 3 })
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      const token = async (name: string, toRevision?: number) => ({
        scopeId,
        memoryId: s.id(name),
        toRevision,
        previewToken: (
          await t.backend.restorePreview({ scopeId, memoryId: s.id(name), toRevision })
        ).previewToken,
      })
      expect((await t.backend.restore(await token('G'))).status).toBe('unchanged')
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      expect((await t.backend.restore(await token('F'))).status).toBe('restored')
      expect((await t.backend.restore(await token('C', 1))).status).toBe('restored')
      expect((await t.backend.restore(await token('G', 1))).status).toBe('restored')
      await s.expectStates(
        'A:merged B:merged C:active@3 D:active@1 E:retired@1 F:active@1 G:active@3',
      )
    })

    t.test('any move of what the plan covers makes the token preview_stale', async () => {
      const moves: Record<string, (s: Scene) => Promise<unknown>> = {
        'update of E': (s) => s.update('E', 'egret'),
        'forget of E': (s) => s.backend.forget({ scopeId: s.scopeId, memoryId: s.id('E') }),
        'another merge': (s) => s.merge('G', ['E', 'F'], 'gannet'),
        'a restore of A': (s) => s.backend.restore({ scopeId: s.scopeId, memoryId: s.id('A') }),
        // Back to the same version and state: only the state version tells.
        'a forget and restore of E': async (s) => {
          await s.backend.forget({ scopeId: s.scopeId, memoryId: s.id('E') })
          await s.backend.restore({ scopeId: s.scopeId, memoryId: s.id('E') })
        },
      }
      for (const [what, move] of Object.entries(moves)) {
        const s = await chainScene(t.backend)
        await s.add('F', 'ferret')
        const { scopeId } = s
        const memoryId = s.id('B')
        const { previewToken } = await t.backend.restorePreview({ scopeId, memoryId })
        await move(s)
        const before = await scopeState(t.backend, scopeId)
        const err = await expectCode(
          t.backend.restore({ scopeId, memoryId, previewToken }),
          'preview_stale',
        )
        expect(err.message, what).toBeTruthy()
        expect(err.details, what).toEqual({ memory_id: memoryId })
        expect(await scopeState(t.backend, scopeId), what).toEqual(before)
        const fresh = await t.backend.restorePreview({ scopeId, memoryId })
        await t.backend.restore({ scopeId, memoryId, previewToken: fresh.previewToken })
        expect((await t.backend.get({ scopeId, memoryId })).state, what).toBe('active')
        expect((await t.backend.verify()).problems, what).toEqual([])
      }
    })

    t.test('lists every plan in memory id order and refuses a retired target', async () => {
      const s = await chainScene(t.backend)
      const { scopeId } = s
      // Plans gather the target first, then the merge results, then the inputs: they are sorted.
      const sorted = (ids: string[]) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      for (const name of ['A', 'B', 'C', 'D']) {
        const { plan } = await t.backend.restorePreview({ scopeId, memoryId: s.id(name) })
        for (const list of [plan.restore, plan.retire, plan.leavingSearch]) {
          const ids = list.map((r) => r.memoryId)
          expect(ids, name).toEqual(sorted(ids))
        }
      }
      const b = await t.backend.restorePreview({ scopeId, memoryId: s.id('B') })
      expect(b.plan.restore.map((r) => s.name(r.memoryId))).toEqual(['A', 'B', 'D'])
      expect(b.plan.retire.map((r) => s.name(r.memoryId))).toEqual(['C', 'E'])
      await t.backend.restore({ scopeId, memoryId: s.id('A') })
      await s.expectStates('A:active@2 B:active@1 C:retired@1 D:active@2 E:retired@1')
      for (const name of ['C', 'E']) {
        const memoryId = s.id(name)
        // One call at a time: a second call started early would reject before it is awaited.
        for (const call of [
          () => t.backend.restorePreview({ scopeId, memoryId }),
          () => t.backend.restore({ scopeId, memoryId }),
        ]) {
          const err = await expectCode(call(), 'state_conflict')
          expect(err.message).toBe(`memory ${memoryId} is retired and cannot be restored`)
          expect(err.details).toEqual({ memory_id: memoryId, state: 'retired' })
        }
      }
    })

    t.test('a token is bound to the version to_revision writes', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.add('F', 'ferret')
      await s.update('F', 'flamingo')
      await s.update('F', 'falcon')
      const memoryId = s.id('F')
      const one = await t.backend.restorePreview({ scopeId, memoryId, toRevision: 1 })
      const two = await t.backend.restorePreview({ scopeId, memoryId, toRevision: 2 })
      expect(one.plan.newVersion).toEqual({ memoryId, fromRevision: 1, version: 4 })
      expect(two.plan.newVersion).toEqual({ memoryId, fromRevision: 2, version: 4 })
      expect(one.previewToken).not.toBe(two.previewToken)
      const before = await scopeState(t.backend, scopeId)
      const cmd = { scopeId, memoryId, toRevision: 2, previewToken: one.previewToken }
      const err = await expectCode(t.backend.restore(cmd), 'preview_stale')
      expect(err.details).toEqual({ memory_id: memoryId })
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      const res = await t.backend.restore({ ...cmd, previewToken: two.previewToken })
      expect(res.status).toBe('restored')
      expect(res.memory.text).toBe('flamingo')
    })

    t.test('a token is bound to its target, version and the memories it involves', async () => {
      const s = await chainScene(t.backend)
      const { scopeId } = s
      await s.add('F', 'ferret')
      await s.update('F', 'flamingo')
      const preview = (name: string, toRevision?: number) =>
        t.backend.restorePreview({ scopeId, memoryId: s.id(name), toRevision })
      const stale = async (name: string, previewToken: string, toRevision?: number) => {
        const before = await scopeState(t.backend, scopeId)
        const cmd = { scopeId, memoryId: s.id(name), previewToken, toRevision }
        await expectCode(t.backend.restore(cmd), 'preview_stale')
        expect(await scopeState(t.backend, scopeId)).toEqual(before)
      }
      // Another target's token, and the same target with a different version to write.
      await stale('B', (await preview('A')).previewToken)
      await stale('D', (await preview('D')).previewToken, 1)
      await stale('D', (await preview('D', 1)).previewToken)
      // F is active with two versions: a forget between preview and restore moves it.
      const f = await preview('F', 1)
      await t.backend.forget({ scopeId, memoryId: s.id('F') })
      await stale('F', f.previewToken, 1)
      await t.backend.restore({ scopeId, memoryId: s.id('F') })
      // Changes to memories outside the plan do not stale it.
      const b = await preview('B')
      await s.add('H', 'heron')
      await s.update('H', 'hornet')
      const res = await t.backend.restore({
        scopeId,
        memoryId: s.id('B'),
        previewToken: b.previewToken,
      })
      expect(s.names(res.retired)).toEqual(['C', 'E'])
      await s.expectStates(
        'A:active@2 B:active@1 C:retired D:active@2 E:retired F:active@2 H:active@2',
      )
    })

    t.test('without a token, restore applies the plan as it stands and reports it', async () => {
      const s = await chainScene(t.backend)
      const { scopeId } = s
      await s.add('F', 'ferret')
      const preview = await t.backend.restorePreview({ scopeId, memoryId: s.id('B') })
      expect(s.refs(preview.plan.retire)).toEqual(['C@1', 'E@1'])
      await s.merge('G', ['E', 'F'], 'gannet')
      const since = await s.head()
      const res = await t.backend.restore({ scopeId, memoryId: s.id('B') })
      expect(s.refs(res.restored)).toEqual(['A@2', 'B@1', 'D@2', 'F@1'])
      expect(s.refs(res.retired)).toEqual(['C@1', 'E@1', 'G@1'])
      const rows = await s.rowsSince(since)
      expect(rows.filter((r) => r.op === 'retire').map((r) => s.name(r.memoryId))).toEqual(
        expect.arrayContaining(['C', 'E', 'G']),
      )
      await s.expectStates(
        'A:active@2 B:active@1 C:retired@1 D:active@2 E:retired@1 F:active@1 G:retired@1',
      )
    })
  })
}
