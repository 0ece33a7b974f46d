/**
 * Capture and flush end to end over real servers on loopback (docs/sources-and-flush.md): capture contract
 * (idempotency on the canonical payload, conflicts, generated ids, size limit, concurrency),
 * capture → flush until the position → search finds the memory citing its source, concurrent
 * flushes, captures and searches not blocked by a model call in flight, typed model errors and
 * poison sources in the change feed, decision records.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import type { PowerContextClient, PowerContextClientError } from '../../src/client/index.js'
import { createPowerContextClient } from '../../src/client/index.js'
import { MEMORY_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { sourceHandling } from '../../src/core/source-kinds.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { ChatServer, decision, proposal } from '../support/chat-server.js'
import { assertMatchesContract } from '../support/contract-assert.js'

const chat = new ChatServer()
const dirs: string[] = []
let plain: RunningServer
let modeled: RunningServer
let pc: PowerContextClient
let pm: PowerContextClient

beforeAll(async () => {
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'pc-flush-e2e-'))
    dirs.push(d)
    return d
  }
  const url = await chat.listen()
  plain = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir(), logLevel: 'silent' })
  modeled = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: dir(),
    logLevel: 'silent',
    extraction: { generation: { url, model: 'scripted', timeoutMs: 3000, maxRequests: 1 } },
  })
  pc = createPowerContextClient({ baseUrl: plain.url })
  pm = createPowerContextClient({ baseUrl: modeled.url })
})
afterAll(async () => {
  await plain?.stop()
  await modeled?.stop()
  await chat.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
beforeEach(() => chat.reset())

let n = 0
const scope = (): string => `e2e:flush:${++n}`
const failure = async (p: Promise<unknown>): Promise<PowerContextClientError> => {
  try {
    await p
  } catch (err) {
    return err as PowerContextClientError
  }
  throw new Error('expected a failure')
}
async function post(base: string, path: string, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('capture over HTTP', () => {
  it('16 concurrent captures get positions 1..16; 8 identical ones a single position', async () => {
    const scope_id = scope()
    const distinct = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        pc.captureContent({ scope_id, source_id: `s${i}`, content: `content ${i}` }),
      ),
    )
    expect(distinct.map((r) => r.position).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 16 }, (_, i) => i + 1),
    )
    const same = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        pc.captureContent({
          scope_id,
          source_id: 'same',
          content: 'one payload',
          metadata: i % 2 === 0 ? { x: 1, y: [1, 2] } : { y: [1, 2], x: 1 },
        }),
      ),
    )
    expect(new Set(same.map((r) => r.position))).toEqual(new Set([17]))
    const conflict = await failure(
      pc.captureContent({ scope_id, source_id: 'same', content: 'another payload' }),
    )
    expect([conflict.status, conflict.code]).toEqual([409, 'source_conflict'])
    const generated = await Promise.all([
      pc.captureContent({ scope_id, content: 'no id' }),
      pc.captureContent({ scope_id, content: 'no id' }),
    ])
    expect(generated[0].source.source_id).not.toBe(generated[1].source.source_id)
    expect(generated.map((g) => g.position).sort()).toEqual([18, 19])
    expect((await pc.list({ scope_id })).memories).toEqual([])
    expect((await pc.changes({ scope_id })).head_seq).toBe(0)
  })

  it('enforces and documents the content size limit (UTF-8 bytes)', async () => {
    const scope_id = scope()
    const caps = await pc.capabilities()
    expect(caps.limits.source_content_bytes).toBe(1_000_000)
    const ok = await post(plain.url, '/v1/sources/content', {
      scope_id,
      content: 'é'.repeat(500_000),
    })
    expect(ok.status).toBe(202)
    for (const content of ['é'.repeat(500_001), 'a'.repeat(1_000_001)]) {
      const tooBig = await post(plain.url, '/v1/sources/content', { scope_id, content })
      expect(tooBig.status).toBe(422)
      expect(tooBig.body['error']).toMatchObject({ code: 'invalid_request' })
    }
  })
})

describe('flush over HTTP', () => {
  it('capture → flush until the position → search finds the memory with its source', async () => {
    const scope_id = scope()
    for (let i = 0; i < 5; i += 1) await pc.captureContent({ scope_id, content: `chatter ${i}` })
    const captured = await pc.captureContent({
      scope_id,
      source_id: 'adr-7',
      media_type: MEMORY_MEDIA_TYPE,
      content: JSON.stringify({
        entries: [{ kind: 'decision', text: 'Feature flags are managed in LaunchDarkly.' }],
      }),
    })
    let cursor = 0
    while (cursor < captured.position) {
      const r = await pc.flush({ scope_id, limit: 2 })
      assertMatchesContract('flush', 200, r)
      expect(r.status).toBe('processed')
      cursor = r.cursor
    }
    const idle = await pc.flush({ scope_id })
    expect(idle).toMatchObject({ status: 'idle', previous_cursor: 6, cursor: 6, high_watermark: 6 })
    const { hits } = await pc.search({ scope_id, query: 'feature flags LaunchDarkly' })
    expect(hits).toHaveLength(1)
    const { memory } = await pc.get({ scope_id, memory_id: hits[0]!.memory_ref.artifact_id })
    expect(memory.sources).toEqual([{ name: 'content', source_id: 'adr-7' }])
    const records = await pc.flushRecords({ scope_id })
    assertMatchesContract('flushRecords', 200, records)
    expect(records.records.map((r) => [r.from_position, r.to_position])).toEqual([
      [0, 2],
      [2, 4],
      [4, 6],
    ])
    const caps = await pc.capabilities()
    assertMatchesContract('capabilities', 200, caps)
    expect(caps.extraction.mode).toBe('structured')
    // The values themselves are asserted in test/runtime/flush-task-events.test.ts.
    expect(caps.extraction.source_kinds).toEqual(sourceHandling(false))
  })

  it('with a model: creates from free text; typed errors; poison source in the change feed', async () => {
    const scope_id = scope()
    const caps = await pm.capabilities()
    assertMatchesContract('capabilities', 200, caps)
    expect(caps.extraction).toMatchObject({ mode: 'model', model: 'scripted' })
    expect(caps.extraction.source_kinds).toEqual(sourceHandling(true))
    expect((await pm.ready()).checks['inference.generation']).toBe('ready')
    await pm.captureContent({ scope_id, source_id: 'talk', content: 'We use trunk-based dev.' })
    chat.script(
      proposal({ kind: 'decision', text: 'We use trunk-based development.', evidence: ['talk'] }),
    )
    const r = await pm.flush({ scope_id })
    expect(r).toMatchObject({ status: 'processed', cursor: 1, extraction_mode: 'model' })
    const hit = (await pm.search({ scope_id, query: 'trunk-based development' })).hits[0]
    const { memory } = await pm.get({ scope_id, memory_id: hit!.memory_ref.artifact_id })
    expect(memory.sources).toEqual([{ name: 'content', source_id: 'talk' }])

    await pm.captureContent({ scope_id, source_id: 'bad', content: 'confusing' })
    chat.responder = () => ({ content: '{"candidates": "nope"}' })
    for (const status of [502, 502]) {
      const err = await failure(pm.flush({ scope_id }))
      expect([err.status, err.code]).toEqual([status, 'invalid_inference_output'])
    }
    const skipped = await pm.flush({ scope_id })
    expect(skipped.skipped_sources).toEqual([
      expect.objectContaining({ source: { name: 'content', source_id: 'bad' }, attempts: 3 }),
    ])
    const feed = await pm.changes({ scope_id })
    assertMatchesContract('changes', 200, feed)
    expect(feed.skipped_sources.map((s) => [s.source.source_id, s.seq])).toEqual([['bad', 2]])
    expect(feed.head_seq).toBe(2)

    await pm.captureContent({ scope_id, content: 'slow' })
    chat.responder = () => ({ ...proposal(), delayMs: 4000 })
    const timeout = await failure(pm.flush({ scope_id }, { timeoutMs: 20_000 }))
    expect([timeout.status, timeout.code]).toEqual([503, 'inference_timeout'])
    chat.responder = () => ({ status: 503 })
    const down = await failure(pm.flush({ scope_id }))
    expect([down.status, down.code]).toEqual([503, 'inference_unavailable'])
  })

  it('two concurrent flushes never process a source twice', async () => {
    const scope_id = scope()
    for (let i = 0; i < 3; i += 1)
      await pm.captureContent({ scope_id, source_id: `c${i}`, content: `Fact ${i} about racing.` })
    chat.responder = (req) => {
      if (req.schemaName === 'memory_decision') return decision('create')
      const sources = req.user['sources'] as { source_id: string }[]
      return {
        ...proposal(
          ...sources.map((s) => ({
            text: `Racing fact from ${s.source_id}.`,
            evidence: [s.source_id],
          })),
        ),
        delayMs: 200,
      }
    }
    const results = await Promise.all([pm.flush({ scope_id }), pm.flush({ scope_id })])
    const processed = results.reduce((sum, r) => sum + r.processed_source_count, 0)
    expect(processed).toBe(3)
    const { memories } = await pm.list({ scope_id })
    expect(memories.map((m) => m.text).sort()).toEqual([
      'Racing fact from c0.',
      'Racing fact from c1.',
      'Racing fact from c2.',
    ])
    expect((await pm.flushRecords({ scope_id })).records).toHaveLength(1)
  })

  it('captures and searches are not blocked while a model call is in flight', async () => {
    const scope_id = scope()
    await pm.remember({ scope_id, entries: [{ kind: 'fact', text: 'The cache is Redis.' }] })
    await pm.captureContent({ scope_id, content: 'something to think about' })
    chat.responder = () => ({ ...proposal(), delayMs: 1500 })
    const started = Date.now()
    const flushing = pm.flush({ scope_id })
    while (chat.requests.length === 0) await new Promise((r) => setTimeout(r, 5))
    const t0 = Date.now()
    const captured = await pm.captureContent({ scope_id, content: 'captured during inference' })
    const captureMs = Date.now() - t0
    const t1 = Date.now()
    const { hits } = await pm.search({ scope_id, query: 'cache Redis' })
    const searchMs = Date.now() - t1
    expect(captured.position).toBe(2)
    expect(hits).toHaveLength(1)
    expect(captureMs).toBeLessThan(500)
    expect(searchMs).toBeLessThan(500)
    const r = await flushing
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
    expect(r).toMatchObject({ previous_cursor: 0, cursor: 1 })
    console.info(`during a 1.5 s model call: capture ${captureMs} ms, search ${searchMs} ms`)
  })
})

describe('scheduled flush', () => {
  it('server run --schedule-seconds flushes pending scopes without a flush call', async () => {
    const d = mkdtempSync(join(tmpdir(), 'pc-flush-e2e-'))
    dirs.push(d)
    const scheduled = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: d,
      logLevel: 'silent',
      scheduleSeconds: 1,
    })
    try {
      const ps = createPowerContextClient({ baseUrl: scheduled.url })
      expect((await ps.capabilities()).extraction.schedule_seconds).toBe(1)
      const scope_id = scope()
      await ps.captureContent({
        scope_id,
        media_type: MEMORY_MEDIA_TYPE,
        content: JSON.stringify({ entries: [{ kind: 'fact', text: 'Scheduled over HTTP.' }] }),
      })
      const deadline = Date.now() + 10_000
      let hits = 0
      while (hits === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
        hits = (await ps.search({ scope_id, query: 'scheduled HTTP' })).hits.length
      }
      expect(hits).toBe(1)
    } finally {
      await scheduled.stop()
    }
  })
})
