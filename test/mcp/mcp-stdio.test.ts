import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  type CallToolResult,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { OPERATIONS } from '../../src/contract/operations.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { MCP_INSTRUCTIONS } from '../../src/mcp/mcp-instructions.js'
import { PROXY_PROTOCOL_VERSIONS } from '../../src/mcp/stdio-proxy.js'
import { MCP_TOOLS } from '../../src/mcp/tool-definitions.js'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const BUILT = ['../../dist/cli/main.js', '../../dist/cli/mcp-command.js', '../../dist/mcp/index.js']
const TOKEN = 'stdio-proxy-token'
const ALLOW_LIST = OPERATIONS.flatMap((op) => (op.mcpTool === null ? [] : [op.mcpTool.name])).sort()
const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-stdio-'))
let server: RunningServer

type Wire = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** Spawns `powercontext mcp` and connects an SDK client to it over stdio. */
async function proxy(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: Client; stderr: () => string; close: () => Promise<number> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  })
  let err = ''
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()))
  const client = new Client({ name: 'mcp-stdio-test', version: '0.0.0' })
  await client.connect(transport)
  return {
    client,
    stderr: () => err,
    // Closing ends the child's stdin; the SDK escalates to SIGTERM after 2 s.
    close: async () => {
      const started = Date.now()
      await client.close()
      return Date.now() - started
    },
  }
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

beforeAll(async () => {
  for (const file of BUILT)
    if (!existsSync(fileURLToPath(new URL(file, import.meta.url))))
      throw new Error(`${file.slice(6)} is missing: run npm run build first`)
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    authToken: TOKEN,
  })
})

afterAll(async () => {
  await server?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('powercontext mcp (stdio proxy)', () => {
  it('proxies tools/list and tools/call to the remote /mcp with the bearer token', async () => {
    const p = await proxy(['--server-url', server.url, '--token', TOKEN])
    const { tools } = await p.client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(ALLOW_LIST)
    expect(tools.find((t) => t.name === 'search_memory')?.annotations?.readOnlyHint).toBe(true)
    expect(tools).toEqual(MCP_TOOLS.map((b) => b.tool))
    expect(p.client.getInstructions()).toBe(MCP_INSTRUCTIONS)

    const scope_id = 'stdio-proxy'
    const remembered = await call(p.client, 'remember_memory', {
      scope_id,
      entries: [{ kind: 'preference', text: 'Prefer small pull requests' }],
    })
    expect(remembered.isError).toBeFalsy()
    const ref = (remembered.structuredContent as Wire).results[0].memory.memory_ref
    const found = await call(p.client, 'search_memory', { scope_id, query: 'pull requests' })
    expect((found.structuredContent as Wire).hits[0].memory_ref).toEqual(ref)
    expect(JSON.parse((found.content[0] as { text: string }).text)).toEqual(found.structuredContent)

    const missing = await call(p.client, 'get_memory', { scope_id, memory_id: 'mem_nope' })
    expect(missing.isError).toBe(true)
    expect((missing.structuredContent as Wire).error.code).toBe('memory_not_found')
    expect(await p.close()).toBeLessThan(1500)
  })

  it('reads the server URL and token from the environment', async () => {
    const p = await proxy([], {
      POWERCONTEXT_CLIENT_SERVER_URL: `${server.url}/mcp`,
      POWERCONTEXT_CLIENT_API_TOKEN: TOKEN,
    })
    const listed = await call(p.client, 'list_memories', { scope_id: 'stdio-env' })
    expect(listed.structuredContent).toEqual({ memories: [], next_after: null })
    await p.close()
  })

  it('stays up and answers isError while the remote is unreachable or rejects the token', async () => {
    const url = `http://127.0.0.1:${await deadPort()}`
    const p = await proxy(['--server-url', url])
    const { tools } = await p.client.listTools()
    expect(tools).toEqual(MCP_TOOLS.map((b) => b.tool))
    expect(p.client.getInstructions()).toBe(MCP_INSTRUCTIONS)
    for (let i = 0; i < 2; i++) {
      const r = await call(p.client, 'search_memory', { scope_id: 's', query: 'q' })
      expect(r.isError).toBe(true)
      expect((r.content[0] as { text: string }).text).toMatch(
        /^runtime_not_ready: cannot reach the PowerContext server at http:\/\/127\.0\.0\.1:\d+\/mcp/,
      )
    }
    expect(p.stderr()).toMatch(/cannot reach/)
    await p.close()

    const wrong = await proxy(['--server-url', server.url, '--token', 'wrong'])
    const r = await call(wrong.client, 'list_memories', { scope_id: 's' })
    expect(r.isError).toBe(true)
    expect((r.structuredContent as Wire).error.code).toBe('unauthorized')
    await wrong.close()
  })

  it('answers a one-shot pipe, passes JSON-RPC errors through, and speaks the SDK versions', async () => {
    expect(PROXY_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS)
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2024-11-05',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '0' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'list_memories', arguments: { scope_id: 'stdio-pipe' } },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'list_memories', arguments: 7 },
      },
      { jsonrpc: '2.0', id: 4, method: 'resources/list' },
    ]
    const input = `${lines.map((l) => JSON.stringify(l)).join('\n')}\nnot json\n`
    const env = { ...getDefaultEnvironment(), POWERCONTEXT_CLIENT_API_TOKEN: TOKEN }
    // Not spawnSync: the server runs in this process and must keep answering.
    const child = spawn(process.execPath, [BIN, 'mcp', '--server-url', server.url], { env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.stdin.end(input)
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
    const r = { status, stdout, stderr }
    expect(r.status, r.stderr).toBe(0)
    const replies = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Wire)
    const byId = new Map(replies.map((m) => [m.id, m]))
    expect(replies).toHaveLength(5)
    expect(byId.get(1)!.result).toMatchObject({
      protocolVersion: '2024-11-05',
      instructions: MCP_INSTRUCTIONS,
      serverInfo: { name: 'powercontext' },
    })
    expect(byId.get(2)!.result.structuredContent).toEqual({ memories: [], next_after: null })
    // The remote's JSON-RPC error, unchanged.
    const direct = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(lines[3]),
    })
    expect(byId.get(3)!.error).toEqual(((await direct.json()) as Wire).error)
    expect(byId.get(4)!.error.code).toBe(-32601)
    expect(byId.get(null)!.error.code).toBe(-32700)
  })

  it('is a usage error without a server URL', () => {
    const env = { ...getDefaultEnvironment() }
    const r = spawnSync(process.execPath, [BIN, 'mcp'], { env, input: '', encoding: 'utf8' })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/--server-url/)
    expect(r.stdout).toBe('')
  })
})
