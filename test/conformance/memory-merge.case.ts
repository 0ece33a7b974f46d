/*
 * Conformance: merge (docs/memory-model.md, docs/merges.md). A merge creates a new
 * memory C at version 1 citing its inputs' exact versions, with the union of their evidence; the
 * inputs become `merged` (frozen, unsearchable, readable). Every failure is typed and writes nothing.
 */
import { expect } from 'vitest'

import type { ArtifactRef } from '../../src/core/memory-model.js'
import type { ConformanceSuite } from './harness.case.js'
import { captureSources, expectCode, newScope, src, unsafe } from './harness.case.js'
import { byId, byRef, rowsOf, Scene, scopeState, UNKNOWN_ID } from './merge-scene.case.js'

export function mergeArea(suite: ConformanceSuite): void {
  suite.area('merge', (t) => {
    t.test('creates C at version 1 citing the inputs, with their evidence and time', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await captureSources(t.backend, scopeId, 's1', 's2', 's3')
      const a1 = await s.add('A', 'aardvark', {
        sources: [src('s1')],
        observedAt: '2024-01-01T00:00:00Z',
      })
      const a = (
        await t.backend.update({
          scopeId,
          memoryRef: a1.memoryRef,
          text: 'anteater',
          sources: [src('s2')],
        })
      ).memory
      const b = await s.add('B', 'buffalo', {
        sources: [src('s3'), src('s2')],
        observedAt: '2024-03-05T10:00:00+02:00',
      })
      const d = await s.add('D', 'dingo', { observedAt: '2024-03-05T07:59:59Z' })
      const since = await s.head()
      const res = await s.merge('C', ['A', 'B', 'D'], 'cheetah', {
        kind: 'decision',
        reason: 'same fact',
      })
      const c = res.memory
      const cId = s.id('C')
      expect(res.mergeId).toMatch(/^mrg_[0-9A-HJKMNP-TV-Z]{26}$/)
      expect(c.memoryRef).toEqual({ artifactId: cId, revision: 1 })
      expect(c).toMatchObject({ kind: 'decision', text: 'cheetah', reason: 'same fact' })
      expect(c).toMatchObject({ state: 'active', mergedInto: null, scopeId })
      expect(byRef(c.artifacts)).toEqual(byRef([a.memoryRef, b.memoryRef, d.memoryRef]))
      expect(s.refs(c.artifacts)).toEqual(['A@2', 'B@1', 'D@1'])
      expect(c.sources).toEqual([src('s1'), src('s2'), src('s3')])
      // The latest instant, not the latest string: +02:00 is 08:00Z, after 07:59:59Z.
      expect(c.observedAt).toBe('2024-03-05T08:00:00.000Z')
      expect(byId(res.inputs)).toEqual(
        byId([a, b, d].map((m) => ({ ...m, state: 'merged' as const, mergedInto: cId }))),
      )
      const got = await t.backend.get({ scopeId, memoryId: cId })
      expect(got).toEqual({ memory: c, currentRevision: 1, state: 'active' })
      await s.expectStates('A:merged@2 B:merged@1 D:merged@1 C:active@1')
      // Frozen inputs stay readable at every version, under their current state.
      const oldA = await t.backend.get({ scopeId, memoryId: s.id('A'), revision: 1 })
      expect(oldA.memory).toEqual({ ...a1, state: 'merged', mergedInto: cId })
      const record = {
        mergeId: res.mergeId,
        scopeId,
        resultId: cId,
        state: 'effective',
        undoneAt: null,
        undoneOperationId: null,
      }
      for (const name of ['A', 'B', 'D', 'C']) {
        const h = await t.backend.history({ scopeId, memoryId: s.id(name) })
        expect(h.merges).toMatchObject([record])
        expect(s.refs(h.merges[0]!.inputs)).toEqual(['A@2', 'B@1', 'D@1'])
      }
      // `merge` for the result (to active) and for each input (to merged), one operation.
      const rows = await s.rowsSince(since)
      expect(rows.every((r) => r.reason === 'same fact')).toBe(true)
      expect(rowsOf(rows)).toEqual(
        rowsOf([
          s.row('merge', 'C', [null, 1], [null, 'active']),
          s.row('merge', 'A', [2, 2], ['active', 'merged']),
          s.row('merge', 'B', [1, 1], ['active', 'merged']),
          s.row('merge', 'D', [1, 1], ['active', 'merged']),
        ]),
      )
      const h = await t.backend.history({ scopeId, memoryId: cId })
      expect(rows[0]!.operationId).toBe(h.merges[0]!.operationId)
    })

    t.test('C without evidence has none; C evolves while its inputs stay frozen', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A albatross', 'B bonobo')
      const { memory: c } = await s.merge('C', ['A', 'B'], 'caracal')
      expect(c).toMatchObject({ sources: [], observedAt: null, reason: null })
      const c2 = await s.update('C', 'capybara')
      expect(c2.artifacts).toEqual(c.artifacts)
      const a = await s.current('A')
      const before = await scopeState(t.backend, scopeId)
      const aId = s.id('A')
      await expectCode(
        t.backend.update({ scopeId, memoryRef: a.memoryRef, text: 'x' }),
        'state_conflict',
      )
      await expectCode(t.backend.forget({ scopeId, memoryId: aId }), 'state_conflict')
      await expectCode(
        t.backend.forget({ scopeId, memoryId: aId, expectedRevision: 1 }),
        'state_conflict',
      )
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      await s.expectStates('A:merged@1 B:merged@1 C:active@2')
      await t.backend.forget({ scopeId, memoryId: s.id('C') })
      await s.expectStates('A:merged B:merged C:forgotten@2')
    })

    t.test('fewer than two inputs or one memory twice is invalid_request', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      const a = await s.add('A', 'axolotl')
      await s.update('A', 'ayeaye')
      await s.add('B', 'barracuda')
      const before = await scopeState(t.backend, scopeId)
      const merge = (inputs: unknown) =>
        t.backend.merge({ scopeId, inputs: unsafe(inputs), kind: 'fact', text: 'cobra' })
      const a2 = { artifactId: s.id('A'), revision: 2 }
      for (const inputs of [[], [a2]]) {
        const err = await expectCode(merge(inputs), 'invalid_request')
        expect(err.message).toBe('inputs: must hold at least 2 memory refs')
        expect(err.details).toEqual({
          errors: [{ field: 'inputs', message: 'must hold at least 2 memory refs' }],
        })
      }
      for (const inputs of [
        [a2, a2],
        [a2, a.memoryRef],
      ]) {
        const err = await expectCode(merge(inputs), 'invalid_request')
        expect(err.message).toBe(`inputs: memory ${s.id('A')} is listed twice`)
        expect(err.details).toEqual({
          errors: [{ field: 'inputs', message: `memory ${s.id('A')} is listed twice` }],
        })
      }
      await expectCode(merge('A'), 'invalid_request')
      await expectCode(merge([a2, { artifactId: s.id('B') }]), 'invalid_request')
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      await s.expectStates('A:active@2 B:active@1')
    })

    t.test('a forgotten, merged or retired input is state_conflict, writing nothing', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A alligator', 'B beaver', 'D dolphin', 'F ferret', 'G gazelle', 'H hyena')
      await s.merge('C', ['A', 'B'], 'cougar')
      await s.merge('E', ['C', 'D'], 'eland')
      await t.backend.restore({ scopeId, memoryId: s.id('D') }) // undoes E only
      await t.backend.forget({ scopeId, memoryId: s.id('F') })
      const states = 'A:merged B:merged C:active D:active E:retired F:forgotten'
      await s.expectStates(`${states} G:active@1 H:active@1`)
      const before = await scopeState(t.backend, scopeId)
      for (const bad of ['A', 'E', 'F']) {
        for (const inputs of [
          ['G', bad],
          [bad, 'H'],
          ['G', 'H', bad],
        ]) {
          await expectCode(s.merge('X', inputs, 'xerus'), 'state_conflict')
        }
      }
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      await s.expectStates(`${states} G:active@1 H:active@1`)
    })

    t.test('repeating a merge that already holds is unchanged, writing nothing', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A auk', 'B bat')
      const refs = [(await s.current('A')).memoryRef, (await s.current('B')).memoryRef]
      const first = await t.backend.merge({ scopeId, inputs: refs, kind: 'fact', text: 'auk bat' })
      expect(first.status).toBe('merged')
      const before = await scopeState(t.backend, scopeId)
      const again = await t.backend.merge({
        scopeId,
        inputs: [...refs].reverse(),
        kind: 'fact',
        text: 'auk bat',
      })
      expect(again.status).toBe('unchanged')
      expect(again.mergeId).toBe(first.mergeId)
      expect(again.memory.memoryRef).toEqual(first.memory.memoryRef)
      expect(again.inputs.map((m) => m.state)).toEqual(['merged', 'merged'])
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      // Same inputs with another text is a different request: the inputs are no longer active.
      await expectCode(
        t.backend.merge({ scopeId, inputs: refs, kind: 'fact', text: 'bat auk' }),
        'state_conflict',
      )
    })

    t.test('only the same inputs, scope, kind and text repeat a merge', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A auk', 'B bat', 'D dove')
      const [a, b, d] = await Promise.all(['A', 'B', 'D'].map(async (n) => s.current(n)))
      const request = { kind: 'fact', text: 'auk bat' }
      await t.backend.merge({ scopeId, inputs: [a!.memoryRef, b!.memoryRef], ...request })
      const before = await scopeState(t.backend, scopeId)
      // A is absorbed, so any other set of inputs that starts with it is a state conflict.
      for (const inputs of [
        [a!.memoryRef, d!.memoryRef],
        [a!.memoryRef, b!.memoryRef, d!.memoryRef],
        [a!.memoryRef, { ...b!.memoryRef, revision: 2 }],
      ]) {
        const err = await expectCode(
          t.backend.merge({ scopeId, inputs, ...request }),
          'state_conflict',
        )
        expect(err.details?.['memory_id']).toBe(s.id('A'))
      }
      // From another scope the same refs name nothing, and the error names the caller's input.
      const err = await expectCode(
        t.backend.merge({ scopeId: newScope(), inputs: [a!.memoryRef, b!.memoryRef], ...request }),
        'memory_not_found',
      )
      expect(err.details).toEqual({ memory_id: s.id('A') })
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
    })

    t.test('an input at a stale or future revision is revision_conflict', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      const g1 = await s.add('G', 'gerbil')
      const h1 = await s.add('H', 'heron')
      const g2 = await s.update('G', 'gecko')
      const before = await scopeState(t.backend, scopeId)
      const merge = (inputs: ArtifactRef[]) =>
        t.backend.merge({ scopeId, inputs, kind: 'fact', text: 'xerus' })
      await expectCode(merge([g1.memoryRef, h1.memoryRef]), 'revision_conflict')
      await expectCode(merge([h1.memoryRef, g1.memoryRef]), 'revision_conflict')
      const future = { artifactId: s.id('H'), revision: 2 }
      await expectCode(merge([g2.memoryRef, future]), 'revision_conflict')
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      await s.expectStates('G:active@2 H:active@1')
    })

    t.test('an unknown memory or one of another scope is memory_not_found', async () => {
      const s = new Scene(t.backend)
      const other = new Scene(t.backend)
      const a = await s.add('A', 'anaconda')
      const b = await s.add('B', 'bison')
      const o = await other.add('O', 'ocelot')
      const before = await scopeState(t.backend, s.scopeId)
      const otherBefore = await scopeState(t.backend, other.scopeId)
      const merge = (scopeId: string, inputs: ArtifactRef[]) =>
        t.backend.merge({ scopeId, inputs, kind: 'fact', text: 'coyote' })
      const unknown = { artifactId: UNKNOWN_ID, revision: 1 }
      await expectCode(merge(s.scopeId, [a.memoryRef, unknown]), 'memory_not_found')
      await expectCode(merge(s.scopeId, [unknown, a.memoryRef]), 'memory_not_found')
      await expectCode(merge(s.scopeId, [a.memoryRef, o.memoryRef]), 'memory_not_found')
      await expectCode(merge(other.scopeId, [o.memoryRef, b.memoryRef]), 'memory_not_found')
      await expectCode(merge(newScope(), [a.memoryRef, b.memoryRef]), 'memory_not_found')
      expect(await scopeState(t.backend, s.scopeId)).toEqual(before)
      expect(await scopeState(t.backend, other.scopeId)).toEqual(otherBefore)
      await s.expectStates('A:active B:active')
      await other.expectStates('O:active')
    })

    t.test('a merge result can be merged again; it is cited at its current version', async () => {
      const s = new Scene(t.backend)
      await s.addAll('A antelope', 'B badger', 'D donkey')
      await s.merge('C', ['A', 'B'], 'chamois')
      await s.update('C', 'chinchilla')
      const { memory: e } = await s.merge('E', ['D', 'C'], 'egret')
      expect(s.refs(e.artifacts)).toEqual(['C@2', 'D@1'])
      await s.expectStates('A:merged B:merged C:merged@2 D:merged E:active@1')
      expect((await s.current('C')).mergedInto).toBe(s.id('E'))
      expect((await s.current('A')).mergedInto).toBe(s.id('C'))
      const hc = await t.backend.history({ scopeId: s.scopeId, memoryId: s.id('C') })
      expect(hc.merges.map((m) => [s.name(m.resultId), m.state])).toEqual([
        ['C', 'effective'],
        ['E', 'effective'],
      ])
    })

    t.test('the inputs of a merge may have been restored, updated or merged before', async () => {
      const s = new Scene(t.backend)
      const { scopeId } = s
      await s.addAll('A aphid', 'B bobcat')
      await t.backend.forget({ scopeId, memoryId: s.id('A') })
      await t.backend.restore({ scopeId, memoryId: s.id('A') })
      await s.merge('C', ['A', 'B'], 'cicada')
      await t.backend.restore({ scopeId, memoryId: s.id('B') }) // undoes C
      // A and B may be merged again; the new merge creates a new identity.
      const again = await s.merge('F', ['B', 'A'], 'firefly')
      expect(again.memory.memoryRef.artifactId).not.toBe(s.id('C'))
      await s.expectStates('A:merged@1 B:merged@1 C:retired@1 F:active@1')
      const ha = await t.backend.history({ scopeId, memoryId: s.id('A') })
      expect(ha.merges.map((m) => [s.name(m.resultId), m.state])).toEqual([
        ['C', 'undone'],
        ['F', 'effective'],
      ])
      // Another scope can neither preview nor restore a merged memory of this one.
      const before = await scopeState(t.backend, scopeId)
      const elsewhere = { scopeId: newScope(), memoryId: s.id('A') }
      await expectCode(t.backend.restorePreview(elsewhere), 'memory_not_found')
      await expectCode(t.backend.restore(elsewhere), 'memory_not_found')
      expect(await scopeState(t.backend, scopeId)).toEqual(before)
      // Only effective merges are followed: restoring A undoes F, and C stays retired.
      const undo = await t.backend.restore({ scopeId, memoryId: s.id('A') })
      expect(s.names(undo.retired)).toEqual(['F'])
      expect(s.refs(undo.restored)).toEqual(['A@1', 'B@1'])
      await s.expectStates('A:active@1 B:active@1 C:retired@1 F:retired@1')
    })
  })
}
