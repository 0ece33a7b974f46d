/**
 * The connection's scope: a tool call that names no `scope_id` runs in the scope the connection
 * was configured with — the `X-PowerContext-Scope` header of `/mcp`, or `powercontext mcp --scope`
 * (proxy and embedded forms) — a named `scope_id` wins, and a call with neither is
 * `invalid_request` that writes nothing. Real server, real MCP SDK clients, the real CLI.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { SCOPE_ID_GUIDE } from '../../src/mcp/tool-definitions.js'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-scope-'))
const embeddedDir = mkdtempSync(join(tmpdir(), 'pc-mcp-scope-embedded-'))
let server: RunningServer
const clients: Client[] = []

type Wire = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** An SDK client of `/mcp`, sending the scope header when one is given. */
async function httpClient(scope?: string): Promise<Client> {
  const headers: Record<string, string> =
    scope === undefined ? {} : { 'X-PowerContext-Scope': scope }
  const client = new Client({ name: 'mcp-scope-test', version: '0.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers } }),
  )
  clients.push(client)
  return client
}

/** An SDK client of `powercontext mcp …` over stdio. */
async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client({ name: 'mcp-scope-test', version: '0.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', ...args],
      env: getDefaultEnvironment(),
      stderr: 'ignore',
    }),
  )
  clients.push(client)
  return client
}

const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallToolResult

async function ok(c: Client, name: string, args: Record<string, unknown>): Promise<Wire> {
  const r = await call(c, name, args)
  if (r.isError === true) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`)
  return r.structuredContent as Wire
}

async function failure(c: Client, name: string, args: Record<string, unknown>) {
  const r = await call(c, name, args)
  expect(r.isError).toBe(true)
  return (r.structuredContent as { error: { code: string; message: string; details?: Wire } }).error
}

/** The texts of the active memories of a scope, read over HTTP (not through MCP). */
async function texts(scope: string): Promise<string[]> {
  const res = await fetch(`${server.url}/v1/memory/list`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scope_id: scope }),
  })
  const body = (await res.json()) as { memories: { text: string }[] }
  return body.memories.map((m) => m.text).sort()
}

/** Every scope the server knows, with its counts. */
async function scopeList(): Promise<unknown> {
  const res = await fetch(`${server.url}/v1/scopes/list`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  expect(res.status).toBe(200)
  return res.json()
}

const fact = (text: string) => ({ entries: [{ kind: 'fact', text }] })

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
})

afterAll(async () => {
  for (const c of clients) await c.close()
  await server?.stop()
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(embeddedDir, { recursive: true, force: true })
})

describe('MCP tools without scope_id', () => {
  it('list scope_id as optional, saying which scope a call without one uses', async () => {
    const { tools } = await (await httpClient()).listTools()
    expect(tools).toHaveLength(10)
    for (const tool of tools) {
      expect(tool.inputSchema.required ?? [], tool.name).not.toContain('scope_id')
      const scope = (tool.inputSchema.properties ?? {})['scope_id'] as Wire | undefined
      expect(scope?.['description'], tool.name).toBe(SCOPE_ID_GUIDE)
      expect(scope?.['maxLength'], tool.name).toBe(128)
    }
  })

  it('over /mcp use the X-PowerContext-Scope header; a named scope_id wins', async () => {
    const client = await httpClient('test:mcp-scope-header')
    await ok(client, 'remember_memory', fact('The header scope is used by default.'))
    await ok(client, 'remember_memory', {
      scope_id: 'test:mcp-scope-named',
      ...fact('A named scope wins over the header.'),
    })
    expect(await texts('test:mcp-scope-header')).toEqual(['The header scope is used by default.'])
    expect(await texts('test:mcp-scope-named')).toEqual(['A named scope wins over the header.'])
    const hits = await ok(client, 'search_memory', { query: 'header scope default' })
    expect(hits['hits'].map((h: Wire) => h['text'])).toEqual([
      'The header scope is used by default.',
    ])
  })

  it('without a header and without scope_id are invalid_request and write nothing', async () => {
    const client = await httpClient()
    const before = await scopeList()
    const error = await failure(client, 'remember_memory', fact('Nowhere to go.'))
    expect(error.code).toBe('invalid_request')
    expect(error.message).toMatch(/^scope_id: is required: .*X-PowerContext-Scope/)
    expect(error.details?.['errors']).toEqual([{ field: 'scope_id', message: expect.any(String) }])
    expect((await failure(client, 'search_memory', { query: 'anything' })).code).toBe(
      'invalid_request',
    )
    expect(await scopeList()).toEqual(before)
  })

  it('with a header that is no scope id are invalid_request naming the header', async () => {
    const client = await httpClient('has space')
    const error = await failure(client, 'remember_memory', fact('Bad header.'))
    expect(error.code).toBe('invalid_request')
    expect(error.message).toMatch(/^X-PowerContext-Scope: /)
  })

  it('through the stdio proxy use --scope (sent as the header); none configured fails', async () => {
    const scoped = await stdioClient(['--server-url', server.url, '--scope', 'test:mcp-proxy'])
    await ok(scoped, 'remember_memory', fact('The proxy forwards its scope.'))
    expect(await texts('test:mcp-proxy')).toEqual(['The proxy forwards its scope.'])
    const plain = await stdioClient(['--server-url', server.url])
    expect((await failure(plain, 'remember_memory', fact('No scope.'))).code).toBe(
      'invalid_request',
    )
  })

  it('in the embedded stdio form use --scope; a named scope_id still wins', async () => {
    const client = await stdioClient(['--data-dir', embeddedDir, '--scope', 'test:mcp-embedded'])
    await ok(client, 'remember_memory', fact('The embedded form has a scope too.'))
    const own = await ok(client, 'list_memories', {})
    expect(own['memories'].map((m: Wire) => m['text'])).toEqual([
      'The embedded form has a scope too.',
    ])
    const other = await ok(client, 'list_memories', { scope_id: 'test:elsewhere' })
    expect(other['memories']).toEqual([])
  })
})
