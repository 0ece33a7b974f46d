import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, describe, expect, it } from 'vitest'

import { createPowerContextClient } from '../../src/client/index.js'
import { startServer } from '../../src/http/server-run.js'
import { MCP_INSTRUCTIONS } from '../../src/mcp/mcp-instructions.js'
import { MCP_TOOLS } from '../../src/mcp/tool-definitions.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { EmbeddingsServer } from '../support/embeddings-server.js'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'pc-mcp-embedded-'))
let dirs = 0
const freshDir = () => join(root, `data-${++dirs}`)

type Wire = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Spawns `powercontext mcp <args>` and connects an SDK client to it over stdio. */
async function embedded(args: string[]) {
  if (!existsSync(fileURLToPath(new URL('../../dist/mcp/stdio-server.js', import.meta.url))))
    throw new Error('dist/mcp/stdio-server.js is missing: run npm run build first')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: getDefaultEnvironment(),
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const client = new Client({ name: 'mcp-embedded-test', version: '0.0.0' })
  await client.connect(transport)
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult
  return { client, call, stderr: () => stderr }
}

describe('powercontext mcp --data-dir (embedded stdio server)', () => {
  it('serves the allow-listed tools on the database itself, and what it wrote stays', async () => {
    const dataDir = freshDir()
    const p = await embedded(['--data-dir', dataDir])
    const { tools } = await p.client.listTools()
    expect(tools).toEqual(MCP_TOOLS.map((b) => b.tool))
    expect(p.client.getInstructions()).toBe(MCP_INSTRUCTIONS)
    expect(p.client.getServerVersion()?.name).toBe('powercontext')

    const scope_id = 'embedded'
    const remembered = await p.call('remember_memory', {
      scope_id,
      entries: [{ kind: 'decision', text: 'Releases are cut from the main branch on Fridays' }],
    })
    expect(remembered.isError).toBeFalsy()
    const memory = (remembered.structuredContent as Wire).results[0].memory
    const found = await p.call('search_memory', { scope_id, query: 'when are releases cut' })
    expect((found.structuredContent as Wire).hits[0].memory_ref).toEqual(memory.memory_ref)
    expect(JSON.parse((found.content[0] as { text: string }).text)).toEqual(found.structuredContent)

    const bad = await p.call('search_memory', { scope_id, query: 'x', limit: 0 })
    expect(bad.isError).toBe(true)
    expect((bad.structuredContent as Wire).error.code).toBe('invalid_request')
    expect((bad.structuredContent as Wire).error.request_id).toMatch(/^stdio-\d+$/)
    const missing = await p.call('get_memory', { scope_id, memory_id: 'mem_nope' })
    expect((missing.structuredContent as Wire).error.code).toBe('memory_not_found')
    await p.client.close()
    expect(p.stderr()).toBe('')

    // The process has closed the runtime; the memory is in the file.
    const runtime = await MemoryRuntime.open({ dataDir })
    try {
      const got = await runtime.get({ scopeId: scope_id, memoryId: memory.memory_ref.artifact_id })
      expect(got.memory.text).toBe('Releases are cut from the main branch on Fridays')
    } finally {
      await runtime.close()
    }
  })

  it('shares the data directory with a running server', async () => {
    const dataDir = freshDir()
    const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
    const p = await embedded(['--data-dir', dataDir])
    try {
      const http = createPowerContextClient({ baseUrl: server.url })
      const scope_id = 'shared'
      await http.remember({ scope_id, entries: [{ kind: 'fact', text: 'CI runs on two cores' }] })
      const seen = await p.call('search_memory', { scope_id, query: 'CI cores' })
      expect((seen.structuredContent as Wire).hits).toHaveLength(1)
      await p.call('remember_memory', {
        scope_id,
        entries: [{ kind: 'constraint', text: 'Never push to the release branch directly' }],
      })
      const back = await http.search({ scope_id, query: 'push release branch' })
      expect(back.hits.map((h) => h.text)).toContain('Never push to the release branch directly')
    } finally {
      await p.client.close()
      await server.stop()
    }
  })

  it('answers every request of a one-shot pipe before it exits, slow model calls too', async () => {
    const dataDir = freshDir()
    const scope_id = 'pipe'
    const embeddings = new EmbeddingsServer(16)
    embeddings.delayMs = 150
    const model = [
      ...['--embedding-url', await embeddings.listen(), '--embedding-model', 'm'],
      ...['--embedding-dimension', '16', '--embedding-profile-id', 'p16'],
    ]
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'p', version: '0' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      ...Array.from({ length: 5 }, (_, i) => ({
        jsonrpc: '2.0',
        id: 2 + i,
        method: 'tools/call',
        params: {
          name: 'remember_memory',
          arguments: { scope_id, entries: [{ kind: 'fact', text: `Pipe fact number ${i}` }] },
        },
      })),
      { jsonrpc: '2.0', id: 7, method: 'resources/list' },
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'search_memory', arguments: { scope_id, query: 'fact', mode: 'vector' } },
      },
    ]
    const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', dataDir, ...model], {
      env: getDefaultEnvironment(),
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.stdin.end(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
    await embeddings.close()
    expect(status, stderr).toBe(0)
    expect(embeddings.requests).toBeGreaterThan(0)
    const replies = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Wire)
    const byId = new Map(replies.map((m) => [m.id, m]))
    expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    for (let id = 2; id <= 6; id++) expect(byId.get(id)!.result.isError).toBeFalsy()
    expect(byId.get(7)!.error.code).toBe(-32601)
    expect(byId.get(8)!.result.structuredContent.mode).toBe('vector')
    const runtime = await MemoryRuntime.open({ dataDir })
    try {
      expect((await runtime.list({ scopeId: scope_id })).memories).toHaveLength(5)
    } finally {
      await runtime.close()
    }
  })

  it('exits after stdin ends when the client cancelled a request it sent', async () => {
    const embeddings = new EmbeddingsServer(16)
    embeddings.delayMs = 300
    const model = [
      ...['--embedding-url', await embeddings.listen(), '--embedding-model', 'm'],
      ...['--embedding-dimension', '16', '--embedding-profile-id', 'p16'],
    ]
    const remember = {
      name: 'remember_memory',
      arguments: { scope_id: 'cancel', entries: [{ kind: 'fact', text: 'A cancelled write' }] },
    }
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: remember },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } },
    ]
    const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', freshDir(), ...model], {
      env: getDefaultEnvironment(),
    })
    let stdout = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stdin.end(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
    // The SDK sends no reply to a cancelled request: waiting for one would never end.
    const guard = setTimeout(() => child.kill('SIGKILL'), 10_000)
    const [status, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('close', (code, sig) => resolve([code, sig])),
    )
    clearTimeout(guard)
    await embeddings.close()
    expect(signal).toBeNull()
    expect(status).toBe(0)
    const ids = stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Wire).id)
    expect(ids).toEqual([1])
  }, 20_000)

  it('refuses conflicting or unusable settings with one line and a status', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, 'mcp', ...args], {
        env: getDefaultEnvironment(),
        input: '',
        encoding: 'utf8',
      })
    const both = run('--data-dir', freshDir(), '--server-url', 'http://127.0.0.1:1')
    expect(both.status).toBe(2)
    expect(both.stderr).toMatch(/either --server-url .* or --data-dir\/--database/)
    const two = run('--data-dir', freshDir(), '--database', 'mysql://u@127.0.0.1:1/db')
    expect(two.status).toBe(2)
    expect(two.stderr).toMatch(/either --data-dir or --database/)
    const partial = run('--data-dir', freshDir(), '--embedding-url', 'http://127.0.0.1:1')
    expect(partial.status).toBe(2)
    expect(partial.stderr).toMatch(/embedding settings go together/)
    const proxyWithModel = run('--server-url', 'http://127.0.0.1:1', '--embedding-model', 'm')
    expect(proxyWithModel.status).toBe(2)
    expect(proxyWithModel.stderr).toMatch(/embedding options need --data-dir or --database/)
    const neither = run()
    expect(neither.status).toBe(2)
    expect(neither.stderr).toMatch(/--server-url .* or --data-dir\/--database/)
    const file = join(root, 'a-file')
    writeFileSync(file, '')
    const unusable = run('--data-dir', file)
    expect(unusable.status).toBe(1)
    expect(unusable.stderr).toMatch(/^error: internal_error: cannot open SQLite database/)
    for (const r of [both, two, partial, proxyWithModel, neither, unusable])
      expect(r.stdout).toBe('')
  })
})
