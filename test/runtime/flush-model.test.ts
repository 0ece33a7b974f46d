/**
 * Flush with a generation model (docs/sources-and-flush.md: retrieve first, then the model decides), driven by a
 * scripted OpenAI-compatible chat server on loopback: create / update / merge / noop, time order
 * of conflicting facts, retrieval in pages, planned items seen by later candidates, invalid
 * output (whole window fails, replayed, poison source skipped), timeouts and provider errors.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { MEMORY_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { PROMPT_VERSION } from '../../src/runtime/extraction-prompts.js'
import type { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { decideEach, decision, proposal } from '../support/chat-server.js'
import { useScriptedModel } from '../support/scripted-model-runtime.js'

const { chat, open } = useScriptedModel('pc-flush-model-')
let rt: MemoryRuntime
beforeAll(async () => {
  rt = await open()
})

let n = 0
const scope = (): string => `flush:model:${++n}`
const related = (r: { user: Record<string, unknown> }) =>
  r.user['related_memories'] as { id: string; text: string; observed_at: string | null }[]

describe('flush with a generation model', () => {
  it('reports model extraction and probes the model for readiness', async () => {
    expect(rt.capabilities().extraction).toMatchObject({
      mode: 'model',
      model: 'scripted',
      promptVersion: PROMPT_VERSION,
    })
    expect((await rt.readiness()).checks['inference.generation']).toBe('ready')
  })

  it('creates a proposed memory with its source as evidence (nothing related: no decide call)', async () => {
    const scopeId = scope()
    await rt.captureSource({
      scopeId,
      sourceId: 'meeting',
      occurredAt: '2025-02-03T09:00:00Z',
      content: 'Standup: we agreed that every service must expose /healthz.',
    })
    chat.script(
      proposal({
        kind: 'decision',
        text: 'Every service exposes /healthz.',
        evidence: ['meeting'],
      }),
    )
    const r = await rt.flush({ scopeId })
    expect(r).toMatchObject({ status: 'processed', cursor: 1, mode: 'model' })
    const [propose] = chat.requests
    expect(propose?.schemaName).toBe('memory_candidates')
    expect(propose?.body['response_format']).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'memory_candidates', strict: true },
    })
    expect(propose?.system).toMatch(/secrets/)
    expect(propose?.user['sources']).toEqual([
      expect.objectContaining({
        source_id: 'meeting',
        position: 1,
        occurred_at: '2025-02-03T09:00:00.000Z',
      }),
    ])
    expect(chat.calls('memory_decision')).toEqual([])
    const { memories } = await rt.list({ scopeId })
    expect(memories).toEqual([
      expect.objectContaining({
        kind: 'decision',
        text: 'Every service exposes /healthz.',
        sources: [{ name: 'content', sourceId: 'meeting' }],
        observedAt: '2025-02-03T09:00:00.000Z',
      }),
    ])
    const [record] = (await rt.flushRecords({ scopeId })).records
    expect(record).toMatchObject({
      mode: 'model',
      model: 'scripted',
      promptVersion: PROMPT_VERSION,
    })
    expect(record?.details['model_calls']).toBe(1)
  })

  it('updates a related memory with a newer fact, keeping both evidence sets', async () => {
    const scopeId = scope()
    await rt.captureSource({ scopeId, sourceId: 'old', content: 'region note' })
    const { results } = await rt.remember({
      scopeId,
      entries: [
        {
          kind: 'fact',
          text: 'The default deploy region is eu-east.',
          sources: [{ name: 'content', sourceId: 'old' }],
          observedAt: '2025-01-01T00:00:00Z',
        },
      ],
    })
    const target = results[0]!.memory
    chat.script(proposal())
    await rt.flush({ scopeId })
    chat.reset()
    await rt.captureSource({
      scopeId,
      sourceId: 'new',
      occurredAt: '2025-05-01T00:00:00Z',
      content: 'From today the default deploy region is eu-north.',
    })
    chat.script(
      proposal({ text: 'The default deploy region is eu-north.', evidence: ['new'] }),
      (req) => {
        expect(related(req).map((m) => [m.id, m.observed_at])).toEqual([
          [target.memoryRef.artifactId, '2025-01-01T00:00:00.000Z'],
        ])
        return decision('update', {
          targets: [target.memoryRef.artifactId],
          text: 'The default deploy region is eu-north.',
        })
      },
    )
    const r = await rt.flush({ scopeId })
    expect(r.changes.map((c) => [c.op, c.memoryId, c.toRevision])).toEqual([
      ['update', target.memoryRef.artifactId, 2],
    ])
    const { memory } = await rt.get({ scopeId, memoryId: target.memoryRef.artifactId })
    expect(memory).toMatchObject({
      text: 'The default deploy region is eu-north.',
      observedAt: '2025-05-01T00:00:00.000Z',
      sources: [
        { name: 'content', sourceId: 'new' },
        { name: 'content', sourceId: 'old' },
      ],
    })
    const record = (await rt.flushRecords({ scopeId, recordId: r.recordId! })).records[0]
    expect(record?.details['retrievals']).toEqual([
      expect.objectContaining({ candidate: 0, memory_ids: [target.memoryRef.artifactId] }),
    ])
    expect(record?.details['decisions']).toEqual([
      expect.objectContaining({ action: 'update', targets: [target.memoryRef.artifactId] }),
    ])
  })

  it('merges related memories into a new one and freezes the inputs', async () => {
    const scopeId = scope()
    const { results } = await rt.remember({
      scopeId,
      entries: [
        { kind: 'fact', text: 'CI runs on GitHub Actions.' },
        { kind: 'fact', text: 'CI GitHub Actions runners use Node 20.' },
      ],
    })
    const ids = results.map((x) => x.memory.memoryRef.artifactId)
    await rt.captureSource({ scopeId, sourceId: 'ci', content: 'CI: Actions, Node 20 runners.' })
    chat.script(
      proposal({ text: 'CI runs on GitHub Actions with Node 20 runners.', evidence: ['ci'] }),
      (req) => {
        expect(
          related(req)
            .map((m) => m.id)
            .sort(),
        ).toEqual([...ids].sort())
        return decision('merge', {
          targets: ids,
          text: 'CI runs on GitHub Actions with Node 20 runners.',
        })
      },
    )
    const r = await rt.flush({ scopeId })
    expect(r.changes.map((c) => c.op)).toEqual(['merge', 'merge', 'merge'])
    const { memories } = await rt.list({ scopeId })
    expect(memories).toEqual([
      expect.objectContaining({
        text: 'CI runs on GitHub Actions with Node 20 runners.',
        sources: [{ name: 'content', sourceId: 'ci' }],
        artifacts: expect.arrayContaining(results.map((x) => x.memory.memoryRef)),
      }),
    ])
    for (const id of ids) expect((await rt.get({ scopeId, memoryId: id })).state).toBe('merged')
  })

  it('noop writes nothing but still moves the cursor', async () => {
    const scopeId = scope()
    await rt.remember({ scopeId, entries: [{ kind: 'fact', text: 'Lint runs with eslint.' }] })
    await rt.captureSource({
      scopeId,
      sourceId: 'lint',
      content: 'reminder: lint runs with eslint',
    })
    chat.script(proposal({ text: 'Lint runs with eslint.', evidence: ['lint'] }), decision('noop'))
    const r = await rt.flush({ scopeId })
    expect(r).toMatchObject({ status: 'processed', cursor: 1, changes: [] })
    expect(chat.calls('memory_decision')).toHaveLength(1)
    expect((await rt.list({ scopeId })).memories).toHaveLength(1)
  })

  it('an older source arriving late does not overwrite a newer fact; other conditions are kept', async () => {
    const scopeId = scope()
    const { results } = await rt.remember({
      scopeId,
      entries: [
        {
          kind: 'fact',
          text: 'The production database is Postgres 16.',
          observedAt: '2025-06-01T00:00:00Z',
        },
      ],
    })
    const newer = results[0]!.memory
    await rt.captureSource({
      scopeId,
      sourceId: 'archive',
      occurredAt: '2024-11-01T00:00:00Z',
      content: 'Old design doc: the production database is Postgres 14.',
    })
    chat.script(
      proposal({ text: 'The production database is Postgres 14.', evidence: ['archive'] }),
      (req) => {
        const [candidate] = req.user['candidates'] as { observed_at: string }[]
        expect(candidate?.observed_at).toBe('2024-11-01T00:00:00.000Z')
        expect(related(req)[0]?.observed_at).toBe('2025-06-01T00:00:00.000Z')
        // A model that gets it wrong: the runtime still refuses to move the fact back in time.
        return decision('update', {
          targets: [newer.memoryRef.artifactId],
          text: 'The production database is Postgres 14.',
        })
      },
    )
    const r = await rt.flush({ scopeId })
    expect(r).toMatchObject({ status: 'processed', changes: [] })
    const { memory, currentRevision } = await rt.get({
      scopeId,
      memoryId: newer.memoryRef.artifactId,
    })
    expect([memory.text, currentRevision]).toEqual(['The production database is Postgres 16.', 1])
    const record = (await rt.flushRecords({ scopeId, recordId: r.recordId! })).records[0]
    expect(record?.details['decisions']).toEqual([
      expect.objectContaining({ action: 'update', overridden: expect.stringMatching(/older/) }),
    ])
    await rt.captureSource({
      scopeId,
      sourceId: 'staging',
      occurredAt: '2024-12-01T00:00:00Z',
      content: 'Staging uses Postgres 14.',
    })
    chat.script(
      proposal({ text: 'The staging database is Postgres 14.', evidence: ['staging'] }),
      decision('create', { text: 'The staging database is Postgres 14.' }),
    )
    await rt.flush({ scopeId })
    expect((await rt.list({ scopeId })).memories.map((m) => m.text).sort()).toEqual([
      'The production database is Postgres 16.',
      'The staging database is Postgres 14.',
    ])
  })

  it('retrieves every related memory, paging the search, never only the first N', async () => {
    const scopeId = scope()
    const entries = Array.from({ length: 30 }, (_, i) => ({
      kind: 'fact',
      text: `Service svc${i} sends invoices through the shared billing queue.`,
    }))
    const { results } = await rt.remember({ scopeId, entries })
    await rt.captureSource({ scopeId, sourceId: 'billing', content: 'billing queue notes' })
    chat.script(
      proposal({
        text: 'Every service sends invoices through the shared billing queue.',
        evidence: ['billing'],
      }),
      decision('noop'),
    )
    const r = await rt.flush({ scopeId })
    expect(r.changes).toEqual([])
    const [decide] = chat.calls('memory_decision')
    expect(chat.calls('memory_decision')).toHaveLength(1)
    const shown = related(decide!).map((m) => m.id)
    expect(new Set(shown)).toEqual(new Set(results.map((x) => x.memory.memoryRef.artifactId)))
    expect(shown).toHaveLength(30)
    const record = (await rt.flushRecords({ scopeId, recordId: r.recordId! })).records[0]
    const [retrieval] = record?.details['retrievals'] as { memory_ids: string[]; pages: number }[]
    expect(retrieval?.memory_ids).toHaveLength(30)
    // The first page (20) was full, so the search was read again with a larger limit.
    expect(retrieval?.pages).toBe(2)
  })

  it('candidates of a window are decided together and may fold into each other; structured entries skip proposing', async () => {
    const scopeId = scope()
    await rt.captureSource({ scopeId, sourceId: 's1', content: 'Use pnpm for the web workspace.' })
    await rt.captureSource({
      scopeId,
      sourceId: 's2',
      content: 'Again: the web workspace uses pnpm.',
    })
    chat.script(
      proposal(
        { kind: 'preference', text: 'Use pnpm for the web workspace.', evidence: ['s1'] },
        { kind: 'preference', text: 'The web workspace uses pnpm.', evidence: ['s2'] },
      ),
      decideEach((c) =>
        c.id === 'c1'
          ? { action: 'create', text: 'Use pnpm for the web workspace.' }
          : { action: 'update', targets: ['c1'], text: 'Use pnpm for the web workspace.' },
      ),
    )
    await rt.flush({ scopeId })
    const { memories } = await rt.list({ scopeId })
    expect(memories.map((m) => [m.text, m.sources.map((s) => s.sourceId)])).toEqual([
      ['Use pnpm for the web workspace.', ['s1', 's2']],
    ])
    chat.reset()
    await rt.captureSource({
      scopeId,
      mediaType: MEMORY_MEDIA_TYPE,
      content: JSON.stringify({
        entries: [{ kind: 'constraint', text: 'Node 20 is the minimum.' }],
      }),
    })
    await rt.flush({ scopeId })
    expect(chat.calls('memory_candidates')).toEqual([])
  })

  it('refuses secrets the model proposes, without failing the window', async () => {
    const scopeId = scope()
    // The source itself is clean (one that is not is refused at capture); the model invents a key.
    await rt.captureSource({ scopeId, sourceId: 'env', content: 'AWS creds live in the vault' })
    chat.script(proposal({ text: 'The AWS key is AKIAIOSFODNN7EXAMPLE.', evidence: ['env'] }))
    const r = await rt.flush({ scopeId })
    expect(r.sources[0]).toMatchObject({ outcome: 'refused' })
    expect((await rt.list({ scopeId })).memories).toEqual([])
  })
})
