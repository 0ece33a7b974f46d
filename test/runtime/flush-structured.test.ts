/**
 * Flush without a generation model (docs/sources-and-flush.md: the fallback without a model): structured
 * sources become memories, a task outcome one mechanical working_note, free text nothing; exact
 * duplicates are no-ops; secrets are refused; a failure injected between the memory writes and
 * the cursor advance is replayed; the scheduler flushes pending scopes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { MEMORY_MEDIA_TYPE, TASK_OUTCOME_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'

const dirs: string[] = []
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-flush-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

let rt: MemoryRuntime
let failNext = false
beforeAll(async () => {
  rt = await MemoryRuntime.open({
    dataDir: tempDir(),
    extraction: {
      flush: {
        hooks: {
          afterDecisions: () => {
            if (!failNext) return
            failNext = false
            throw new Error('injected: crash after the memory writes, before the cursor advance')
          },
        },
      },
    },
  })
})
afterAll(() => rt.close())

let n = 0
const scope = (): string => `flush:structured:${++n}`
const entries = (...e: { kind: string; text: string; observed_at?: string }[]) =>
  JSON.stringify({ entries: e })

describe('flush without a generation model', () => {
  it('reports structured extraction in capabilities and no generation check', async () => {
    expect(rt.capabilities().extraction).toMatchObject({
      mode: 'structured',
      model: null,
      structuredMediaTypes: [MEMORY_MEDIA_TYPE, TASK_OUTCOME_MEDIA_TYPE],
      maxAttempts: 3,
      scheduleSeconds: null,
    })
    expect(Object.keys((await rt.readiness()).checks)).not.toContain('inference.generation')
  })

  it('turns structured entries into memories citing their source', async () => {
    const scopeId = scope()
    expect(await rt.flush({ scopeId })).toMatchObject({ status: 'idle', cursor: 0 })
    const { position } = await rt.captureSource({
      scopeId,
      sourceId: 'notes-1',
      mediaType: MEMORY_MEDIA_TYPE,
      occurredAt: '2025-04-01T10:00:00Z',
      content: entries(
        { kind: 'decision', text: 'Releases are cut from the main branch every Tuesday.' },
        {
          kind: 'constraint',
          text: 'Never push to production on Fridays.',
          observed_at: '2025-03-01T00:00:00Z',
        },
      ),
    })
    const r = await rt.flush({ scopeId })
    expect(r).toMatchObject({
      status: 'processed',
      previousCursor: 0,
      cursor: position,
      highWatermark: 1,
      processedSourceCount: 1,
      mode: 'structured',
    })
    expect(r.changes.map((c) => c.op)).toEqual(['add', 'add'])
    expect(r.sources).toEqual([
      expect.objectContaining({ sourceId: 'notes-1', outcome: 'candidates', candidates: 2 }),
    ])
    const { memories } = await rt.list({ scopeId })
    const byKind = Object.fromEntries(memories.map((m) => [m.kind, m]))
    expect(byKind['decision']).toMatchObject({
      sources: [{ name: 'content', sourceId: 'notes-1' }],
      observedAt: '2025-04-01T10:00:00.000Z',
    })
    expect(byKind['constraint']?.observedAt).toBe('2025-03-01T00:00:00.000Z')
    const hits = await rt.search({ scopeId, query: 'production Fridays' })
    expect(hits.hits.map((h) => h.text)).toEqual(['Never push to production on Fridays.'])
    const records = await rt.flushRecords({ scopeId })
    expect(records.records).toHaveLength(1)
    expect(records.records[0]).toMatchObject({ recordId: r.recordId, mode: 'structured' })
    expect((await rt.flush({ scopeId })).status).toBe('idle')
  })

  it('makes exact duplicates no-ops, in the scope and inside one window', async () => {
    const scopeId = scope()
    await rt.remember({ scopeId, entries: [{ kind: 'fact', text: 'The API is written in Go.' }] })
    const same = entries({ kind: 'fact', text: 'The API is written in Go.' })
    const twice = entries({ kind: 'fact', text: 'The web app uses pnpm.' })
    await rt.captureSource({ scopeId, sourceId: 'a', mediaType: MEMORY_MEDIA_TYPE, content: same })
    await rt.captureSource({ scopeId, sourceId: 'b', mediaType: MEMORY_MEDIA_TYPE, content: twice })
    await rt.captureSource({
      scopeId,
      sourceId: 'c',
      mediaType: `${MEMORY_MEDIA_TYPE.toUpperCase()};charset=utf-8`,
      content: twice,
    })
    const r = await rt.flush({ scopeId })
    expect(r.changes).toHaveLength(1)
    const { memories } = await rt.list({ scopeId })
    expect(memories.map((m) => m.text).sort()).toEqual([
      'The API is written in Go.',
      'The web app uses pnpm.',
    ])
    const pnpm = memories.find((m) => m.text.includes('pnpm'))
    expect(pnpm?.sources.map((s) => s.sourceId)).toEqual(['b', 'c'])
  })

  it('gives a task outcome one working note, free text nothing; a secret never reaches the journal', async () => {
    const scopeId = scope()
    await rt.captureSource({
      scopeId,
      sourceId: 'outcome',
      mediaType: TASK_OUTCOME_MEDIA_TYPE,
      content: JSON.stringify({
        task: 'Fix the flaky CI job',
        outcome: 'partial',
        summary: 'Pinned Node 20; the e2e suite still times out on macOS runners.',
        changed_paths: ['.github/workflows/ci.yml'],
        git_head: 'abc1234',
      }),
    })
    await rt.captureSource({
      scopeId,
      sourceId: 'chat',
      content: 'We decided to always use Postgres 16 and never MySQL.',
    })
    await rt.captureSource({
      scopeId,
      sourceId: 'no-summary',
      mediaType: TASK_OUTCOME_MEDIA_TYPE,
      content: JSON.stringify({ task: 'Look around', outcome: 'done' }),
    })
    // The capture gate refuses it whole (extraction's own refusal of a secret candidate, for
    // sources journaled before the gate, is tested in test/core/extraction-rules.test.ts).
    await expect(
      rt.captureSource({
        scopeId,
        sourceId: 'leaky',
        mediaType: MEMORY_MEDIA_TYPE,
        content: entries(
          { kind: 'fact', text: 'The deploy key is ghp_0123456789abcdefghijABCDEFGHIJ012345' },
          { kind: 'fact', text: 'Staging runs on Kubernetes 1.29.' },
        ),
      }),
    ).rejects.toMatchObject({
      code: 'secret_detected',
      details: { field: 'content', rule: 'github_token' },
    })
    await rt.captureSource({
      scopeId,
      sourceId: 'clean',
      mediaType: MEMORY_MEDIA_TYPE,
      content: entries({ kind: 'fact', text: 'Staging runs on Kubernetes 1.29.' }),
    })
    await rt.captureSource({
      scopeId,
      sourceId: 'broken',
      mediaType: MEMORY_MEDIA_TYPE,
      content: '{',
    })
    const r = await rt.flush({ scopeId })
    expect(r.cursor).toBe(5)
    const outcome = Object.fromEntries(r.sources.map((s) => [s.sourceId, s]))
    expect(outcome['outcome']).toMatchObject({ outcome: 'candidates', candidates: 1 })
    expect(outcome['chat']).toMatchObject({ outcome: 'no_op', candidates: 0 })
    expect(outcome['chat']?.note).toMatch(/generation model/)
    expect(outcome['no-summary']).toMatchObject({ outcome: 'no_op' })
    expect(outcome['leaky']).toBeUndefined()
    expect(outcome['clean']).toMatchObject({ outcome: 'candidates', candidates: 1 })
    expect(outcome['broken']).toMatchObject({ outcome: 'refused' })
    const { memories } = await rt.list({ scopeId })
    expect(memories.map((m) => m.kind).sort()).toEqual(['fact', 'working_note'])
    const note = memories.find((m) => m.kind === 'working_note')
    expect(note?.text).toBe(
      'Task: Fix the flaky CI job\nOutcome: partial\n' +
        'Summary: Pinned Node 20; the e2e suite still times out on macOS runners.\n' +
        'Changed paths: .github/workflows/ci.yml\nGit head: abc1234',
    )
    expect(memories.some((m) => /Postgres/.test(m.text))).toBe(false)
  })

  it('respects limit and until', async () => {
    const scopeId = scope()
    for (const id of ['s1', 's2', 's3', 's4', 's5'])
      await rt.captureSource({ scopeId, sourceId: id, content: `note ${id}` })
    expect(await rt.flush({ scopeId, limit: 2 })).toMatchObject({ previousCursor: 0, cursor: 2 })
    expect(await rt.flush({ scopeId, until: 3 })).toMatchObject({ previousCursor: 2, cursor: 3 })
    expect(await rt.flush({ scopeId, until: 3 })).toMatchObject({ status: 'idle', cursor: 3 })
    expect(await rt.flush({ scopeId })).toMatchObject({ cursor: 5, highWatermark: 5 })
  })

  it('replays the window after a failure between the memory writes and the cursor advance', async () => {
    const scopeId = scope()
    await rt.captureSource({
      scopeId,
      sourceId: 'r1',
      mediaType: MEMORY_MEDIA_TYPE,
      content: entries({ kind: 'preference', text: 'Prefer small pull requests.' }),
    })
    failNext = true
    await expect(rt.flush({ scopeId })).rejects.toThrow()
    expect((await rt.list({ scopeId })).memories).toEqual([])
    expect((await rt.changes({ scopeId, since: 0 })).headSeq).toBe(0)
    expect((await rt.flushRecords({ scopeId })).records).toEqual([])
    const replay = await rt.flush({ scopeId })
    expect(replay).toMatchObject({ status: 'processed', previousCursor: 0, cursor: 1 })
    const { memories } = await rt.list({ scopeId })
    expect(memories.map((m) => m.text)).toEqual(['Prefer small pull requests.'])
    expect((await rt.verify()).problems).toEqual([])
  })

  it('the scheduler flushes every scope with pending sources', async () => {
    const scheduled = await MemoryRuntime.open({ dataDir: tempDir() })
    try {
      const scopes = ['sched:b', 'sched:a', 'sched:c']
      for (const scopeId of scopes)
        await scheduled.captureSource({
          scopeId,
          mediaType: MEMORY_MEDIA_TYPE,
          content: entries({ kind: 'fact', text: `Scheduled fact of ${scopeId}.` }),
        })
      expect(await scheduled.pendingScopes()).toEqual(['sched:a', 'sched:b', 'sched:c'])
      scheduled.startFlushScheduler({ intervalMs: 20 })
      expect(scheduled.capabilities().extraction.scheduleSeconds).toBe(0.02)
      const deadline = Date.now() + 5000
      while ((await scheduled.pendingScopes()).length > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20))
      expect(await scheduled.pendingScopes()).toEqual([])
      for (const scopeId of scopes)
        expect((await scheduled.list({ scopeId })).memories).toHaveLength(1)
    } finally {
      await scheduled.close()
    }
  })
})
