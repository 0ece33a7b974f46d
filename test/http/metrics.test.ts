import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/http/app.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { RuntimeCounters } from '../../src/runtime/runtime-counters.js'
import { assertErrorEnvelope } from '../support/contract-assert.js'

const TOKEN = 'metrics-test-token'
const SCOPE = 'metrics'
const dirs: string[] = []
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pc-metrics-'))
  dirs.push(d)
  return d
}
let server: RunningServer

const auth = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }
const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })

interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parse(text: string): Sample[] {
  const out: Sample[] = []
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (m === null) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!
    out.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return out
}

/** The value of the one sample named `name` whose labels include `labels` (0 when absent). */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = parse(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )
  expect(found.length).toBeLessThanOrEqual(1)
  return found[0]?.value ?? 0
}

async function scrape(url = server.url, token: string | undefined = TOKEN): Promise<string> {
  const headers: Record<string, string> =
    token === undefined ? {} : { Authorization: `Bearer ${token}` }
  const r = await fetch(`${url}/metrics`, { headers })
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  return r.text()
}

beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: tempDir(),
    authToken: TOKEN,
    logLevel: 'silent',
  })
})
afterAll(async () => {
  await server.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe('GET /metrics', () => {
  it('needs the bearer token like the API: 401 envelope without it, 200 with it', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong' }]) {
      const refused = await fetch(`${server.url}/metrics`, { headers })
      expect(refused.status).toBe(401)
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/)
      assertErrorEnvelope(await refused.json(), refused.headers.get('x-powercontext-request-id'))
    }
    const text = await scrape()
    expect(text).toContain('# TYPE powercontext_http_requests_total counter')
    expect(text).toContain('# TYPE powercontext_http_request_duration_seconds histogram')
    expect(text).toContain('# TYPE powercontext_searches_total counter')
    expect(text).toContain('# TYPE powercontext_flushes_total counter')
    expect(text).toContain('# TYPE powercontext_reindex_backlog gauge')
    // Without the process setting, no default Node.js metrics.
    expect(text).not.toContain('process_cpu_user_seconds_total')
  })

  it('counts requests by route pattern and status, never by raw URL', async () => {
    const before = await scrape()
    const labels = { method: 'GET', route: '/v1/capabilities', status: '200' }
    const count = valueOf(before, 'powercontext_http_requests_total', labels)
    expect((await fetch(`${server.url}/v1/capabilities`, { headers: auth })).status).toBe(200)
    expect((await fetch(`${server.url}/v1/capabilities`, { headers: auth })).status).toBe(200)
    const missing = await fetch(`${server.url}/v1/no-such-route/mem_secret-path-42`, {
      headers: auth,
    })
    expect(missing.status).toBe(404)
    const refused = await fetch(`${server.url}/v1/capabilities`)
    expect(refused.status).toBe(401)
    const after = await scrape()
    expect(valueOf(after, 'powercontext_http_requests_total', labels)).toBe(count + 2)
    expect(
      valueOf(after, 'powercontext_http_request_duration_seconds_count', labels),
    ).toBeGreaterThanOrEqual(count + 2)
    expect(
      valueOf(after, 'powercontext_http_requests_total', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1)
    expect(
      valueOf(after, 'powercontext_http_requests_total', {
        route: '/v1/capabilities',
        status: '401',
      }),
    ).toBeGreaterThanOrEqual(1)
    expect(after).not.toContain('secret-path-42')
  })

  it('counts searches by the mode used, from HTTP and MCP alike', async () => {
    const before = valueOf(await scrape(), 'powercontext_searches_total', { mode: 'fts' })
    const remembered = await post('/v1/memory/remember', {
      scope_id: SCOPE,
      entries: [{ kind: 'fact', text: 'Releases are tagged from the main branch.' }],
    })
    expect(remembered.status).toBe(200)
    const searched = await post('/v1/memory/search', { scope_id: SCOPE, query: 'releases' })
    expect(searched.status).toBe(200)
    expect(((await searched.json()) as { mode: string }).mode).toBe('fts')
    expect(valueOf(await scrape(), 'powercontext_searches_total', { mode: 'fts' })).toBe(before + 1)

    const client = new Client({ name: 'metrics-test', version: '0.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    )
    const r = (await client.callTool({
      name: 'search_memory',
      arguments: { scope_id: SCOPE, query: 'tagged releases' },
    })) as CallToolResult
    expect(r.isError).not.toBe(true)
    await client.close()
    const text = await scrape()
    expect(valueOf(text, 'powercontext_searches_total', { mode: 'fts' })).toBe(before + 2)
    expect(valueOf(text, 'powercontext_searches_total', { mode: 'vector' })).toBe(0)
    expect(valueOf(text, 'powercontext_searches_total', { mode: 'hybrid' })).toBe(0)
    expect(
      valueOf(text, 'powercontext_http_requests_total', { route: '/mcp', status: '200' }),
    ).toBeGreaterThanOrEqual(1)
  })

  it('counts flushes by outcome', async () => {
    const scope_id = `${SCOPE}:flush`
    const before = await scrape()
    const processed = valueOf(before, 'powercontext_flushes_total', { outcome: 'processed' })
    const idle = valueOf(before, 'powercontext_flushes_total', { outcome: 'idle' })
    const captured = await post('/v1/sources/content', {
      scope_id,
      source_id: 'm-1',
      content: 'Evidence for the metrics test.',
    })
    expect(captured.status).toBe(202)
    const first = await post('/v1/memory/flush', { scope_id })
    expect(((await first.json()) as { status: string }).status).toBe('processed')
    const second = await post('/v1/memory/flush', { scope_id })
    expect(((await second.json()) as { status: string }).status).toBe('idle')
    const after = await scrape()
    expect(valueOf(after, 'powercontext_flushes_total', { outcome: 'processed' })).toBe(
      processed + 1,
    )
    expect(valueOf(after, 'powercontext_flushes_total', { outcome: 'idle' })).toBe(idle + 1)
    expect(valueOf(after, 'powercontext_flushes_total', { outcome: 'failed' })).toBe(0)
  })
})

describe('runtime counters', () => {
  it('count a failed flush as failed and pass the failure on', async () => {
    const counters = new RuntimeCounters()
    const boom = new Error('planner failed')
    await expect(counters.flush(Promise.reject(boom))).rejects.toBe(boom)
    await expect(counters.search(Promise.reject(boom))).rejects.toBe(boom)
    expect(counters.snapshot()).toEqual({
      searches: { fts: 0, vector: 0, hybrid: 0 },
      flushes: { processed: 0, idle: 0, failed: 1 },
    })
  })
})

describe('metrics per app', () => {
  it('keep one registry per app, process metrics on request, the reindex backlog at scrape time', async () => {
    const runtime = await MemoryRuntime.open({
      dataDir: tempDir(),
      embedder: new DeterministicEmbedder(16),
    })
    await runtime.remember({
      scopeId: 'backlog',
      entries: [{ kind: 'fact', text: 'A memory that needs a vector.' }],
    })
    const slot = { current: runtime }
    // Two apps in one process: a global registry would refuse the second one's metric names.
    const plain = buildApp({ slot, logger: false, console: false })
    const withProcess = buildApp({
      slot,
      logger: false,
      console: false,
      metrics: { processMetrics: true },
    })
    try {
      const a = await plain.listen({ host: '127.0.0.1', port: 0 })
      const b = await withProcess.listen({ host: '127.0.0.1', port: 0 })
      expect(await scrape(b, undefined)).toContain('process_cpu_user_seconds_total')
      // Unknown at open counts as a backlog until the background reindex has run.
      const opened = await scrape(a, undefined)
      expect(opened).not.toContain('process_cpu_user_seconds_total')
      expect(valueOf(opened, 'powercontext_reindex_backlog')).toBe(1)
      runtime.startBackgroundReindex({})
      let text = opened
      for (let i = 0; i < 100 && valueOf(text, 'powercontext_reindex_backlog') === 1; i++) {
        await new Promise((r) => setTimeout(r, 50))
        text = await scrape(a, undefined)
      }
      expect(valueOf(text, 'powercontext_reindex_backlog')).toBe(0)
      expect(text).toMatch(/^powercontext_reindex_remaining 0$/m)
    } finally {
      await plain.close()
      await withProcess.close()
      await runtime.close()
    }
  })
})
