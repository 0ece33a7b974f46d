/* Conformance: `remember` (docs/memory-model.md: versions, remember). */
import { expect } from 'vitest'

import { contentHash } from '../../src/core/content-hash.js'
import type { ConformanceSuite } from './harness.case.js'
import {
  captureSources,
  expectCode,
  expectEmptyScope,
  MEMORY_ID_PATTERN,
  newScope,
  rememberOne,
  src,
} from './harness.case.js'

export function rememberArea(suite: ConformanceSuite): void {
  suite.area('remember', (t) => {
    t.test('creates every entry of a batch, in order, under one operation', async () => {
      const scopeId = newScope()
      const { results } = await t.backend.remember({
        scopeId,
        entries: [
          { kind: 'fact', text: 'alpha one' },
          { kind: 'decision', text: 'beta two' },
          { kind: 'working_note', text: 'gamma three' },
        ],
      })
      expect(results.map((r) => [r.status, r.memory.kind, r.memory.text])).toEqual([
        ['created', 'fact', 'alpha one'],
        ['created', 'decision', 'beta two'],
        ['created', 'working_note', 'gamma three'],
      ])
      const ids = results.map((r) => r.memory.memoryRef.artifactId)
      expect(new Set(ids).size).toBe(3)
      const listed = await t.backend.list({ scopeId })
      expect(listed.memories.map((m) => m.memoryRef.artifactId).sort()).toEqual([...ids].sort())
      const { changes } = await t.backend.changes({ scopeId, since: 0 })
      expect(changes.map((c) => [c.op, c.memoryId])).toEqual(ids.map((id) => ['add', id]))
      expect(new Set(changes.map((c) => c.operationId)).size).toBe(1)
    })

    t.test('returns the full memory shape with normalised content', async () => {
      const scopeId = newScope()
      await captureSources(t.backend, scopeId, 'src-b', 'src-a', 'src-B')
      const memory = await rememberOne(t.backend, scopeId, {
        kind: 'fact',
        text: '  \n The cafe\u0301 opens at nine \t',
        sources: [src('src-b'), src('src-a'), src('src-b'), src('src-B')],
        observedAt: '2024-05-01T12:00:00+02:00',
        reason: 'seen in the menu',
      })
      expect(memory.memoryRef.artifactId).toMatch(MEMORY_ID_PATTERN)
      expect(memory.memoryRef.revision).toBe(1)
      expect(memory.scopeId).toBe(scopeId)
      expect(memory.state).toBe('active')
      expect(memory.kind).toBe('fact')
      expect(memory.text).toBe('The caf\u00e9 opens at nine')
      expect(memory.sources).toEqual([src('src-B'), src('src-a'), src('src-b')])
      expect(memory.artifacts).toEqual([])
      expect(memory.observedAt).toBe('2024-05-01T10:00:00.000Z')
      expect(memory.contentHash).toMatch(/^[0-9a-f]{64}$/)
      expect(memory.contentHash).toBe(contentHash(memory))
      expect(new Date(memory.createdAt).toISOString()).toBe(memory.createdAt)
      expect(memory.mergedInto).toBeNull()
      const got = await t.backend.get({ scopeId, memoryId: memory.memoryRef.artifactId })
      expect(got.memory).toEqual(memory)
    })

    t.test('observedAt is null when absent or null, and kept to the millisecond', async () => {
      const scopeId = newScope()
      const { results } = await t.backend.remember({
        scopeId,
        entries: [
          { kind: 'fact', text: 'no time given' },
          { kind: 'fact', text: 'explicit null time', observedAt: null },
          { kind: 'fact', text: 'lower-case zone', observedAt: '2023-12-31t23:30:00.25z' },
          { kind: 'fact', text: 'negative offset', observedAt: '2024-01-01T00:00:00-05:30' },
        ],
      })
      expect(results.map((r) => r.memory.observedAt)).toEqual([
        null,
        null,
        '2023-12-31T23:30:00.250Z',
        '2024-01-01T05:30:00.000Z',
      ])
    })

    t.test('an exact duplicate of an active memory is unchanged', async () => {
      const scopeId = newScope()
      await captureSources(t.backend, scopeId, 's1', 's2')
      const entry = {
        kind: 'fact',
        text: 'duplicates are detected',
        sources: [src('s1'), src('s2')],
        observedAt: '2024-01-01T00:00:00Z',
      }
      const first = await rememberOne(t.backend, scopeId, entry)
      const again = await t.backend.remember({
        scopeId,
        entries: [
          {
            ...entry,
            sources: [src('s2'), src('s1')],
            observedAt: '2024-01-01T01:00:00+01:00',
            reason: 'a different reason does not matter',
          },
        ],
      })
      expect(again.results).toEqual([{ status: 'unchanged', memory: first }])
      const changes = await t.backend.changes({ scopeId, since: 0 })
      expect(changes.headSeq).toBe(1)
      expect((await t.backend.list({ scopeId })).memories).toHaveLength(1)
    })

    t.test('a duplicate inside one batch is unchanged and names the first', async () => {
      const scopeId = newScope()
      const { results } = await t.backend.remember({
        scopeId,
        entries: [
          { kind: 'fact', text: 'batch twin' },
          { kind: 'fact', text: 'another entry' },
          { kind: 'fact', text: '  batch twin  ' },
        ],
      })
      expect(results.map((r) => r.status)).toEqual(['created', 'created', 'unchanged'])
      expect(results[2]!.memory).toEqual(results[0]!.memory)
      const { changes } = await t.backend.changes({ scopeId, since: 0 })
      expect(changes.map((c) => c.op)).toEqual(['add', 'add'])
    })

    t.test('a mixed batch creates only the new entries', async () => {
      const scopeId = newScope()
      const existing = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'old news' })
      const { results } = await t.backend.remember({
        scopeId,
        entries: [
          { kind: 'fact', text: 'old news' },
          { kind: 'fact', text: 'fresh news' },
        ],
      })
      expect(results.map((r) => r.status)).toEqual(['unchanged', 'created'])
      expect(results[0]!.memory).toEqual(existing)
      const { changes, headSeq } = await t.backend.changes({ scopeId, since: 1 })
      expect(headSeq).toBe(2)
      expect(changes.map((c) => [c.op, c.memoryId])).toEqual([
        ['add', results[1]!.memory.memoryRef.artifactId],
      ])
    })

    t.test('NFC-equivalent text is a duplicate', async () => {
      const scopeId = newScope()
      const composed = await rememberOne(t.backend, scopeId, {
        kind: 'preference',
        text: 'Prefers cr\u00e8me br\u00fbl\u00e9e',
      })
      const { results } = await t.backend.remember({
        scopeId,
        entries: [{ kind: 'preference', text: 'Prefers cre\u0300me bru\u0302le\u0301e' }],
      })
      expect(results).toEqual([{ status: 'unchanged', memory: composed }])
    })

    t.test(
      'same text with a different kind, sources or observedAt is not a duplicate',
      async () => {
        const scopeId = newScope()
        await captureSources(t.backend, scopeId, 's1')
        const entries = [
          { kind: 'fact', text: 'the same words' },
          { kind: 'decision', text: 'the same words' },
          { kind: 'fact', text: 'the same words', sources: [src('s1')] },
          { kind: 'fact', text: 'the same words', observedAt: '2024-02-02T00:00:00Z' },
        ]
        const created = await t.backend.remember({ scopeId, entries })
        expect(created.results.map((r) => r.status)).toEqual([
          'created',
          'created',
          'created',
          'created',
        ])
        const ids = created.results.map((r) => r.memory.memoryRef.artifactId)
        expect(new Set(ids).size).toBe(4)
        const repeated = await t.backend.remember({ scopeId, entries })
        expect(repeated.results.map((r) => r.status)).toEqual(Array(4).fill('unchanged'))
        expect(repeated.results.map((r) => r.memory.memoryRef.artifactId)).toEqual(ids)
      },
    )

    t.test('a duplicate of a forgotten memory is created anew', async () => {
      const scopeId = newScope()
      const first = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'comes back' })
      await t.backend.forget({ scopeId, memoryId: first.memoryRef.artifactId })
      const second = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'comes back' })
      expect(second.memoryRef.artifactId).not.toBe(first.memoryRef.artifactId)
      expect(second.contentHash).toBe(first.contentHash)
      const active = await t.backend.list({ scopeId })
      expect(active.memories.map((m) => m.memoryRef.artifactId)).toEqual([
        second.memoryRef.artifactId,
      ])
    })

    t.test('only the current version of a memory counts as a duplicate', async () => {
      const scopeId = newScope()
      const memory = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'first words' })
      await t.backend.update({ scopeId, memoryRef: memory.memoryRef, text: 'second words' })
      const again = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'first words' })
      expect(again.memoryRef.artifactId).not.toBe(memory.memoryRef.artifactId)
      const dup = await t.backend.remember({
        scopeId,
        entries: [{ kind: 'fact', text: 'second words' }],
      })
      expect(dup.results[0]!.status).toBe('unchanged')
      expect(dup.results[0]!.memory.memoryRef).toEqual({
        artifactId: memory.memoryRef.artifactId,
        revision: 2,
      })
    })

    t.test('evidence must be persisted sources of the scope; else nothing is written', async () => {
      const scopeId = newScope()
      await captureSources(t.backend, scopeId, 'known')
      await expectCode(
        t.backend.remember({
          scopeId,
          entries: [
            { kind: 'fact', text: 'valid entry', sources: [src('known')] },
            { kind: 'fact', text: 'bad evidence', sources: [src('known'), src('missing')] },
          ],
        }),
        'source_not_found',
      )
      await expectEmptyScope(t.backend, scopeId)
      const ok = await rememberOne(t.backend, scopeId, {
        kind: 'fact',
        text: 'valid entry',
        sources: [src('known')],
      })
      expect(ok.sources).toEqual([src('known')])
    })

    t.test('a source of another scope does not count as evidence', async () => {
      const scopeId = newScope()
      const otherScope = newScope()
      await captureSources(t.backend, otherScope, 'elsewhere')
      await expectCode(
        t.backend.remember({
          scopeId,
          entries: [{ kind: 'fact', text: 'cites another scope', sources: [src('elsewhere')] }],
        }),
        'source_not_found',
      )
      await expectEmptyScope(t.backend, scopeId)
      await expectEmptyScope(t.backend, otherScope)
    })

    t.test('a batch holds 1 to 100 entries', async () => {
      const scopeId = newScope()
      const entry = (i: number) => ({ kind: 'fact', text: `entry number ${i}` })
      await expectCode(t.backend.remember({ scopeId, entries: [] }), 'invalid_request')
      await expectCode(
        t.backend.remember({ scopeId, entries: Array.from({ length: 101 }, (_, i) => entry(i)) }),
        'invalid_request',
      )
      await expectEmptyScope(t.backend, scopeId)
      const { results } = await t.backend.remember({
        scopeId,
        entries: Array.from({ length: 100 }, (_, i) => entry(i)),
      })
      expect(results.filter((r) => r.status === 'created')).toHaveLength(100)
      const { changes, headSeq } = await t.backend.changes({ scopeId, since: 0 })
      expect(headSeq).toBe(100)
      expect(new Set(changes.map((c) => c.operationId)).size).toBe(1)
    })

    t.test('the reason is kept on the version and the change row, trimmed', async () => {
      const scopeId = newScope()
      const { results } = await t.backend.remember({
        scopeId,
        entries: [
          { kind: 'fact', text: 'with a reason', reason: '  stated by the user  ' },
          { kind: 'fact', text: 'with a blank reason', reason: '   ' },
        ],
      })
      expect(results.map((r) => r.memory.reason)).toEqual(['stated by the user', null])
      const { changes } = await t.backend.changes({ scopeId, since: 0 })
      expect(changes.map((c) => c.reason)).toEqual(['stated by the user', null])
    })
  })
}
