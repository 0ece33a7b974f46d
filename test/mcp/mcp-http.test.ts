import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { OPERATIONS } from '../../src/contract/operations.js'
import { buildApp } from '../../src/http/app.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { mcpPlugin } from '../../src/mcp/mcp-plugin.js'
import type { MemoryRuntime } from '../../src/runtime/memory-runtime.js'

const TOKEN = 'mcp-test-token'
const dataDirs: string[] = []
const clients: Client[] = []
let open: RunningServer
let secured: RunningServer

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-mcp-'))
  dataDirs.push(dir)
  return dir
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '0.0.0' })
  const headers: Record<string, string> =
    token === undefined ? {} : { Authorization: `Bearer ${token}` }
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers } }),
  )
  clients.push(client)
  return client
}

type Wire = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** Calls a tool that must succeed; returns its structured wire object. */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Wire> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (r.isError === true) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`)
  expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent)
  return r.structuredContent as Wire
}

/** Calls a tool that must fail; returns its error code after checking the result's shape. */
async function failCode(client: Client, name: string, args: unknown): Promise<string> {
  const r = (await client.callTool({
    name,
    arguments: args as Record<string, unknown>,
  })) as CallToolResult
  expect(r.isError).toBe(true)
  const { error } = r.structuredContent as { error: { code: string; message: string } }
  expect(r.content).toEqual([{ type: 'text', text: `${error.code}: ${error.message}` }])
  return error.code
}

const ALLOW_LIST = OPERATIONS.flatMap((op) => (op.mcpTool === null ? [] : [op.mcpTool]))

beforeAll(async () => {
  open = await startServer({ host: '127.0.0.1', port: 0, dataDir: tempDir(), logLevel: 'silent' })
  secured = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: tempDir(),
    logLevel: 'silent',
    authToken: TOKEN,
  })
})

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await open?.stop()
  await secured?.stop()
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

describe('MCP over Streamable HTTP (/mcp)', () => {
  it('lists exactly the contract allow-list, with read-only hints and object schemas', async () => {
    const client = await connect(open.url)
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name).sort()
    expect(names).toEqual(ALLOW_LIST.map((t) => t.name).sort())
    expect(names).toEqual([
      'forget_memory',
      'get_memory',
      'list_memories',
      'memory_history',
      'merge_memories',
      'preview_restore',
      'remember_memory',
      'restore_memory',
      'search_memory',
      'update_memory',
    ])
    for (const banned of ['capture', 'flush', 'changes', 'health', 'ready', 'capabilities'])
      expect(names.some((n) => n.includes(banned))).toBe(false)
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name)
    expect(readOnly.sort()).toEqual([
      'get_memory',
      'list_memories',
      'memory_history',
      'preview_restore',
      'search_memory',
    ])
    for (const tool of tools) {
      const op = OPERATIONS.find((o) => o.mcpTool?.name === tool.name)!
      expect(tool.description?.startsWith(`${op.summary} `)).toBe(true)
      expect(tool.inputSchema.type).toBe('object')
      // Optional: a call without one uses the connection's scope (test/mcp/mcp-scope.test.ts).
      expect(tool.inputSchema.required ?? []).not.toContain('scope_id')
      expect(tool.inputSchema.properties).toHaveProperty('scope_id')
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref')
      if (op.mcpTool?.readOnly === true)
        expect(tool.annotations).toMatchObject({ destructiveHint: false, openWorldHint: false })
      else expect(tool.annotations?.readOnlyHint).toBe(false)
    }
    const get = tools.find((t) => t.name === 'get_memory')!
    expect(get.inputSchema.required).toEqual([])
    expect(Object.keys(get.inputSchema.properties ?? {}).sort()).toEqual([
      'legacy_citation',
      'memory_id',
      'memory_ref',
      'scope_id',
    ])
  })

  it('runs the memory lifecycle through the tools', async () => {
    const client = await connect(open.url)
    const scope_id = 'mcp-lifecycle'
    const remembered = await ok(client, 'remember_memory', {
      scope_id,
      entries: [{ kind: 'fact', text: 'The monorepo builds with pnpm workspaces' }],
    })
    expect(remembered.results[0].status).toBe('created')
    const ref = remembered.results[0].memory.memory_ref
    const memory_id: string = ref.artifact_id
    expect(ref.revision).toBe(1)

    const found = await ok(client, 'search_memory', { scope_id, query: 'pnpm workspaces' })
    expect(found.hits.map((h: Wire) => h.memory_ref)).toContainEqual(ref)

    const got = await ok(client, 'get_memory', { scope_id, memory_id })
    expect(got).toMatchObject({ current_revision: 1, state: 'active' })
    expect(got.memory.text).toBe('The monorepo builds with pnpm workspaces')

    const updated = await ok(client, 'update_memory', {
      scope_id,
      memory_ref: ref,
      text: 'The monorepo builds with pnpm 9 workspaces',
    })
    expect(updated.status).toBe('updated')
    expect(updated.memory.memory_ref).toEqual({ artifact_id: memory_id, revision: 2 })
    const first = await ok(client, 'get_memory', { scope_id, memory_ref: ref })
    expect(first.memory.text).toBe('The monorepo builds with pnpm workspaces')

    const history = await ok(client, 'memory_history', { scope_id, memory_id })
    expect(history.versions.map((v: Wire) => v.memory_ref.revision)).toEqual([1, 2])
    expect(history.next_after).toBeNull()
    const later = await ok(client, 'memory_history', { scope_id, memory_id, after: 1 })
    expect(later.versions.map((v: Wire) => v.memory_ref.revision)).toEqual([2])
    expect([later.merges, later.next_after]).toEqual([[], null])

    const forgotten = await ok(client, 'forget_memory', { scope_id, memory_id, reason: 'test' })
    expect(forgotten.status).toBe('forgotten')
    const active = await ok(client, 'list_memories', { scope_id })
    expect(active.memories).toEqual([])
    const listed = await ok(client, 'list_memories', { scope_id, states: ['forgotten'] })
    expect(listed.memories.map((m: Wire) => m.memory_ref.artifact_id)).toEqual([memory_id])

    const restored = await ok(client, 'restore_memory', { scope_id, memory_id })
    expect(restored.status).toBe('restored')
    expect(await ok(client, 'get_memory', { scope_id, memory_id })).toMatchObject({
      current_revision: 2,
      state: 'active',
    })
  })

  it('reports failures as isError tool results carrying the contract code', async () => {
    const client = await connect(open.url)
    const scope_id = 'mcp-errors'
    const created = await ok(client, 'remember_memory', {
      scope_id,
      entries: [{ kind: 'decision', text: 'Use vitest for tests' }],
    })
    const ref = created.results[0].memory.memory_ref
    await ok(client, 'update_memory', { scope_id, memory_ref: ref, text: 'Use vitest 4 for tests' })
    expect(await failCode(client, 'update_memory', { scope_id, memory_ref: ref, text: 'x' })).toBe(
      'revision_conflict',
    )
    const memory_id: string = ref.artifact_id
    expect(await failCode(client, 'get_memory', { scope_id, memory_id, memory_ref: ref })).toBe(
      'invalid_request',
    )
    expect(await failCode(client, 'get_memory', { scope_id })).toBe('invalid_request')
    expect(await failCode(client, 'search_memory', { scope_id, query: 'x', limit: '3' })).toBe(
      'invalid_request',
    )
    expect(await failCode(client, 'forget_memory', { scope_id, memory_id, extra: true })).toBe(
      'invalid_request',
    )
    expect(await failCode(client, 'remember_memory', undefined)).toBe('invalid_request')
    expect(await failCode(client, 'get_memory', { scope_id, memory_id: 'mem_missing' })).toBe(
      'memory_not_found',
    )
    expect(await failCode(client, 'capture_content', { scope_id, content: 'x' })).toBe(
      'invalid_request',
    )
    const r = (await client.callTool({
      name: 'get_memory',
      arguments: { scope_id },
    })) as CallToolResult
    expect((r.structuredContent as Wire).error.details.errors.length).toBeGreaterThan(0)
  })

  it('answers runtime_not_ready while the runtime is unbound', async () => {
    const app = buildApp({ slot: { current: undefined }, plugins: [mcpPlugin] })
    await app.listen({ host: '127.0.0.1', port: 0 })
    try {
      const address = app.server.address() as { port: number }
      const client = await connect(`http://127.0.0.1:${address.port}`)
      expect((await client.listTools()).tools).toHaveLength(ALLOW_LIST.length)
      expect(await failCode(client, 'list_memories', { scope_id: 's' })).toBe('runtime_not_ready')
      expect(await failCode(client, 'list_memories', { scope_id: 7 })).toBe('invalid_request')
      await client.close()
    } finally {
      await app.close()
    }
  })

  it('reports an unexpected failure as internal_error without internals', async () => {
    const broken = {
      list: () => Promise.reject(new Error('secret stack detail')),
    } as unknown as MemoryRuntime
    const app = buildApp({ slot: { current: broken }, plugins: [mcpPlugin] })
    await app.listen({ host: '127.0.0.1', port: 0 })
    try {
      const address = app.server.address() as { port: number }
      const client = await connect(`http://127.0.0.1:${address.port}`)
      const r = (await client.callTool({
        name: 'list_memories',
        arguments: { scope_id: 's' },
      })) as CallToolResult
      expect(r.isError).toBe(true)
      expect(r.content).toEqual([{ type: 'text', text: 'internal_error: internal error' }])
      expect(JSON.stringify(r)).not.toContain('secret')
      await client.close()
    } finally {
      await app.close()
    }
  })

  it('is stateless HTTP: POST only, request id on every response', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']) {
      const res = await fetch(`${open.url}/mcp`, {
        method,
        ...(method === 'PUT' || method === 'PATCH'
          ? { headers: { 'content-type': 'application/json' }, body: '{}' }
          : {}),
      })
      expect(res.status, method).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
    }
    const res = await fetch(`${open.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'X-PowerContext-Request-ID': 'mcp:1',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-powercontext-request-id')).toBe('mcp:1')
    expect(res.headers.get('mcp-session-id')).toBeNull()
    const body = (await res.json()) as { result: { tools: unknown[] } }
    expect(body.result.tools).toHaveLength(ALLOW_LIST.length)
  })

  it('requires the bearer token when the server has one', async () => {
    // The SDK transport reports the HTTP status as `code` (StreamableHTTPError).
    await expect(connect(secured.url)).rejects.toMatchObject({ code: 401 })
    await expect(connect(secured.url, 'wrong-token')).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/unauthorized/),
    })
    const raw = await fetch(`${secured.url}/mcp`, { method: 'POST' })
    expect(raw.status).toBe(401)
    expect(((await raw.json()) as Wire).error.code).toBe('unauthorized')
    const client = await connect(secured.url, TOKEN)
    const scope_id = 'mcp-auth'
    await ok(client, 'remember_memory', { scope_id, entries: [{ kind: 'fact', text: 'secured' }] })
    expect((await ok(client, 'list_memories', { scope_id })).memories).toHaveLength(1)
  })
})
