/* Conformance: the browsing reads — `listScopes` (counts per state, keyset pages), `getSources`
 * and `listSources` (evidence content, journal cursor and high watermark, flush status). */
import { expect } from 'vitest'

import type { ConformanceSuite } from './harness.case.js'
import {
  expectCode,
  expectInvalidField,
  newScope,
  rememberOne,
  src,
  unsafe,
} from './harness.case.js'

const DRAFT = { mode: 'structured' as const, model: null, promptVersion: null, details: {} }

export function listingArea(suite: ConformanceSuite): void {
  suite.area('browsing reads', (t) => {
    t.test('scopes: counts per state, newest change, journal counters, keyset pages', async () => {
      const base = newScope('browse')
      const [a, b, c] = [`${base}/a`, `${base}/b`, `${base}/c`]
      const one = await rememberOne(t.backend, a, { kind: 'fact', text: 'alpha one' })
      const two = await rememberOne(t.backend, a, { kind: 'fact', text: 'alpha two' })
      const three = await rememberOne(t.backend, a, { kind: 'fact', text: 'alpha three' })
      await rememberOne(t.backend, a, { kind: 'decision', text: 'alpha four' })
      await t.backend.forget({ scopeId: a, memoryId: one.memoryRef.artifactId })
      const merged = await t.backend.merge({
        scopeId: a,
        inputs: [two.memoryRef, three.memoryRef],
        kind: 'fact',
        text: 'alpha two and three',
      })
      await t.backend.restore({ scopeId: a, memoryId: two.memoryRef.artifactId })
      await t.backend.captureSource({ scopeId: b, sourceId: 's1', content: 'only evidence' })
      await rememberOne(t.backend, c, { kind: 'fact', text: 'gamma' })

      const first = await t.backend.listScopes({ after: base, limit: 2 })
      expect(first.scopes.map((s) => s.scopeId)).toEqual([a, b])
      expect(first.nextAfter).toBe(b)
      const sa = first.scopes[0]!
      // one forgotten; two, three back (active); the merge result retired; four active.
      expect(sa.counts).toEqual({ active: 3, forgotten: 1, merged: 0, retired: 1 })
      expect(sa.memoryCount).toBe(5)
      const feed = await t.backend.changes({ scopeId: a, since: 0 })
      expect(sa.headSeq).toBe(feed.headSeq)
      expect(sa.lastChangeAt).toBe(feed.changes.at(-1)!.at)
      expect(merged.memory.state).toBe('active')
      expect(sa).toMatchObject({ highWatermark: 0, cursor: 0 })
      expect(first.scopes[1]).toMatchObject({
        scopeId: b,
        counts: { active: 0, forgotten: 0, merged: 0, retired: 0 },
        memoryCount: 0,
        headSeq: 0,
        lastChangeAt: null,
        highWatermark: 1,
        cursor: 0,
      })
      const second = await t.backend.listScopes({ after: b, limit: 1 })
      expect(second.scopes.map((s) => s.scopeId)).toEqual([c])
      expect(second.scopes[0]!.counts.active).toBe(1)
      // Nothing after the last scope of the database.
      const all: string[] = []
      let after: string | undefined = base
      for (;;) {
        const page = await t.backend.listScopes({ after, limit: 500 })
        all.push(...page.scopes.map((s) => s.scopeId))
        if (page.nextAfter === null) break
        after = page.nextAfter
      }
      expect(all.slice(0, 3)).toEqual([a, b, c])
      expect([...all].sort()).toEqual(all)
      expect(new Set(all).size).toBe(all.length)
    })

    t.test(
      'scopes: a fresh database from its first scope; the last page ends the listing',
      async () => {
        const backend = await t.open()
        // Upper-case ids sort before lower-case ones: no page may start after the empty id.
        const base = newScope('Browse')
        const ids = [`${base}/a`, `${base}/b`, `${base}/c`]
        for (const id of ids) await rememberOne(backend, id, { kind: 'fact', text: `in ${id}` })
        const all = await backend.listScopes({})
        expect(all.scopes.map((s) => s.scopeId)).toEqual(ids)
        expect(all.nextAfter).toBeNull()
        // Exactly `limit` scopes left: the page is the last one.
        const exact = await backend.listScopes({ limit: 3 })
        expect(exact.scopes.map((s) => s.scopeId)).toEqual(ids)
        expect(exact.nextAfter).toBeNull()
        const part = await backend.listScopes({ limit: 2 })
        expect(part.scopes.map((s) => s.scopeId)).toEqual(ids.slice(0, 2))
        expect(part.nextAfter).toBe(ids[1])
        expect(await backend.listScopes({ after: ids[2] })).toEqual({ scopes: [], nextAfter: null })
      },
    )

    t.test('scopes: bad input is invalid_request', async () => {
      await expectInvalidField(
        t.backend.listScopes({ limit: 0 }),
        'limit',
        'must be between 1 and 500',
      )
      await expectCode(t.backend.listScopes({ limit: 501 }), 'invalid_request')
      await expectInvalidField(
        t.backend.listScopes({ after: 'has space' }),
        'after',
        'must be printable ASCII without spaces',
      )
      await expectInvalidField(
        t.backend.listScopes(unsafe({ after: 7 })),
        'after',
        'must be a string',
      )
    })

    t.test('sources: content, metadata, positions and flush status, paged', async () => {
      const scopeId = newScope()
      await t.backend.captureSource({
        scopeId,
        sourceId: 'e1',
        content: 'first evidence',
        mediaType: 'text/markdown',
        metadata: { file: 'README.md', line: 3 },
        occurredAt: '2025-05-01T10:00:00Z',
      })
      for (const id of ['e2', 'e3', 'e4']) {
        await t.backend.captureSource({ scopeId, sourceId: id, content: `evidence ${id}` })
      }
      // Process e1, then fail e2 alone once with maxAttempts 1: it is skipped.
      let w = await t.backend.journal.window({ scopeId, limit: 1 })
      await t.backend.journal.apply({
        scopeId,
        expected: w.cursor,
        through: 1,
        decisions: [],
        record: DRAFT,
      })
      // A source at the cursor's position is processed.
      const atCursor = await t.backend.listSources({ scopeId, limit: 1 })
      expect(atCursor.cursor).toBe(1)
      expect(atCursor.sources.map((s) => [s.position, s.status])).toEqual([[1, 'processed']])
      w = await t.backend.journal.window({ scopeId, limit: 1 })
      const failed = await t.backend.journal.fail({
        scopeId,
        expected: w.cursor,
        through: 2,
        error: { code: 'invalid_inference_output', message: 'bad output' },
        maxAttempts: 1,
        record: DRAFT,
      })
      expect(failed.skipped).not.toBeNull()

      const page1 = await t.backend.listSources({ scopeId, limit: 3 })
      expect(page1).toMatchObject({ cursor: 2, highWatermark: 4, nextAfter: 3 })
      expect(page1.sources.map((s) => [s.source.sourceId, s.position, s.status])).toEqual([
        ['e1', 1, 'processed'],
        ['e2', 2, 'skipped'],
        ['e3', 3, 'pending'],
      ])
      expect(page1.sources[0]).toMatchObject({
        source: src('e1'),
        content: 'first evidence',
        mediaType: 'text/markdown',
        metadata: { file: 'README.md', line: 3 },
        occurredAt: '2025-05-01T10:00:00.000Z',
        failure: null,
      })
      expect(page1.sources[1]!.failure).toEqual({
        attempts: 1,
        error: { code: 'invalid_inference_output', message: 'bad output' },
      })
      const page2 = await t.backend.listSources({ scopeId, after: 3 })
      expect(page2.sources.map((s) => s.source.sourceId)).toEqual(['e4'])
      expect(page2.nextAfter).toBeNull()
      expect((await t.backend.listSources({ scopeId, after: 4 })).sources).toEqual([])
      const empty = await t.backend.listSources({ scopeId: newScope() })
      expect(empty).toEqual({ sources: [], cursor: 0, highWatermark: 0, nextAfter: null })

      const got = await t.backend.getSources({ scopeId, sourceIds: ['e3', 'e1', 'e3'] })
      expect(got.sources.map((s) => s.source.sourceId)).toEqual(['e3', 'e1'])
      expect(got.sources[1]).toEqual(page1.sources[0])
      const missing = await expectCode(
        t.backend.getSources({ scopeId, sourceIds: ['nope', 'e1', 'nah'] }),
        'source_not_found',
      )
      expect(missing.message).toBe(`no source nope, nah in scope ${scopeId}`)
      expect(missing.details).toEqual({ source_ids: ['nope', 'nah'] })
      await expectCode(
        t.backend.getSources({ scopeId: newScope(), sourceIds: ['e1'] }),
        'source_not_found',
      )
    })

    t.test('sources: an upgraded source shows the payload the reference stored', async () => {
      const scopeId = newScope()
      const original = '{"metadata":{"b":1,"a":2},"content":"café from the reference"}'
      await t.backend.importLegacyScope({
        scopeId,
        legacyScopeId: 'reference-scope',
        origin: 'conformance',
        fingerprint: '0'.repeat(64),
        steps: async function* () {
          yield {
            type: 'source' as const,
            sourceId: 'old-1',
            position: 1,
            content: 'café from the reference',
            metadata: { b: 1, a: 2 },
            originalPayload: new TextEncoder().encode(original),
          }
        },
      })
      await t.backend.captureSource({ scopeId, sourceId: 'new-1', content: 'captured here' })
      const { sources } = await t.backend.getSources({ scopeId, sourceIds: ['old-1', 'new-1'] })
      expect(sources.map((s) => [s.source.sourceId, s.content, s.legacyPayload])).toEqual([
        ['old-1', 'café from the reference', original],
        ['new-1', 'captured here', null],
      ])
      const listed = await t.backend.listSources({ scopeId })
      expect(listed.sources.map((s) => s.legacyPayload)).toEqual([original, null])
    })

    t.test('sources: bad input is invalid_request', async () => {
      const scopeId = newScope()
      const ids = Array.from({ length: 101 }, (_, i) => `s${i}`)
      for (const sourceIds of [[], ids, unsafe<string[]>('s1')]) {
        await expectInvalidField(
          t.backend.getSources({ scopeId, sourceIds }),
          'source_ids',
          'must hold 1–100 source ids',
        )
      }
      // 100 ids are within bounds: the answer is that none of them is in the scope.
      const hundred = await expectCode(
        t.backend.getSources({ scopeId, sourceIds: ids.slice(0, 100) }),
        'source_not_found',
      )
      expect(hundred.details).toEqual({ source_ids: ids.slice(0, 100) })
      await expectInvalidField(
        t.backend.getSources({ scopeId, sourceIds: ['ok', 'a\nb'] }),
        'source_ids[1]',
        'must be text without control characters',
      )
      await expectInvalidField(
        t.backend.listSources({ scopeId, limit: 101 }),
        'limit',
        'must be between 1 and 100',
      )
      await expectInvalidField(
        t.backend.listSources({ scopeId, after: -1 }),
        'after',
        `must be between 0 and ${Number.MAX_SAFE_INTEGER}`,
      )
      await expectCode(t.backend.listSources({ scopeId: '' }), 'invalid_request')
    })

    t.test('a large source reads back exactly, escapes and multi-byte text included', async () => {
      const scopeId = newScope('browse-large')
      const content = `${'line "quoted" \\ tab\t 会议纪要 🎉\n'.repeat(4000)}end \\`
      await t.backend.captureSource({
        scopeId,
        sourceId: 'big',
        content,
        mediaType: 'text/markdown',
        metadata: { b: 'two', a: ['"one"'] },
      })
      const [got] = (await t.backend.getSources({ scopeId, sourceIds: ['big'] })).sources
      const [listed] = (await t.backend.listSources({ scopeId, limit: 1 })).sources
      for (const view of [got!, listed!]) {
        expect(view.content).toBe(content)
        expect(view.mediaType).toBe('text/markdown')
        expect(view.metadata).toEqual({ a: ['"one"'], b: 'two' })
        expect(JSON.parse(JSON.stringify(view)).content).toBe(content)
      }
    })
  })
}
