/* Conformance: source capture (docs/memory-model.md), scope ids, verify and rebuild (docs/storage.md). */
import { createHash } from 'node:crypto'

import { expect } from 'vitest'

import type { ConformanceSuite } from './harness.case.js'
import {
  ALL_STATES,
  expectCode,
  expectEmptyScope,
  newScope,
  rememberOne,
  searchIds,
  src,
  unsafe,
} from './harness.case.js'

export function sourcesArea(suite: ConformanceSuite): void {
  suite.area('captureSource', (t) => {
    t.test('positions run 1..n per scope and capture creates no memory', async () => {
      const a = newScope()
      const b = newScope()
      const positions: number[] = []
      for (const id of ['s1', 's2', 's3']) {
        const res = await t.backend.captureSource({ scopeId: a, sourceId: id, content: `c ${id}` })
        expect(res).toEqual({
          status: 'accepted',
          source: { name: 'content', sourceId: id },
          position: res.position,
          created: true,
        })
        positions.push(res.position)
      }
      expect(positions).toEqual([1, 2, 3])
      const inB = await t.backend.captureSource({ scopeId: b, sourceId: 's1', content: 'other' })
      expect(inB.position).toBe(1)
      const generated = await t.backend.captureSource({ scopeId: a, content: 'no id given' })
      expect(generated.position).toBe(4)
      expect(generated.created).toBe(true)
      expect(generated.source.sourceId).toMatch(/^[\x21-\x7E]{1,128}$/)
      expect(['s1', 's2', 's3']).not.toContain(generated.source.sourceId)
      await expectEmptyScope(t.backend, a)
      await expectEmptyScope(t.backend, b)
    })

    t.test('the same payload again is idempotent, whatever the metadata key order', async () => {
      const scopeId = newScope()
      await t.backend.captureSource({ scopeId, sourceId: 'first', content: 'earlier' })
      const payload = {
        scopeId,
        sourceId: 'chat-42',
        content: 'the user said hi',
        metadata: { author: 'ana', nested: { b: 2, a: 1 }, tags: ['x', 'y'] },
        occurredAt: '2024-01-01T02:00:00+02:00',
      }
      const first = await t.backend.captureSource(payload)
      expect(first).toMatchObject({ position: 2, created: true })
      const again = await t.backend.captureSource({
        ...payload,
        metadata: { tags: ['x', 'y'], nested: { a: 1, b: 2 }, author: 'ana' },
        occurredAt: '2024-01-01T00:00:00Z',
        mediaType: 'text/plain',
      })
      expect(again).toEqual({ ...first, created: false })
      const next = await t.backend.captureSource({ scopeId, sourceId: 'later', content: 'next' })
      expect(next.position).toBe(3)
    })

    t.test('the same id with a different payload is source_conflict', async () => {
      const scopeId = newScope()
      const base = { scopeId, sourceId: 'doc', content: 'version one', metadata: { k: 1 } }
      await t.backend.captureSource(base)
      const variants = [
        { ...base, content: 'version two' },
        { ...base, metadata: { k: 2 } },
        { ...base, occurredAt: '2024-01-01T00:00:00Z' },
        { ...base, mediaType: 'text/markdown' },
      ]
      for (const variant of variants) {
        await expectCode(t.backend.captureSource(variant), 'source_conflict')
      }
      const next = await t.backend.captureSource({ scopeId, sourceId: 'doc2', content: 'x' })
      expect(next.position).toBe(2)
    })

    t.test('a __proto__ key in metadata is kept: {} afterwards is source_conflict', async () => {
      const scopeId = newScope()
      const metadata = JSON.parse('{"__proto__":{"admin":true},"z":1}') as Record<string, unknown>
      const first = await t.backend.captureSource({
        scopeId,
        sourceId: 'p',
        content: 'c',
        metadata,
      })
      expect(first.created).toBe(true)
      await expectCode(
        t.backend.captureSource({ scopeId, sourceId: 'p', content: 'c', metadata: {} }),
        'source_conflict',
      )
      const again = await t.backend.captureSource({
        scopeId,
        sourceId: 'p',
        content: 'c',
        metadata,
      })
      expect(again).toEqual({ ...first, created: false })
      const [view] = (await t.backend.getSources({ scopeId, sourceIds: ['p'] })).sources
      expect(JSON.stringify(view?.metadata)).toBe('{"__proto__":{"admin":true},"z":1}')
      expect(Object.getPrototypeOf(view?.metadata)).toBe(Object.prototype)
    })

    t.test('invalid captures are invalid_request', async () => {
      const scopeId = newScope()
      const bad = [
        { scopeId, sourceId: 'a', content: '   ' },
        { scopeId, sourceId: 'with\ttab', content: 'x' },
        { scopeId, sourceId: '', content: 'x' },
        { scopeId: 'bad scope', sourceId: 'a', content: 'x' },
        { scopeId, sourceId: 'a', content: 'x', metadata: ['not', 'an', 'object'] },
        { scopeId, sourceId: 'a', content: 'x', occurredAt: 'yesterday' },
        { scopeId, sourceId: 'a', content: 'nul \u0000 inside' },
      ]
      for (const cmd of bad) {
        await expectCode(t.backend.captureSource(cmd as never), 'invalid_request')
      }
      const ok = await t.backend.captureSource({ scopeId, sourceId: 'a', content: 'x' })
      expect(ok.position).toBe(1)
    })

    t.test('each invalid field is named; the documented limits hold at their edges', async () => {
      const scopeId = newScope()
      const blank = 'must be a non-blank string'
      const ascii = 'must be a printable ASCII media type'
      const object = 'must be a JSON object'
      const cases: [Record<string, unknown>, string, string][] = [
        [{ content: 5 }, 'content', blank],
        [{ content: ' \n ' }, 'content', blank],
        [{ content: 'nul \u0000 inside' }, 'content', ''],
        [{ content: '\u00e9'.repeat(500_000) + 'a' }, 'content', '1000000 UTF-8 bytes'],
        [{ content: 'x', mediaType: '' }, 'media_type', ascii],
        [{ content: 'x', mediaType: 'text plain' }, 'media_type', ascii],
        [{ content: 'x', mediaType: 't'.repeat(129) }, 'media_type', ascii],
        [{ content: 'x', mediaType: 'text/pl\u00e4in' }, 'media_type', ascii],
        [{ content: 'x', mediaType: 5 }, 'media_type', ascii],
        [{ content: 'x', metadata: 5 }, 'metadata', object],
        [{ content: 'x', metadata: 'tags' }, 'metadata', object],
        [{ content: 'x', metadata: [] }, 'metadata', object],
        [
          { content: 'x', metadata: JSON.parse('{"e\\u0301":1,"\\u00e9":2}') },
          'source.metadata',
          '',
        ],
        [{ content: 'x', occurredAt: 'yesterday' }, 'occurred_at', ''],
      ]
      for (const [fields, field, message] of cases) {
        const err = await expectCode(
          t.backend.captureSource(unsafe({ scopeId, sourceId: 'edge', ...fields })),
          'invalid_request',
        )
        const errors = err.details?.['errors'] as { field: string; message: string }[]
        const what = JSON.stringify(fields).slice(0, 80)
        expect(
          errors.map((e) => e.field),
          what,
        ).toEqual([field])
        expect(errors[0]!.message, what).toContain(message)
      }
      // At most 1,000,000 UTF-8 bytes (not UTF-16 units); a media type of 1–128 printable ASCII.
      const big = await t.backend.captureSource({
        scopeId,
        sourceId: 'edge',
        content: '\u00e9'.repeat(500_000),
        mediaType: '~'.repeat(128),
      })
      expect(big).toMatchObject({ position: 1, created: true })
      const generated = await t.backend.captureSource({ scopeId, content: 'no id' })
      expect(generated.source.sourceId).toMatch(/^src_[0-9a-f]{32}$/)
    })

    t.test('a conflict names the source; the payload hash is stable across versions', async () => {
      const scopeId = newScope()
      const first = { scopeId, sourceId: 'doc', content: 'one', metadata: { k: 1 } }
      await t.backend.captureSource(first)
      const err = await expectCode(
        t.backend.captureSource({ scopeId, sourceId: 'doc', content: 'two' }),
        'source_conflict',
      )
      expect(err.message).toBe('source doc already exists with different content')
      expect(err.details).toEqual({ source_id: 'doc' })
      // A database written by an earlier version must still find its payloads equal, so the hash
      // is pinned: SHA-256 over the domain tag, NUL and the canonical payload.
      const rows: { payload: string; payloadHash: string }[] = []
      await t.backend.exportRows((r) => {
        if (r.type === 'source' && r.row.scopeId === scopeId) rows.push(r.row)
      })
      expect(rows).toHaveLength(1)
      const payload =
        '{"content":"one","media_type":"text/plain","metadata":{"k":1},"occurred_at":null}'
      expect(rows[0]!.payload).toBe(payload)
      expect(rows[0]!.payloadHash).toBe(
        createHash('sha256').update(`powercontext:source-payload:v1\u0000${payload}`).digest('hex'),
      )
    })
  })
}

export function scopesArea(suite: ConformanceSuite): void {
  suite.area('scopes', (t) => {
    t.test('case-variant scope ids are distinct everywhere', async () => {
      const suffix = newScope('x')
      const upper = `Proj-${suffix}`
      const lower = `proj-${suffix}`
      await t.backend.captureSource({ scopeId: upper, sourceId: 'ev', content: 'upper evidence' })
      const lowerSource = await t.backend.captureSource({
        scopeId: lower,
        sourceId: 'ev',
        content: 'lower evidence, no conflict',
      })
      expect(lowerSource).toMatchObject({ position: 1, created: true })
      const entry = { kind: 'fact', text: 'case matters', sources: [src('ev')] }
      const mu = await rememberOne(t.backend, upper, entry)
      const ml = await rememberOne(t.backend, lower, entry)
      expect(ml.memoryRef.artifactId).not.toBe(mu.memoryRef.artifactId)
      const listed = async (scopeId: string) =>
        (await t.backend.list({ scopeId, states: ALL_STATES })).memories.map((m) => m.scopeId)
      expect(await listed(upper)).toEqual([upper])
      expect(await listed(lower)).toEqual([lower])
      expect((await t.backend.changes({ scopeId: lower, since: 0 })).headSeq).toBe(1)
      expect(await searchIds(t.backend, lower, 'case')).toEqual([ml.memoryRef.artifactId])
      await expectCode(
        t.backend.get({ scopeId: lower, memoryId: mu.memoryRef.artifactId }),
        'memory_not_found',
      )
      await expectCode(
        t.backend.forget({ scopeId: upper, memoryId: ml.memoryRef.artifactId }),
        'memory_not_found',
      )
      const other = `PROJ-${suffix}`
      await expectCode(t.backend.remember({ scopeId: other, entries: [entry] }), 'source_not_found')
      await expectEmptyScope(t.backend, other)
    })
  })
}

export function maintenanceArea(suite: ConformanceSuite): void {
  suite.area('verify and rebuild', (t) => {
    t.test('verify is ok on a freshly opened backend', async () => {
      const report = await t.backend.verify()
      expect(report.problems).toEqual([])
      expect(report.ok).toBe(true)
    })

    t.test('verify is ok after a mix of operations and counts what was written', async () => {
      const scopeId = newScope()
      const before = await t.backend.verify()
      await t.backend.captureSource({ scopeId, sourceId: 'ev', content: 'evidence' })
      const { results } = await t.backend.remember({
        scopeId,
        entries: [
          { kind: 'fact', text: 'mix one', sources: [src('ev')] },
          { kind: 'fact', text: 'mix two' },
          { kind: 'fact', text: 'mix three' },
          { kind: 'fact', text: 'mix one', sources: [src('ev')] },
        ],
      })
      const [one, two, three] = results.map((r) => r.memory)
      await t.backend.update({ scopeId, memoryRef: one!.memoryRef, text: 'mix one updated' })
      await t.backend.forget({ scopeId, memoryId: two!.memoryRef.artifactId })
      await t.backend.forget({ scopeId, memoryId: three!.memoryRef.artifactId })
      await t.backend.restore({ scopeId, memoryId: three!.memoryRef.artifactId, toRevision: 1 })
      await t.backend.restore({ scopeId, memoryId: one!.memoryRef.artifactId, toRevision: 1 })
      await expectCode(
        t.backend.update({ scopeId, memoryRef: one!.memoryRef, text: 'stale' }),
        'revision_conflict',
      )
      const after = await t.backend.verify()
      expect(after.problems).toEqual([])
      expect(after.ok).toBe(true)
      expect(after.counts.memories - before.counts.memories).toBe(3)
      expect(after.counts.versions - before.counts.versions).toBe(5)
      expect(after.counts.heads - before.counts.heads).toBe(2)
      expect(after.counts.changes - before.counts.changes).toBe(8)
    })

    t.test('rebuild restores the projections; verify and search still work', async () => {
      const scopeId = newScope()
      const kept = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'rebuild keeps me' })
      const gone = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'rebuild drops me' })
      const moved = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'rebuild old' })
      await t.backend.forget({ scopeId, memoryId: gone.memoryRef.artifactId })
      await t.backend.update({ scopeId, memoryRef: moved.memoryRef, text: 'rebuild new' })
      const report = await t.backend.rebuild()
      const verified = await t.backend.verify()
      expect(verified.problems).toEqual([])
      expect(verified.ok).toBe(true)
      expect(report.heads).toBe(verified.counts.heads)
      const ids = await searchIds(t.backend, scopeId, 'rebuild')
      expect(ids.sort()).toEqual([kept.memoryRef.artifactId, moved.memoryRef.artifactId].sort())
      expect(await searchIds(t.backend, scopeId, 'old')).toEqual([])
      expect(await searchIds(t.backend, scopeId, 'drops')).toEqual([])
      const again = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'after rebuild' })
      expect(await searchIds(t.backend, scopeId, 'after')).toEqual([again.memoryRef.artifactId])
      const dup = await t.backend.remember({
        scopeId,
        entries: [{ kind: 'fact', text: 'rebuild keeps me' }],
      })
      expect(dup.results[0]!.status).toBe('unchanged')
      expect((await t.backend.verify()).ok).toBe(true)
    })
  })
}
