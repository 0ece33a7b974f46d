/*
 * Vector and hybrid search end to end: a real OpenAI-compatible embeddings server on loopback
 * (node:http speaking POST /v1/embeddings, backed by the deterministic test embedder), the
 * PowerContext server configured with it, and calls over HTTP and MCP.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { EmbeddingsServer } from '../support/embeddings-server.js'

const DIMENSION = 96
const MODEL = 'test-embedder'
const API_KEY = 'embedding-test-key'

type Wire = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const embeddings = new EmbeddingsServer(DIMENSION)
const dataDir = mkdtempSync(join(tmpdir(), 'pc-vector-e2e-'))
let embeddingsUrl: string
let server: RunningServer | undefined
const clients: Client[] = []

async function start(profileId: string): Promise<RunningServer> {
  return startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    embedding: { url: embeddingsUrl, model: MODEL, dimension: DIMENSION, profileId },
    reindexIntervalMs: 100,
  })
}

async function call(path: string, body?: unknown): Promise<{ status: number; json: Wire }> {
  const res = await fetch(`${server!.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, json: (await res.json()) as Wire }
}

const search = (scope_id: string, query: string, mode: string) =>
  call('/v1/memory/search', { scope_id, query, mode })

async function eventually(probe: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}

beforeAll(async () => {
  process.env['POWERCONTEXT_SERVER_EMBEDDING_API_KEY'] = API_KEY
  embeddingsUrl = await embeddings.listen()
  server = await start('e2e-profile')
})

afterAll(async () => {
  delete process.env['POWERCONTEXT_SERVER_EMBEDDING_API_KEY']
  await Promise.all(clients.map((c) => c.close()))
  await server?.stop()
  await embeddings.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('vector search over HTTP and MCP', () => {
  const scope_id = 'e2e:vectors'

  it('capabilities and readiness report the embedding profile', async () => {
    const caps = await call('/v1/capabilities')
    expect(caps.json['search_modes']).toEqual(['auto', 'fts', 'vector', 'hybrid'])
    expect(caps.json['embedding_profile']).toEqual({
      profile_id: 'e2e-profile',
      model: MODEL,
      dimension: DIMENSION,
      distance: 'l2',
      normalization: 'unit',
    })
    const ready = await call('/health/ready')
    expect(ready.status).toBe(200)
    expect(ready.json).toEqual({
      status: 'ready',
      checks: {
        runtime: 'ready',
        database: 'ready',
        disk: 'ready',
        storage: 'ready',
        'inference.embedding': 'ready',
      },
    })
    expect(embeddings.authorization).toBe(`Bearer ${API_KEY}`)
  })

  it('every mode over HTTP, with the mode actually used', async () => {
    const remembered = await call('/v1/memory/remember', {
      scope_id,
      entries: [
        { kind: 'fact', text: 'otter river swimming' },
        { kind: 'fact', text: 'tax forms due in april' },
      ],
    })
    expect(remembered.status).toBe(200)
    const otter = remembered.json['results'][0].memory.memory_ref
    for (const [mode, used, matched] of [
      ['fts', 'fts', ['fts']],
      ['vector', 'vector', ['vector']],
      ['hybrid', 'hybrid', ['fts', 'vector']],
      ['auto', 'hybrid', ['fts', 'vector']],
    ] as const) {
      const res = await search(scope_id, 'otter swimming', mode)
      expect(res.status).toBe(200)
      expect(res.json['mode']).toBe(used)
      expect(res.json['hits'].map((h: Wire) => [h.memory_ref, h.matched_by])).toEqual([
        [otter, matched],
      ])
    }
  })

  it('search_memory through MCP uses the same modes', async () => {
    const client = new Client({ name: 'vector-e2e', version: '0.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server!.url)))
    clients.push(client)
    const r = (await client.callTool({
      name: 'search_memory',
      arguments: { scope_id, query: 'otter swimming', mode: 'hybrid' },
    })) as CallToolResult
    expect(r.isError).not.toBe(true)
    const out = r.structuredContent as Wire
    expect(out['mode']).toBe('hybrid')
    expect(out['hits'][0].matched_by).toEqual(['fts', 'vector'])
  })

  it('an embedder outage: writes commit, auto falls back, background reindex recovers', async () => {
    embeddings.down = true
    const written = await call('/v1/memory/remember', {
      scope_id,
      entries: [{ kind: 'fact', text: 'otter holt by the river' }],
    })
    expect(written.status).toBe(200)
    expect(written.json['results'][0].status).toBe('created')
    const auto = await search(scope_id, 'otter river', 'auto')
    expect(auto.json['mode']).toBe('fts')
    expect(auto.json['hits']).toHaveLength(2)
    const vector = await search(scope_id, 'otter river', 'vector')
    expect(vector.status).toBe(422)
    expect(vector.json['error']).toMatchObject({
      code: 'capability_not_supported',
      details: { capability: 'vector' },
    })
    const ready = await call('/health/ready')
    expect(ready.status).toBe(200)
    expect(ready.json['status']).toBe('degraded')
    expect(ready.json['checks']['inference.embedding']).toMatch(/^unavailable/)

    embeddings.down = false
    await eventually(
      async () => (await search(scope_id, 'otter river', 'auto')).json['mode'] === 'hybrid',
    )
    const back = await search(scope_id, 'holt', 'vector')
    expect(back.json['hits'].map((h: Wire) => h.text)).toEqual(['otter holt by the river'])
  })

  it('a server configured with another profile gets no vector capability', async () => {
    await server!.stop()
    server = await start('another-profile')
    const caps = await call('/v1/capabilities')
    expect(caps.json['search_modes']).toEqual(['auto', 'fts'])
    expect(caps.json['embedding_profile']).toBeNull()
    const ready = await call('/health/ready')
    expect(ready.status).toBe(200)
    expect(ready.json['status']).toBe('degraded')
    expect(ready.json['checks']['inference.embedding']).toMatch(
      /^misconfigured: profile another-profile .* does not match .* e2e-profile/,
    )
    const hybrid = await search(scope_id, 'otter', 'hybrid')
    expect(hybrid.status).toBe(422)
    expect(hybrid.json['error']['details']).toEqual({ capability: 'embedding-profile' })
    expect((await search(scope_id, 'otter', 'auto')).json['mode']).toBe('fts')
  })
})
