/* Conformance: `update` (docs/memory-model.md: CAS on the exact revision, evidence union, no-op repeats). */
import { expect } from 'vitest'

import type { UpdateCommand } from '../../src/storage/spi/memory-backend.js'
import type { ConformanceSuite } from './harness.case.js'
import {
  captureSources,
  expectCode,
  expectEmptyScope,
  newScope,
  rememberOne,
  searchIds,
  snapshot,
  src,
  unsafe,
} from './harness.case.js'

export function updateArea(suite: ConformanceSuite): void {
  suite.area('update', (t) => {
    t.test('writes the next version at exactly the current revision', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'port is 8080' })
      const res = await t.backend.update({
        scopeId,
        memoryRef: v1.memoryRef,
        text: 'port is 9090',
        reason: 'config changed',
      })
      expect(res.status).toBe('updated')
      const memoryId = v1.memoryRef.artifactId
      expect(res.memory.memoryRef).toEqual({ artifactId: memoryId, revision: 2 })
      expect(res.memory).toMatchObject({ text: 'port is 9090', kind: 'fact', state: 'active' })
      expect(res.memory.contentHash).not.toBe(v1.contentHash)
      const current = await t.backend.get({ scopeId, memoryId })
      expect(current.memory).toEqual(res.memory)
      expect(current.currentRevision).toBe(2)
      expect((await t.backend.get({ scopeId, memoryId, revision: 1 })).memory.text).toBe(
        'port is 8080',
      )
      const { changes } = await t.backend.changes({ scopeId, since: 1 })
      expect(changes).toMatchObject([
        {
          seq: 2,
          op: 'update',
          memoryId,
          fromRevision: 1,
          toRevision: 2,
          fromState: 'active',
          toState: 'active',
          reason: 'config changed',
        },
      ])
    })

    t.test(
      'a stale or future revision fails with revision_conflict and changes nothing',
      async () => {
        const scopeId = newScope()
        const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'cas base text' })
        const memoryId = v1.memoryRef.artifactId
        await t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'cas second text' })
        const before = await snapshot(t.backend, scopeId, memoryId)
        const stale = await expectCode(
          t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'lost update' }),
          'revision_conflict',
        )
        expect(stale.details?.['current_revision']).toBe(2)
        const future = await expectCode(
          t.backend.update({
            scopeId,
            memoryRef: { artifactId: memoryId, revision: 3 },
            text: 'from the future',
          }),
          'revision_conflict',
        )
        expect(future.details?.['current_revision']).toBe(2)
        expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(before)
        expect(await searchIds(t.backend, scopeId, 'lost future')).toEqual([])
      },
    )

    t.test('evidence is the union of the old and the new sources', async () => {
      const scopeId = newScope()
      await captureSources(t.backend, scopeId, 's1', 's2', 's3')
      const v1 = await rememberOne(t.backend, scopeId, {
        kind: 'fact',
        text: 'evidence grows',
        sources: [src('s2')],
      })
      const v2 = await t.backend.update({ scopeId, memoryRef: v1.memoryRef, sources: [src('s1')] })
      expect(v2.status).toBe('updated')
      expect(v2.memory.sources).toEqual([src('s1'), src('s2')])
      const v3 = await t.backend.update({
        scopeId,
        memoryRef: v2.memory.memoryRef,
        text: 'evidence grew',
        sources: [src('s3'), src('s1')],
      })
      expect(v3.memory.sources).toEqual([src('s1'), src('s2'), src('s3')])
      const same = await t.backend.update({
        scopeId,
        memoryRef: v3.memory.memoryRef,
        sources: [src('s2')],
      })
      expect(same).toEqual({ status: 'unchanged', memory: v3.memory })
      expect((await t.backend.changes({ scopeId, since: 0 })).headSeq).toBe(3)
    })

    t.test('identical content is unchanged and writes no version', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, {
        kind: 'decision',
        text: 'use caf\u00e9 mode',
        observedAt: '2024-03-01T10:00:00Z',
      })
      const memoryId = v1.memoryRef.artifactId
      const before = await snapshot(t.backend, scopeId, memoryId)
      const attempts: Partial<Pick<UpdateCommand, 'text' | 'kind' | 'observedAt' | 'reason'>>[] = [
        { text: '  use cafe\u0301 mode ' },
        { kind: 'decision' },
        { observedAt: '2024-03-01T11:00:00+01:00' },
        { reason: 'only a reason' },
        {},
      ]
      for (const change of attempts) {
        const res = await t.backend.update({ scopeId, memoryRef: v1.memoryRef, ...change })
        expect(res).toEqual({ status: 'unchanged', memory: v1 })
      }
      expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(before)
    })

    t.test('a kind change writes a version and list/search filters follow it', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'tabs over spaces' })
      const memoryId = v1.memoryRef.artifactId
      const res = await t.backend.update({ scopeId, memoryRef: v1.memoryRef, kind: 'preference' })
      expect(res.status).toBe('updated')
      expect(res.memory).toMatchObject({ kind: 'preference', text: 'tabs over spaces' })
      expect(res.memory.memoryRef.revision).toBe(2)
      const ids = async (kinds: string[]) =>
        (await t.backend.list({ scopeId, kinds })).memories.map((m) => m.memoryRef.artifactId)
      expect(await ids(['preference'])).toEqual([memoryId])
      expect(await ids(['fact'])).toEqual([])
      expect(await searchIds(t.backend, scopeId, 'tabs', { kinds: ['preference'] })).toEqual([
        memoryId,
      ])
      expect(await searchIds(t.backend, scopeId, 'tabs', { kinds: ['fact'] })).toEqual([])
    })

    t.test('observedAt: absent keeps it, null clears it, a value sets it', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, {
        kind: 'fact',
        text: 'the build is green',
        observedAt: '2024-04-01T08:00:00Z',
      })
      const v2 = await t.backend.update({
        scopeId,
        memoryRef: v1.memoryRef,
        text: 'the build is red',
      })
      expect(v2.memory.observedAt).toBe('2024-04-01T08:00:00.000Z')
      // An explicit undefined (as a wire mapper may pass it) keeps the value too.
      const kept = await t.backend.update({
        scopeId,
        memoryRef: v2.memory.memoryRef,
        observedAt: unsafe<string>(undefined),
      })
      expect(kept).toEqual({ status: 'unchanged', memory: v2.memory })
      const v3 = await t.backend.update({
        scopeId,
        memoryRef: v2.memory.memoryRef,
        observedAt: null,
      })
      expect(v3.status).toBe('updated')
      expect(v3.memory.observedAt).toBeNull()
      expect(v3.memory.memoryRef.revision).toBe(3)
      const v4 = await t.backend.update({
        scopeId,
        memoryRef: v3.memory.memoryRef,
        observedAt: '2024-04-02T09:30:00+02:00',
      })
      expect(v4.memory.observedAt).toBe('2024-04-02T07:30:00.000Z')
      expect(v4.memory.text).toBe('the build is red')
    })

    t.test('a forgotten memory cannot be updated (state_conflict)', async () => {
      const scopeId = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'frozen fact' })
      const memoryId = v1.memoryRef.artifactId
      await t.backend.forget({ scopeId, memoryId })
      const before = await snapshot(t.backend, scopeId, memoryId)
      await expectCode(
        t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'thawed fact' }),
        'state_conflict',
      )
      expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(before)
    })

    t.test('an unknown memory or one of another scope is memory_not_found', async () => {
      const scopeId = newScope()
      const otherScope = newScope()
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'mine alone' })
      const before = await snapshot(t.backend, scopeId, v1.memoryRef.artifactId)
      await expectCode(
        t.backend.update({
          scopeId,
          memoryRef: { artifactId: 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV', revision: 1 },
          text: 'ghost',
        }),
        'memory_not_found',
      )
      await expectCode(
        t.backend.update({ scopeId: otherScope, memoryRef: v1.memoryRef, text: 'stolen' }),
        'memory_not_found',
      )
      expect(await snapshot(t.backend, scopeId, v1.memoryRef.artifactId)).toEqual(before)
      await expectEmptyScope(t.backend, otherScope)
    })

    t.test('new evidence must exist in the scope; else nothing is written', async () => {
      const scopeId = newScope()
      const otherScope = newScope()
      await captureSources(t.backend, scopeId, 'here')
      await captureSources(t.backend, otherScope, 'there')
      const v1 = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'needs evidence' })
      const before = await snapshot(t.backend, scopeId, v1.memoryRef.artifactId)
      for (const sources of [[src('missing')], [src('here'), src('there')]]) {
        await expectCode(
          t.backend.update({ scopeId, memoryRef: v1.memoryRef, text: 'has evidence', sources }),
          'source_not_found',
        )
      }
      expect(await snapshot(t.backend, scopeId, v1.memoryRef.artifactId)).toEqual(before)
    })
  })
}
