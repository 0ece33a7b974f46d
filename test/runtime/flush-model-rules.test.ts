/**
 * The extraction rules of model-driven flush (docs/sources-and-flush.md), each driven through a
 * scripted OpenAI-compatible chat server on loopback: every related memory past the search pool is
 * compared, a decision on an early page still merges with a later page's duplicate, late old
 * material never wins an update or a merge, long sources are read whole, and a window costs two
 * calls (propose for all sources, decide for all candidates) with its usage recorded.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { OpenAiCompatibleChatModel } from '../../src/runtime/chat-model.js'
import type { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { ModelPlanner } from '../../src/runtime/model-planner.js'
import type { ChatRequest } from '../support/chat-server.js'
import { decideEach, proposal } from '../support/chat-server.js'
import { useScriptedModel } from '../support/scripted-model-runtime.js'

const scripted = useScriptedModel('pc-flush-rules-')
const { chat, open } = scripted
let rt: MemoryRuntime
beforeAll(async () => {
  rt = await open()
})

let n = 0
const scope = (): string => `flush:rules:${++n}`
const shownIds = (r: ChatRequest): string[] =>
  (r.user['related_memories'] as { id: string }[]).map((m) => m.id)
const record = async (scopeId: string, recordId: string | null) =>
  (await rt.flushRecords({ scopeId, recordId: recordId! })).records[0]!
const filler = (i: number, words: number): string =>
  `Billing queue note ${i}: invoices ` +
  Array.from({ length: words }, (_, w) => `detail${i}x${w}`).join(' ')

describe('every related memory above the threshold is compared', () => {
  it('finds the real match ranked past a pool of one-word memories', async () => {
    const scopeId = scope()
    // Short memories rank first by bm25, and each matches one query word only: none passes
    // admission (two shared words), but together they fill the first search pool.
    const words = ['pnpm', 'workspace', 'yaml']
    await rt.remember({
      scopeId,
      entries: Array.from({ length: 100 }, (_, i) => ({
        kind: 'fact',
        text: `${words[i % 3]} v${i}`,
      })),
    })
    const real = 'Tooling: the web workspace installs with pnpm. ' + filler(0, 40)
    const { results } = await rt.remember({ scopeId, entries: [{ kind: 'fact', text: real }] })
    const realId = results[0]!.memory.memoryRef.artifactId
    await rt.captureSource({ scopeId, sourceId: 'p', content: 'use pnpm, lockfile pnpm-lock.yaml' })
    const candidate = 'Package manager: pnpm for the workspace, the lockfile is pnpm-lock.yaml.'
    chat.script(proposal({ kind: 'preference', text: candidate, evidence: ['p'] }))
    chat.responder = decideEach((_c, req) =>
      shownIds(req).includes(realId)
        ? { action: 'update', targets: [realId], text: `${real} ${candidate}` }
        : { action: 'create', text: candidate },
    )
    const r = await rt.flush({ scopeId })
    expect(r.changes.map((c) => [c.op, c.memoryId])).toEqual([['update', realId]])
    expect((await rt.list({ scopeId, limit: 200 })).memories).toHaveLength(101)
  })

  it('a decision on an early page still merges with a duplicate on a later page', async () => {
    const scopeId = scope()
    const early = await rt.remember({
      scopeId,
      entries: [{ kind: 'fact', text: 'Invoices go through the billing queue.' }],
    })
    await rt.remember({
      scopeId,
      entries: Array.from({ length: 40 }, (_, i) => ({ kind: 'fact', text: filler(i + 1, 160) })),
    })
    // A long duplicate ranks last: past the first page of the search and of the deciding calls.
    const late = await rt.remember({
      scopeId,
      entries: [{ kind: 'fact', text: `Invoices: the billing queue. ${filler(99, 500)}` }],
    })
    const x = early.results[0]!.memory.memoryRef.artifactId
    const y = late.results[0]!.memory.memoryRef.artifactId
    await rt.captureSource({ scopeId, sourceId: 'b', content: 'billing: invoices via queue' })
    const text = 'Invoices: every service sends invoices through the shared billing queue.'
    chat.script(proposal({ text, evidence: ['b'] }))
    const pages: string[][] = []
    chat.responder = decideEach((c, req) => {
      const ids = shownIds(req)
      pages.push(ids)
      if (c.earlier_result !== null && ids.includes(y))
        return { action: 'merge', targets: [c.earlier_result, y], text }
      if (ids.includes(x) && ids.includes(y)) return { action: 'merge', targets: [x, y], text }
      if (ids.includes(x)) return { action: 'update', targets: [x], text }
      return { action: 'noop' }
    })
    const r = await rt.flush({ scopeId })
    expect(pages.length).toBeGreaterThanOrEqual(2)
    expect(pages[0]).toContain(x)
    expect(pages[0]).not.toContain(y)
    expect((await rt.get({ scopeId, memoryId: x })).state).toBe('merged')
    expect((await rt.get({ scopeId, memoryId: y })).state).toBe('merged')
    expect(r.changes.filter((c) => c.op === 'merge').map((c) => c.memoryId)).toContain(y)
  }, 60_000)
})

describe('deciding calls paged by size', () => {
  it('with a budget smaller than one candidate and its related memories, every one is shown', async () => {
    const scopeId = scope()
    const { results } = await rt.remember({
      scopeId,
      entries: Array.from({ length: 12 }, (_, i) => ({ kind: 'fact', text: filler(i, 30) })),
    })
    const all = results.map((x) => x.memory.memoryRef.artifactId).sort()
    for (const id of ['a', 'b', 'c'])
      await rt.captureSource({ scopeId, sourceId: id, content: `billing ${id}` })
    const planner = new ModelPlanner({
      model: new OpenAiCompatibleChatModel({
        url: scripted.url,
        model: 'scripted',
        maxRequests: 1,
      }),
      journal: rt.backend.journal,
      decideBudgetChars: 1000,
    })
    chat.script(
      proposal(
        ...['a', 'b', 'c'].map((id) => ({
          text: `Billing queue: invoices ${id}.`,
          evidence: [id],
        })),
      ),
    )
    const seen = new Map<string, Set<string>>()
    chat.responder = decideEach((c, req) => {
      const ids = seen.get(c.text) ?? new Set<string>()
      for (const id of c.related) if (shownIds(req).includes(id)) ids.add(id)
      seen.set(c.text, ids)
      return c.earlier_result === null ? { action: 'create', text: c.text } : { action: 'noop' }
    })
    const plan = await planner.plan(await rt.backend.journal.window({ scopeId }))
    expect(plan.decisions.map((d) => d.op)).toEqual(['create', 'create', 'create'])
    for (const ids of seen.values())
      expect([...ids].filter((id) => !id.startsWith('new:')).sort()).toEqual(all)
    expect(chat.calls('memory_decision').length).toBeGreaterThan(3)
    expect(plan.usage?.calls).toBe(chat.requests.length)
  })
})

describe('late old material never wins', () => {
  it('refuses a merge by a candidate older than a memory it merges', async () => {
    const scopeId = scope()
    const { results } = await rt.remember({
      scopeId,
      entries: [
        { kind: 'fact', text: 'Deploy region: eu-north.', observedAt: '2025-03-01T00:00:00Z' },
        {
          kind: 'fact',
          text: 'Deploy region eu-north, since 2025.',
          observedAt: '2025-04-01T00:00:00Z',
        },
      ],
    })
    const ids = results.map((x) => x.memory.memoryRef.artifactId)
    await rt.captureSource({
      scopeId,
      sourceId: 'old-doc',
      occurredAt: '2024-06-01T00:00:00Z',
      content: 'Deploy region: eu-east.',
    })
    chat.script(proposal({ text: 'Deploy region: eu-east.', evidence: ['old-doc'] }))
    chat.responder = decideEach(() => ({
      action: 'merge',
      targets: ids,
      text: 'Deploy region: eu-east.',
    }))
    const r = await rt.flush({ scopeId })
    expect(r.changes).toEqual([])
    for (const id of ids) expect((await rt.get({ scopeId, memoryId: id })).state).toBe('active')
    const rec = await record(scopeId, r.recordId)
    expect(rec.details['decisions']).toEqual([
      expect.objectContaining({ action: 'merge', overridden: expect.stringMatching(/older/) }),
    ])
  })

  it('a merge keeps the newest observed_at of what it merges', async () => {
    const scopeId = scope()
    const { results } = await rt.remember({
      scopeId,
      entries: [
        { kind: 'fact', text: 'CI runner: GitHub Actions.', observedAt: '2025-01-01T00:00:00Z' },
        { kind: 'fact', text: 'CI runner: Node 20 images.', observedAt: '2025-03-01T00:00:00Z' },
      ],
    })
    const ids = results.map((x) => x.memory.memoryRef.artifactId)
    await rt.captureSource({ scopeId, sourceId: 'ci', content: 'CI runner: Actions with Node 20' })
    const text = 'CI runner: GitHub Actions with Node 20 images.'
    chat.script(proposal({ text, evidence: ['ci'] }))
    chat.responder = decideEach(() => ({ action: 'merge', targets: ids, text }))
    await rt.flush({ scopeId })
    const { memories } = await rt.list({ scopeId })
    expect(memories.map((m) => [m.text, m.observedAt])).toEqual([
      [text, '2025-03-01T00:00:00.000Z'],
    ])
  })

  it('without comparable times, capture order decides: an earlier capture does not update', async () => {
    const scopeId = scope()
    await rt.captureSource({ scopeId, sourceId: 'early', content: 'Test runner: jest.' })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const { results } = await rt.remember({
      scopeId,
      entries: [{ kind: 'fact', text: 'Test runner: vitest.' }],
    })
    const id = results[0]!.memory.memoryRef.artifactId
    chat.script(proposal({ text: 'Test runner: jest.', evidence: ['early'] }))
    chat.responder = decideEach(() => ({
      action: 'update',
      targets: [id],
      text: 'Test runner: jest.',
    }))
    const r = await rt.flush({ scopeId })
    expect(r.changes).toEqual([])
    expect((await rt.get({ scopeId, memoryId: id })).memory.text).toBe('Test runner: vitest.')
  })
})

describe('long sources are read whole', () => {
  it('reads a source over the call budget in parts, the tail included', async () => {
    const scopeId = scope()
    const line = 'Routine log line without anything worth keeping at all.\n'
    const body = line.repeat(Math.ceil(100_000 / line.length))
    const content = `${body}Decision: releases are tagged from main only.\n`
    await rt.captureSource({ scopeId, sourceId: 'long', content })
    chat.responder = (req) => {
      if (req.schemaName !== 'memory_candidates') return { status: 500 }
      const seen = (req.user['sources'] as { content: string }[]).map((s) => s.content).join('')
      return seen.includes('Decision: releases')
        ? proposal({
            kind: 'decision',
            text: 'Releases: tagged from main only.',
            evidence: ['long'],
          })
        : proposal()
    }
    const r = await rt.flush({ scopeId })
    expect(r.sources[0]).toMatchObject({ outcome: 'candidates', candidates: 1 })
    expect((await rt.list({ scopeId })).memories.map((m) => m.text)).toEqual([
      'Releases: tagged from main only.',
    ])
    const proposals = (await record(scopeId, r.recordId)).details['proposals'] as {
      parts: { from: number; to: number; chars: number }[]
    }[]
    const parts = proposals.flatMap((p) => p.parts)
    expect(parts[0]?.from).toBe(0)
    expect(parts.at(-1)?.to).toBe(content.length)
    for (const [i, p] of parts.entries()) if (i > 0) expect(p.from).toBe(parts[i - 1]!.to)
  })
})

describe('few calls', () => {
  it('a window costs one proposing and one deciding call, with usage recorded', async () => {
    const scopeId = scope()
    const { results } = await rt.remember({
      scopeId,
      entries: [
        { kind: 'preference', text: 'Package manager: npm for the web workspace.' },
        { kind: 'constraint', text: 'Generated site: never edit files under site/.' },
      ],
    })
    const [pm, site] = results.map((x) => x.memory.memoryRef.artifactId)
    await rt.captureSource({
      scopeId,
      sourceId: 'prompt',
      metadata: { event: 'user_prompt_submit' },
      content: 'Use pnpm, not npm, for the web workspace.',
    })
    await rt.captureSource({
      scopeId,
      sourceId: 'notes',
      content: 'Reminder: site/ is generated, never edit it by hand.',
    })
    chat.script(
      proposal(
        {
          kind: 'preference',
          text: 'Package manager: pnpm, not npm, for the web workspace.',
          evidence: ['prompt'],
        },
        {
          kind: 'constraint',
          text: 'Generated site: never edit files under site/ by hand.',
          evidence: ['notes'],
        },
      ),
    )
    chat.responder = decideEach((c) =>
      c.text.startsWith('Package')
        ? { action: 'update', targets: [pm!], text: c.text }
        : { action: 'noop', targets: [site!] },
    )
    const r = await rt.flush({ scopeId })
    expect(chat.calls('memory_candidates')).toHaveLength(1)
    const [decide] = chat.calls('memory_decision')
    expect(chat.calls('memory_decision')).toHaveLength(1)
    expect(chat.calls('memory_candidates')[0]?.system).toMatch(/kind prompt/)
    expect((decide?.user['candidates'] as unknown[]).length).toBe(2)
    expect(r.changes.map((c) => [c.op, c.memoryId])).toEqual([['update', pm]])
    expect(r.modelUsage).toMatchObject({ calls: 2, callsWithoutUsage: 0 })
    expect(r.modelUsage?.inputTokens).toBeGreaterThan(0)
    expect(r.modelUsage?.outputTokens).toBeGreaterThan(0)
    const usage = (await record(scopeId, r.recordId)).details['model_usage']
    expect(usage).toMatchObject({
      calls: 2,
      input_tokens: r.modelUsage?.inputTokens,
      output_tokens: r.modelUsage?.outputTokens,
    })
    expect((usage as { wall_ms: number }).wall_ms).toBeGreaterThanOrEqual(0)
  })
})
