/**
 * The MCP clients `bench/mcp.ts` calls: ours over Streamable HTTP, through the stdio proxy and
 * embedded (`powercontext mcp --data-dir`), and the official memory server over stdio.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

import type { ServerChild } from './bench-server.js'
import { BIN } from './mcp-starts.js'

/** The scope every benchmark memory is in, and the search limit. */
export const SCOPE = 'bench-mcp'
export const LIMIT = 8
/** The client row the ratios are taken against. */
export const THEIRS = 'server-memory search_nodes'

/** Where the official memory server's entry point is (its package `bin`). */
function serverMemoryEntry(): string {
  const require = createRequire(import.meta.url)
  const pkgPath = require.resolve('@modelcontextprotocol/server-memory/package.json')
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: Record<string, string> }
  return join(dirname(pkgPath), pkg.bin['mcp-server-memory']!)
}

export interface Target {
  readonly name: string
  readonly client: Client
  /** Its own process (RSS), if it has one. */
  readonly pid: () => number | undefined
  /** The processes besides this one that work on its calls (CPU time). */
  readonly pids: () => number[]
  call(query: string): Promise<boolean>
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: 'bench-mcp', version: '0.0.0' })
  await client.connect(transport)
  await client.listTools() // as a host does; the client then checks results against the schemas
  return client
}

/** One result list's length out of a tool result, or an error when the call failed. */
function count(result: Awaited<ReturnType<Client['callTool']>>, key: string): number {
  const body = result.structuredContent as Record<string, unknown[]> | undefined
  if (result.isError === true || !Array.isArray(body?.[key]))
    throw new Error(`tool call failed: ${JSON.stringify(result).slice(0, 200)}`)
  return body[key].length
}

export async function targets(
  server: ServerChild,
  dataDir: string,
  jsonl: string,
): Promise<Target[]> {
  const search = (client: Client) => async (query: string) => {
    const args = { scope_id: SCOPE, query, limit: LIMIT }
    return count(await client.callTool({ name: 'search_memory', arguments: args }), 'hits') > 0
  }
  const stdio = (args: string[], env: Record<string, string> = {}) =>
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...getDefaultEnvironment(), ...env },
      stderr: 'ignore',
    })
  const http = await connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url)))
  const proxyTransport = stdio([BIN, 'mcp', '--server-url', server.url.href])
  const proxy = await connect(proxyTransport)
  const embeddedTransport = stdio([BIN, 'mcp', '--data-dir', dataDir])
  const embedded = await connect(embeddedTransport)
  const memoryTransport = stdio([serverMemoryEntry()], { MEMORY_FILE_PATH: jsonl })
  const memory = await connect(memoryTransport)
  const proxyPid = () => proxyTransport.pid ?? undefined
  const embeddedPid = () => embeddedTransport.pid ?? undefined
  const memoryPid = () => memoryTransport.pid ?? undefined
  return [
    {
      name: 'search_memory over /mcp (HTTP)',
      client: http,
      pid: () => undefined,
      pids: () => [server.pid],
      call: search(http),
    },
    {
      name: 'search_memory via stdio proxy',
      client: proxy,
      pid: proxyPid,
      pids: () => [proxyPid()!, server.pid],
      call: search(proxy),
    },
    {
      name: 'search_memory, embedded stdio',
      client: embedded,
      pid: embeddedPid,
      pids: () => [embeddedPid()!],
      call: search(embedded),
    },
    {
      name: THEIRS,
      client: memory,
      pid: memoryPid,
      pids: () => [memoryPid()!],
      call: async (query) =>
        count(await memory.callTool({ name: 'search_nodes', arguments: { query } }), 'entities') >
        0,
    },
  ]
}
