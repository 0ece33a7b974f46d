/* Conformance: forget / restore, get and history (docs/memory-model.md: states, operations). */
import { expect } from 'vitest'

import { contentHash } from '../../src/core/content-hash.js'
import type { ConformanceSuite } from './harness.case.js'
import {
  ALL_STATES,
  expectCode,
  newScope,
  rememberOne,
  searchIds,
  snapshot,
} from './harness.case.js'

const UNKNOWN_ID = 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV'

export function forgetRestoreArea(suite: ConformanceSuite): void {
  suite.area('forget and restore', (t) => {
    t.test('forget moves active to forgotten: unsearchable but readable', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'walrus operator' })
      const memoryId = m.memoryRef.artifactId
      expect(await searchIds(t.backend, scopeId, 'walrus')).toEqual([memoryId])
      const res = await t.backend.forget({ scopeId, memoryId, reason: 'obsolete' })
      expect(res.status).toBe('forgotten')
      expect(res.memory).toEqual({ ...m, state: 'forgotten' })
      expect(await searchIds(t.backend, scopeId, 'walrus')).toEqual([])
      const got = await t.backend.get({ scopeId, memoryId })
      expect(got.state).toBe('forgotten')
      expect(got.memory).toEqual({ ...m, state: 'forgotten' })
      expect((await t.backend.history({ scopeId, memoryId })).state).toBe('forgotten')
      expect((await t.backend.list({ scopeId })).memories).toEqual([])
      const forgotten = await t.backend.list({ scopeId, states: ['forgotten'] })
      expect(forgotten.memories.map((x) => x.memoryRef.artifactId)).toEqual([memoryId])
      const { changes } = await t.backend.changes({ scopeId, since: 1 })
      expect(changes).toMatchObject([
        {
          op: 'forget',
          memoryId,
          fromRevision: 1,
          toRevision: 1,
          fromState: 'active',
          toState: 'forgotten',
          reason: 'obsolete',
        },
      ])
    })

    t.test('forgetting a forgotten memory again is unchanged', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'forget twice' })
      const memoryId = m.memoryRef.artifactId
      const first = await t.backend.forget({ scopeId, memoryId })
      const before = await snapshot(t.backend, scopeId, memoryId)
      const again = await t.backend.forget({ scopeId, memoryId, expectedRevision: 1 })
      expect(again).toEqual({ status: 'unchanged', memory: first.memory })
      expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(before)
    })

    t.test('forget with a stale expectedRevision is revision_conflict', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'guarded forget' })
      const memoryId = m.memoryRef.artifactId
      await t.backend.update({ scopeId, memoryRef: m.memoryRef, text: 'guarded forget two' })
      const before = await snapshot(t.backend, scopeId, memoryId)
      const err = await expectCode(
        t.backend.forget({ scopeId, memoryId, expectedRevision: 1 }),
        'revision_conflict',
      )
      expect(err.details?.['current_revision']).toBe(2)
      expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(before)
      expect(await searchIds(t.backend, scopeId, 'guarded')).toEqual([memoryId])
      const ok = await t.backend.forget({ scopeId, memoryId, expectedRevision: 2 })
      expect(ok.status).toBe('forgotten')
      await expectCode(
        t.backend.forget({ scopeId, memoryId, expectedRevision: 1 }),
        'revision_conflict',
      )
    })

    t.test('restore brings a forgotten memory back at the same version', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'phoenix rises' })
      const memoryId = m.memoryRef.artifactId
      await t.backend.forget({ scopeId, memoryId })
      const res = await t.backend.restore({ scopeId, memoryId, reason: 'still true' })
      expect(res.status).toBe('restored')
      expect(res.memory).toEqual(m)
      expect(res.restored).toEqual([m])
      expect(res.retired).toEqual([])
      expect(await searchIds(t.backend, scopeId, 'phoenix')).toEqual([memoryId])
      const history = await t.backend.history({ scopeId, memoryId })
      expect(history.versions).toHaveLength(1)
      const { changes } = await t.backend.changes({ scopeId, since: 2 })
      expect(changes).toMatchObject([
        {
          op: 'restore',
          memoryId,
          fromRevision: 1,
          toRevision: 1,
          fromState: 'forgotten',
          toState: 'active',
          reason: 'still true',
        },
      ])
    })

    t.test('restore of an active memory is unchanged', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'already here' })
      const memoryId = m.memoryRef.artifactId
      const before = await snapshot(t.backend, scopeId, memoryId)
      const res = await t.backend.restore({ scopeId, memoryId })
      expect(res).toEqual({ status: 'unchanged', memory: m, restored: [], retired: [] })
      const same = await t.backend.restore({ scopeId, memoryId, toRevision: 1 })
      expect(same.status).toBe('unchanged')
      expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(before)
    })

    t.test('restore toRevision writes a new version carrying the old content', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'alpaca grazing' })
      const memoryId = v1.memoryRef.artifactId
      const v2 = await t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'bison grazing' })
      const res = await t.backend.restore({ scopeId, memoryId, toRevision: 1 })
      expect(res.status).toBe('restored')
      expect(res.memory.memoryRef).toEqual({ artifactId: memoryId, revision: 3 })
      expect(res.memory).toMatchObject({ text: 'alpaca grazing', state: 'active' })
      expect(res.memory.contentHash).toBe(v1.contentHash)
      const history = await t.backend.history({ scopeId, memoryId })
      expect(history.versions.map((v) => v.text)).toEqual([
        'alpaca grazing',
        'bison grazing',
        'alpaca grazing',
      ])
      expect((await t.backend.get({ scopeId, memoryId, revision: 1 })).memory).toEqual(v1)
      expect((await t.backend.get({ scopeId, memoryId, revision: 2 })).memory).toEqual(v2.memory)
      const hits = await t.backend.search({ scopeId, query: 'alpaca' })
      expect(hits.hits.map((h) => h.memoryRef)).toEqual([{ artifactId: memoryId, revision: 3 }])
      expect(await searchIds(t.backend, scopeId, 'bison')).toEqual([])
      const { changes } = await t.backend.changes({ scopeId, since: 2 })
      expect(changes).toMatchObject([
        { op: 'update', fromRevision: 2, toRevision: 3, fromState: 'active', toState: 'active' },
      ])
    })

    t.test('restore toRevision of a forgotten memory reactivates it in one operation', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'condor flying' })
      const memoryId = v1.memoryRef.artifactId
      await t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'dodo walking' })
      await t.backend.forget({ scopeId, memoryId })
      const res = await t.backend.restore({ scopeId, memoryId, toRevision: 1 })
      expect(res.status).toBe('restored')
      expect(res.memory).toMatchObject({ text: 'condor flying', state: 'active' })
      expect(res.memory.memoryRef.revision).toBe(3)
      expect(await searchIds(t.backend, scopeId, 'condor')).toEqual([memoryId])
      expect(await searchIds(t.backend, scopeId, 'dodo')).toEqual([])
      const { changes } = await t.backend.changes({ scopeId, since: 3 })
      expect(changes.map((c) => [c.op, c.fromState, c.toState, c.toRevision])).toEqual([
        ['restore', 'forgotten', 'active', 2],
        ['update', 'active', 'active', 3],
      ])
      expect(new Set(changes.map((c) => c.operationId)).size).toBe(1)
    })

    t.test('restore toRevision beyond the current version fails and writes nothing', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'bounded restore' })
      const memoryId = v1.memoryRef.artifactId
      await t.backend.forget({ scopeId, memoryId })
      const before = await snapshot(t.backend, scopeId, memoryId)
      await expectCode(t.backend.restore({ scopeId, memoryId, toRevision: 2 }), 'memory_not_found')
      expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(before)
      expect((await t.backend.get({ scopeId, memoryId })).state).toBe('forgotten')
    })

    t.test('forget and restore of an unknown memory or another scope fail', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'scoped state' })
      const memoryId = m.memoryRef.artifactId
      const otherScope = newScope()
      await expectCode(t.backend.forget({ scopeId, memoryId: UNKNOWN_ID }), 'memory_not_found')
      await expectCode(t.backend.restore({ scopeId, memoryId: UNKNOWN_ID }), 'memory_not_found')
      await expectCode(t.backend.forget({ scopeId: otherScope, memoryId }), 'memory_not_found')
      await t.backend.forget({ scopeId, memoryId })
      await expectCode(t.backend.restore({ scopeId: otherScope, memoryId }), 'memory_not_found')
      expect((await t.backend.get({ scopeId, memoryId })).state).toBe('forgotten')
    })
  })
}

export function getHistoryArea(suite: ConformanceSuite): void {
  suite.area('get and history', (t) => {
    t.test('get returns the current version or an exact older one', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'version one' })
      const memoryId = v1.memoryRef.artifactId
      const v2 = await t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'version two' })
      const current = await t.backend.get({ scopeId, memoryId })
      expect(current).toEqual({ memory: v2.memory, currentRevision: 2, state: 'active' })
      const old = await t.backend.get({ scopeId, memoryId, revision: 1 })
      expect(old).toEqual({ memory: v1, currentRevision: 2, state: 'active' })
    })

    t.test('the state shown is the current state, whatever version is shown', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'old state view' })
      const memoryId = v1.memoryRef.artifactId
      await t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'new state view' })
      await t.backend.forget({ scopeId, memoryId })
      const old = await t.backend.get({ scopeId, memoryId, revision: 1 })
      expect(old.state).toBe('forgotten')
      expect(old.memory.state).toBe('forgotten')
      expect(old.memory.memoryRef.revision).toBe(1)
      expect(old.memory.text).toBe('old state view')
      expect(old.currentRevision).toBe(2)
    })

    t.test('every version read carries a verified content hash', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, {
        kind: 'constraint',
        text: 'hash me',
        observedAt: '2024-06-01T00:00:00Z',
      })
      const memoryId = v1.memoryRef.artifactId
      await t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'hash me again' })
      for (const revision of [1, 2]) {
        const { memory } = await t.backend.get({ scopeId, memoryId, revision })
        expect(memory.contentHash).toMatch(/^[0-9a-f]{64}$/)
        expect(memory.contentHash).toBe(
          contentHash({
            kind: memory.kind,
            text: memory.text,
            sources: memory.sources,
            artifacts: memory.artifacts,
            observedAt: memory.observedAt,
          }),
        )
      }
    })

    t.test('missing versions, unknown ids and other scopes are memory_not_found', async () => {
      const scopeId = newScope()
      const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'find me' })
      const memoryId = m.memoryRef.artifactId
      await expectCode(t.backend.get({ scopeId, memoryId, revision: 2 }), 'memory_not_found')
      await expectCode(t.backend.get({ scopeId, memoryId: UNKNOWN_ID }), 'memory_not_found')
      await expectCode(t.backend.get({ scopeId: newScope(), memoryId }), 'memory_not_found')
      await expectCode(t.backend.history({ scopeId, memoryId: UNKNOWN_ID }), 'memory_not_found')
      await expectCode(t.backend.history({ scopeId: newScope(), memoryId }), 'memory_not_found')
    })

    t.test('history lists every version in order with the memory change rows', async () => {
      const scopeId = newScope()
      const a = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'history a1' })
      const b = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'history b1' })
      const memoryId = a.memoryRef.artifactId
      await t.backend.update({ scopeId, memoryRef: a.memoryRef, text: 'history a2' })
      await t.backend.update({ scopeId, memoryRef: b.memoryRef, text: 'history b2' })
      await t.backend.forget({ scopeId, memoryId })
      await t.backend.restore({ scopeId, memoryId, toRevision: 1 })
      const history = await t.backend.history({ scopeId, memoryId })
      expect(history.memoryId).toBe(memoryId)
      expect(history.state).toBe('active')
      expect(history.currentRevision).toBe(3)
      expect(history.versions.map((v) => [v.memoryRef.revision, v.text, v.state])).toEqual([
        [1, 'history a1', 'active'],
        [2, 'history a2', 'active'],
        [3, 'history a1', 'active'],
      ])
      for (const v of history.versions) {
        expect(v).toEqual(
          (await t.backend.get({ scopeId, memoryId, revision: v.memoryRef.revision })).memory,
        )
      }
      const all = await t.backend.changes({ scopeId, since: 0 })
      expect(history.transitions).toEqual(all.changes.filter((c) => c.memoryId === memoryId))
      expect(history.transitions.map((c) => c.op)).toEqual([
        'add',
        'update',
        'forget',
        'restore',
        'update',
      ])
      expect(history.merges).toEqual([])
    })

    t.test('every stored version records the operation that wrote it', async () => {
      const scopeId = newScope()
      const a = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'written by add' })
      const b = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'another add' })
      const aId = a.memoryRef.artifactId
      const bId = b.memoryRef.artifactId
      await t.backend.update({ scopeId, memoryRef: a.memoryRef, text: 'written by update' })
      const back = await t.backend.restore({ scopeId, memoryId: aId, toRevision: 1 })
      const merged = await t.backend.merge({
        scopeId,
        inputs: [back.memory.memoryRef, b.memoryRef],
        kind: 'fact',
        text: 'written by merge',
      })
      const cId = merged.memory.memoryRef.artifactId
      const versions: unknown[] = []
      await t.backend.exportRows((r) => {
        if (r.type === 'version' && r.row.scopeId === scopeId) {
          versions.push([r.row.memoryId, r.row.version, r.row.previousVersion, r.row.operation])
        }
      })
      const order = (x: unknown): string => JSON.stringify(x)
      expect(versions.sort((x, y) => order(x).localeCompare(order(y)))).toEqual(
        [
          [aId, 1, null, 'add'],
          [aId, 2, 1, 'update'],
          [aId, 3, 2, 'update'],
          [bId, 1, null, 'add'],
          [cId, 1, null, 'merge'],
        ].sort((x, y) => order(x).localeCompare(order(y))),
      )
    })

    t.test('an exact reference keeps returning its version after later changes', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'cited text' })
      const memoryId = v1.memoryRef.artifactId
      await t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'rewritten text' })
      await t.backend.forget({ scopeId, memoryId })
      const cited = await t.backend.get({ scopeId, ...{ memoryId, revision: 1 } })
      expect(cited.memory).toEqual({ ...v1, state: 'forgotten' })
      const listed = await t.backend.list({ scopeId, states: ALL_STATES })
      expect(listed.memories.map((m) => m.memoryRef)).toEqual([
        { artifactId: memoryId, revision: 2 },
      ])
    })
  })
}
