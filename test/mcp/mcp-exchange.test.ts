/**
 * `/mcp` as raw HTTP: one SDK server serves every POST through the exchange transport, so what
 * the Streamable HTTP transport guaranteed per request must still hold — each client gets its own
 * replies under its own ids (also when concurrent clients reuse ids), batches answer in order,
 * a POST without requests is 202, and malformed exchanges are refused with JSON-RPC errors.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { initializeRequest } from '../../harness/mcp-messages.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { MCP_INSTRUCTIONS } from '../../src/mcp/mcp-instructions.js'

const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-exchange-'))
let server: RunningServer

type Wire = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

async function post(
  body: unknown,
  headers: Record<string, string> = HEADERS,
): Promise<{ status: number; body: Wire | Wire[] | null; text: string }> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? null : (JSON.parse(text) as Wire), text }
}

const call = (id: unknown, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
  const entries = (i: number) => [{ kind: 'fact', text: `Scope ${i} keeps the marker word m${i}` }]
  for (let i = 0; i < 8; i++) {
    const r = await post(call(1, 'remember_memory', { scope_id: `x${i}`, entries: entries(i) }))
    expect((r.body as Wire).result.isError).toBeUndefined()
  }
})

afterAll(async () => {
  await server?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('/mcp exchanges', () => {
  it('initialize answers with the server identity and instructions, statelessly', async () => {
    const r = await post(initializeRequest('t', 'init'))
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      jsonrpc: '2.0',
      id: 'init',
      result: {
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'powercontext' },
        capabilities: { tools: {} },
        instructions: MCP_INSTRUCTIONS,
      },
    })
  })

  it('gives concurrent clients that reuse the same id their own replies', async () => {
    const rounds = await Promise.all(
      Array.from({ length: 24 }, (_, k) =>
        post(call(7, 'search_memory', { scope_id: `x${k % 8}`, query: `marker m${k % 8}` })),
      ),
    )
    rounds.forEach((r, k) => {
      const body = r.body as Wire
      expect(body.id).toBe(7)
      expect(body.result.structuredContent.hits.map((h: Wire) => h.text)).toEqual([
        `Scope ${k % 8} keeps the marker word m${k % 8}`,
      ])
    })
  })

  it('answers a batch in request order under the ids given, and 202 without requests', async () => {
    const r = await post([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call('b', 'list_memories', { scope_id: 'x1' }),
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'no/such/method' },
      call('b', 'list_memories', { scope_id: 'x2' }),
    ])
    expect(r.status).toBe(200)
    const replies = r.body as Wire[]
    expect(replies.map((m) => m.id)).toEqual(['b', 'a', 3, 'b'])
    expect(replies[0]!.result.structuredContent.memories[0].scope_id).toBe('x1')
    expect(replies[1]!.result.tools).toHaveLength(10)
    expect(replies[2]!.error.code).toBe(-32601)
    expect(replies[3]!.result.structuredContent.memories[0].scope_id).toBe('x2')

    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(note.status).toBe(202)
    expect(note.text).toBe('')
  })

  it('refuses what the Streamable HTTP transport refuses', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    const refused = async (body: unknown, headers: Record<string, string>, status: number) => {
      const r = await post(body, headers)
      expect(r.status, r.text).toBe(status)
      return (r.body as Wire).error
    }
    expect(await refused(list, { 'content-type': 'application/json' }, 406)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/Not Acceptable/),
    })
    expect(
      await refused(list, { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }, 400),
    ).toMatchObject({ code: -32000, message: expect.stringMatching(/protocol version/) })
    expect(await refused({ jsonrpc: '1.0', id: 1 }, HEADERS, 400)).toMatchObject({ code: -32700 })
    const init = initializeRequest('t', list.id)
    expect(await refused([init, list], HEADERS, 400)).toMatchObject({ code: -32600 })
    expect(await refused(Array(101).fill(list), HEADERS, 400)).toMatchObject({ code: -32600 })
    // Not JSON at all: the app's own envelope, as for every route.
    const text = await post('tools/list', { ...HEADERS, 'content-type': 'text/plain' })
    expect(text.status).toBe(415)
    // A supported protocol version is accepted.
    const ok = await post(list, { ...HEADERS, 'mcp-protocol-version': '2025-06-18' })
    expect((ok.body as Wire).result.tools).toHaveLength(10)
  })
})
