/*
 * Conformance: the source journal and cursor of flush (DESIGN §6), through the SPI's `journal`:
 * windows after the cursor, decisions applied with the cursor advance in one transaction, replay
 * after a failure, cursor CAS between concurrent flushes, poison sources skipped and reported by
 * the change feed, decision records.
 */
import { expect } from 'vitest'

import type { FlushDecision, FlushRecordDraft } from '../../src/storage/spi/flush-types.js'
import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import type { ConformanceSuite } from './harness.case.js'
import { ALL_STATES, expectCode, newScope, rememberOne, src } from './harness.case.js'

const DRAFT: FlushRecordDraft = {
  mode: 'structured',
  model: null,
  promptVersion: null,
  details: { note: 'conformance' },
}

async function capture(backend: MemoryBackend, scopeId: string, ...ids: string[]): Promise<void> {
  for (const id of ids) await backend.captureSource({ scopeId, sourceId: id, content: `c ${id}` })
}

const create = (text: string, ...sources: string[]): Extract<FlushDecision, { op: 'create' }> => ({
  op: 'create',
  kind: 'fact',
  text,
  sources,
  observedAt: null,
  reason: null,
})

async function state(backend: MemoryBackend, scopeId: string) {
  return {
    window: await backend.journal.window({ scopeId }),
    changes: await backend.changes({ scopeId, since: 0 }),
    list: await backend.list({ scopeId, states: ALL_STATES }),
    records: await backend.journal.records({ scopeId }),
  }
}

export function flushArea(suite: ConformanceSuite): void {
  suite.area('flush journal', (t) => {
    t.test('the window starts after the cursor, bounded by limit and until', async () => {
      const scopeId = newScope()
      const empty = await t.backend.journal.window({ scopeId })
      expect(empty).toMatchObject({ cursor: { position: 0, generation: 0 }, highWatermark: 0 })
      expect(empty.sources).toEqual([])
      await t.backend.captureSource({
        scopeId,
        sourceId: 'a',
        content: '{"entries":[]}',
        mediaType: 'application/json',
        metadata: { k: [1, 2] },
        occurredAt: '2025-01-02T03:04:05+01:00',
      })
      await capture(t.backend, scopeId, 'b', 'c', 'd')
      const w = await t.backend.journal.window({ scopeId, limit: 3 })
      expect(w.highWatermark).toBe(4)
      expect(w.sources.map((s) => [s.sourceId, s.position])).toEqual([
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ])
      expect(w.sources[0]).toMatchObject({
        content: '{"entries":[]}',
        mediaType: 'application/json',
        metadata: { k: [1, 2] },
        occurredAt: '2025-01-02T02:04:05.000Z',
      })
      const until = await t.backend.journal.window({ scopeId, until: 2 })
      expect(until.sources.map((s) => s.position)).toEqual([1, 2])
      await expectCode(t.backend.journal.window({ scopeId, limit: 0 }), 'invalid_request')
      await expectCode(t.backend.journal.window({ scopeId, limit: 1001 }), 'invalid_request')
    })

    t.test('a window stops at its payload budget, but always holds one source', async () => {
      const scopeId = newScope()
      const big = 'x'.repeat(1_000_000)
      for (let i = 0; i < 9; i += 1)
        await t.backend.captureSource({ scopeId, sourceId: `big${i}`, content: big })
      const w = await t.backend.journal.window({ scopeId })
      expect(w.highWatermark).toBe(9)
      expect(w.sources).toHaveLength(8)
      const one = await t.backend.journal.window({ scopeId, limit: 1 })
      expect(one.sources).toHaveLength(1)
    })

    t.test('apply writes decisions and advances the cursor in one transaction', async () => {
      const scopeId = newScope()
      await capture(t.backend, scopeId, 'old')
      const a = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'port is 8080' })
      const b = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'host is alpha' })
      const c = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'host is beta' })
      await t.backend.journal.apply({
        scopeId,
        expected: { position: 0, generation: 0 },
        through: 1,
        decisions: [],
        record: DRAFT,
      })
      await capture(t.backend, scopeId, 's1', 's2')
      const w = await t.backend.journal.window({ scopeId })
      expect(w.cursor).toEqual({ position: 1, generation: 1 })
      const res = await t.backend.journal.apply({
        scopeId,
        expected: w.cursor,
        through: 3,
        decisions: [
          create('deploys go through CI', 's1'),
          create('port is 8080', 's2'),
          { ...create('port is 9090', 's2'), op: 'update', target: a.memoryRef },
          {
            ...create('hosts are alpha and beta', 's1'),
            op: 'merge',
            targets: [b.memoryRef, c.memoryRef],
            observedAt: '2025-06-01T00:00:00Z',
          },
        ],
        record: DRAFT,
      })
      expect(res.cursor).toBe(3)
      expect(res.applied.map((x) => [x.op, x.status])).toEqual([
        ['create', 'created'],
        ['create', 'created'],
        ['update', 'updated'],
        ['merge', 'merged'],
      ])
      const merged = res.applied[3]!.memory
      expect(merged.sources).toEqual([src('s1')])
      expect(merged.observedAt).toBe('2025-06-01T00:00:00.000Z')
      expect(res.applied[2]!.memory.sources).toEqual([src('s2')])
      expect(new Set(res.changes.map((x) => x.operationId))).toEqual(new Set([res.operationId]))
      expect(res.changes.map((x) => x.op)).toEqual([
        'add',
        'add',
        'update',
        'merge',
        'merge',
        'merge',
      ])
      const after = await t.backend.journal.window({ scopeId })
      expect(after.cursor).toEqual({ position: 3, generation: 2 })
      const { records } = await t.backend.journal.records({ scopeId })
      expect(records.map((r) => [r.fromPosition, r.toPosition])).toEqual([
        [0, 1],
        [1, 3],
      ])
      expect(records[1]).toMatchObject({ recordId: res.recordId, operationId: res.operationId })
      expect(records[1]!.details['note']).toBe('conformance')
      expect(records[1]!.details['change_seqs']).toEqual(res.changes.map((x) => x.seq))
      const one = await t.backend.journal.records({ scopeId, recordId: res.recordId })
      expect(one.records).toEqual([records[1]])
    })

    t.test(
      'a failure after the decisions leaves cursor and memory untouched (replay)',
      async () => {
        const scopeId = newScope()
        await capture(t.backend, scopeId, 's1')
        const before = await state(t.backend, scopeId)
        const cmd = {
          scopeId,
          expected: before.window.cursor,
          through: 1,
          decisions: [create('replayed fact', 's1')],
          record: DRAFT,
        }
        const boom = new Error('injected between memory write and cursor advance')
        await expect(
          t.backend.journal.apply(cmd, { afterDecisions: () => Promise.reject(boom) }),
        ).rejects.toThrow()
        expect(await state(t.backend, scopeId)).toEqual(before)
        const replay = await t.backend.journal.apply(cmd)
        expect(replay.applied[0]!.status).toBe('created')
        expect((await t.backend.list({ scopeId })).memories.map((m) => m.text)).toEqual([
          'replayed fact',
        ])
      },
    )

    t.test('two applies from one cursor: one wins, the other writes nothing', async () => {
      const scopeId = newScope()
      await capture(t.backend, scopeId, 's1', 's2')
      const w = await t.backend.journal.window({ scopeId })
      const cmd = (text: string) => ({
        scopeId,
        expected: w.cursor,
        through: 2,
        decisions: [create(text, 's1')],
        record: DRAFT,
      })
      const outcomes = await Promise.allSettled([
        t.backend.journal.apply(cmd('first writer')),
        t.backend.journal.apply(cmd('second writer')),
      ])
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
      const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult
      expect(lost.reason).toMatchObject({ code: 'revision_conflict' })
      expect((await t.backend.list({ scopeId })).memories).toHaveLength(1)
      expect((await t.backend.journal.records({ scopeId })).records).toHaveLength(1)
    })

    t.test(
      'decisions may cite only sources of the window; targets must not have moved',
      async () => {
        const scopeId = newScope()
        await capture(t.backend, scopeId, 'before')
        const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'v1 of a fact' })
        await t.backend.journal.apply({
          scopeId,
          expected: { position: 0, generation: 0 },
          through: 1,
          decisions: [],
          record: DRAFT,
        })
        await capture(t.backend, scopeId, 'inside')
        const before = await state(t.backend, scopeId)
        const base = { scopeId, expected: before.window.cursor, through: 2, record: DRAFT }
        await expectCode(
          t.backend.journal.apply({ ...base, decisions: [create('outside evidence', 'before')] }),
          'invalid_inference_output',
        )
        await t.backend.update({ scopeId, memoryRef: m.memoryRef, text: 'v2 of a fact' })
        const moved = await state(t.backend, scopeId)
        const stale: FlushDecision = {
          ...create('v3', 'inside'),
          op: 'update',
          target: m.memoryRef,
        }
        await expectCode(
          t.backend.journal.apply({ ...base, decisions: [create('ok', 'inside'), stale] }),
          'revision_conflict',
        )
        expect(await state(t.backend, scopeId)).toEqual(moved)
        await expectCode(
          t.backend.journal.apply({ ...base, through: 3, decisions: [] }),
          'invalid_request',
        )
      },
    )

    t.test(
      'a source failing alone is skipped after max attempts; the feed reports it once',
      async () => {
        const scopeId = newScope()
        await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'change before the skip' })
        await capture(t.backend, scopeId, 'ok1', 'poison', 'ok2')
        const fail = (through: number, cursor: { position: number; generation: number }) =>
          t.backend.journal.fail({
            scopeId,
            expected: cursor,
            through,
            error: { code: 'invalid_inference_output', message: 'bad output' },
            maxAttempts: 3,
            record: DRAFT,
          })
        let w = await t.backend.journal.window({ scopeId })
        expect(await fail(3, w.cursor)).toMatchObject({
          recorded: true,
          attempts: 1,
          skipped: null,
        })
        w = await t.backend.journal.window({ scopeId })
        expect(w.isolating).toBe(true)
        expect(w.sources.map((s) => s.sourceId)).toEqual(['ok1'])
        expect(w.failure).toMatchObject({
          attempts: 1,
          error: { code: 'invalid_inference_output' },
        })
        await t.backend.journal.apply({
          scopeId,
          expected: w.cursor,
          through: 1,
          decisions: [create('from ok1', 'ok1')],
          record: DRAFT,
        })
        w = await t.backend.journal.window({ scopeId })
        expect(w.sources.map((s) => s.sourceId)).toEqual(['poison'])
        expect(w.failure).toBeNull()
        expect(await fail(2, w.cursor)).toMatchObject({ attempts: 1, skipped: null })
        w = await t.backend.journal.window({ scopeId })
        expect(await fail(2, w.cursor)).toMatchObject({ attempts: 2, skipped: null })
        const stale = w.cursor
        w = await t.backend.journal.window({ scopeId })
        expect(await fail(2, stale)).toMatchObject({ recorded: false })
        const skip = await fail(2, w.cursor)
        expect(skip).toMatchObject({ recorded: true, attempts: 3, cursor: 2 })
        expect(skip.skipped).toMatchObject({
          source: src('poison'),
          position: 2,
          attempts: 3,
          error: { code: 'invalid_inference_output', message: 'bad output' },
        })
        w = await t.backend.journal.window({ scopeId })
        expect(w.isolating).toBe(true) // the failed window (0, 3] is retried source by source to its end
        expect(w.sources.map((s) => s.sourceId)).toEqual(['ok2'])
        await t.backend.journal.apply({
          scopeId,
          expected: w.cursor,
          through: 3,
          decisions: [create('from ok2', 'ok2')],
          record: DRAFT,
        })
        const all = await t.backend.changes({ scopeId, since: 0 })
        expect(all.headSeq).toBe(4)
        expect(all.changes.map((c) => c.seq)).toEqual([1, 2, 4])
        expect(all.skippedSources).toEqual([skip.skipped])
        expect(skip.skipped!.seq).toBe(3)
        const seen: number[] = []
        for (let since = 0; since < all.headSeq;) {
          const page = await t.backend.changes({ scopeId, since, limit: 1 })
          seen.push(...(page.skippedSources ?? []).map((s) => s.seq))
          since = page.changes.at(-1)?.seq ?? page.headSeq
        }
        expect(seen).toEqual([3])
        const records = (await t.backend.journal.records({ scopeId })).records
        expect(records.map((r) => [r.fromPosition, r.toPosition])).toEqual([
          [0, 1],
          [1, 2],
          [2, 3],
        ])
        expect(records[1]!.details['skipped']).toEqual([
          {
            source_id: 'poison',
            position: 2,
            attempts: 3,
            error: { code: 'invalid_inference_output', message: 'bad output' },
          },
        ])
      },
    )

    t.test('pending scopes and record pages', async () => {
      const scopeId = newScope('pending')
      await capture(t.backend, scopeId, 'p1', 'p2', 'p3')
      expect(await t.backend.journal.pendingScopes({ after: scopeId.slice(0, -1) })).toContain(
        scopeId,
      )
      for (let through = 1; through <= 3; through += 1) {
        const w = await t.backend.journal.window({ scopeId, limit: 1 })
        await t.backend.journal.apply({
          scopeId,
          expected: w.cursor,
          through,
          decisions: [],
          record: DRAFT,
        })
      }
      expect(await t.backend.journal.pendingScopes({ after: scopeId.slice(0, -1) })).not.toContain(
        scopeId,
      )
      const first = await t.backend.journal.records({ scopeId, limit: 2 })
      expect(first.records.map((r) => r.toPosition)).toEqual([1, 2])
      expect(first.nextAfter).toBe(2)
      const next = await t.backend.journal.records({ scopeId, after: 2, limit: 2 })
      expect(next.records.map((r) => r.toPosition)).toEqual([3])
      expect(next.nextAfter).toBeNull()
      await expectCode(t.backend.journal.records({ scopeId, limit: 101 }), 'invalid_request')
    })
  })
}
