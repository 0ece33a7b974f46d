import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { chooseLogFormat, loggerOptions } from '../../src/http/log-format.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'

const TOKEN = 'logs-test-token'
const SCOPE = 'request-logs'
const dataDir = mkdtempSync(join(tmpdir(), 'pc-logs-'))
const lines: Record<string, unknown>[] = []
const raw: string[] = []
/** pino writes one JSON line per call; the test reads them back as objects. */
const capture = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue
      raw.push(line)
      lines.push(JSON.parse(line) as Record<string, unknown>)
    }
    done()
  },
})
let server: RunningServer

const auth = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }
const post = (path: string, body: unknown, headers: Record<string, string> = auth) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
const completedLine = (requestId: string | null) =>
  lines.find((l) => l['request_id'] === requestId && l['msg'] === 'request completed')

beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    authToken: TOKEN,
    logStream: capture,
  })
})
afterAll(async () => {
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('log format', () => {
  it('is pretty on a terminal and JSON lines elsewhere unless a setting says otherwise', () => {
    expect(chooseLogFormat(undefined, true)).toBe('pretty')
    expect(chooseLogFormat('auto', true)).toBe('pretty')
    expect(chooseLogFormat('auto', false)).toBe('json')
    expect(chooseLogFormat(undefined, undefined)).toBe('json')
    expect(chooseLogFormat('json', true)).toBe('json')
    expect(chooseLogFormat('pretty', false)).toBe('pretty')
  })

  it('uses the pino-pretty transport only for pretty output', () => {
    expect(loggerOptions({ level: 'info' }, true).transport).toMatchObject({
      target: 'pino-pretty',
    })
    expect(loggerOptions({ level: 'info' }, false).transport).toBeUndefined()
    expect(loggerOptions({ level: 'info', format: 'json' }, true).transport).toBeUndefined()
    expect(loggerOptions({ level: 'warn', stream: capture }, true)).toEqual({
      level: 'warn',
      stream: capture,
    })
  })

  it('writes JSON lines to stdout synchronously (no thread-pool hop per line)', () => {
    for (const options of [
      loggerOptions({ level: 'info' }, false),
      loggerOptions({ level: 'info', format: 'json' }, true),
    ]) {
      // A sonic-boom destination (pino.destination): fd 1, one blocking write per line.
      const stream = options.stream as { fd?: number; sync?: boolean } | undefined
      expect(stream?.fd).toBe(1)
      expect(stream?.sync).toBe(true)
    }
  })
})

describe('request log lines', () => {
  it('carry the stable error code of 4xx answers', async () => {
    const unauthorized = await post('/v1/memory/search', { scope_id: SCOPE, query: 'x' }, {})
    expect(unauthorized.status).toBe(401)
    const remembered = await post('/v1/memory/remember', {
      scope_id: SCOPE,
      entries: [{ kind: 'fact', text: 'The build uses esbuild for bundling.' }],
    })
    expect(remembered.status).toBe(200)
    const { results } = (await remembered.json()) as {
      results: { memory: { memory_ref: { artifact_id: string } } }[]
    }
    const artifact_id = results[0]!.memory.memory_ref.artifact_id
    const updated = await post('/v1/memory/update', {
      scope_id: SCOPE,
      memory_ref: { artifact_id, revision: 1 },
      text: 'The build uses esbuild and tsc.',
    })
    expect(updated.status).toBe(200)
    const stale = await post('/v1/memory/update', {
      scope_id: SCOPE,
      memory_ref: { artifact_id, revision: 1 },
      text: 'A write computed from an old version.',
    })
    expect(stale.status).toBe(409)
    const invalid = await post('/v1/memory/search', { scope_id: SCOPE })
    expect(invalid.status).toBe(422)
    const noRoute = await fetch(`${server.url}/v1/nowhere?token=query-secret-1`, { headers: auth })
    expect(noRoute.status).toBe(404)

    const id = (r: Response) => r.headers.get('x-powercontext-request-id')
    expect(completedLine(id(unauthorized))).toMatchObject({
      status: 401,
      err_code: 'unauthorized',
      route: '/v1/memory/search',
    })
    expect(completedLine(id(stale))).toMatchObject({ status: 409, err_code: 'revision_conflict' })
    expect(completedLine(id(invalid))).toMatchObject({ status: 422, err_code: 'invalid_request' })
    expect(completedLine(id(noRoute))).toMatchObject({
      status: 404,
      err_code: 'invalid_request',
      route: 'unmatched',
      path: '/v1/nowhere',
    })
    expect(completedLine(id(updated))).not.toHaveProperty('err_code')
    // The text of a memory is never logged.
    expect(raw.join('\n')).not.toContain('esbuild')
    // Nor a query string.
    expect(raw.join('\n')).not.toContain('query-secret-1')
  })

  it('name the MCP tool on /mcp, never its arguments', async () => {
    const client = new Client({ name: 'request-logs-test', version: '0.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    )
    const query = 'zanzibar-quokka-marmalade'
    const before = lines.length
    const result = (await client.callTool({
      name: 'search_memory',
      arguments: { scope_id: SCOPE, query },
    })) as CallToolResult
    expect(result.isError).not.toBe(true)
    await client.close()
    const mcpLines = lines.slice(before).filter((l) => l['route'] === '/mcp')
    expect(mcpLines.map((l) => l['mcp_tool'])).toContain('search_memory')
    const initialize = lines.find((l) => l['route'] === '/mcp' && l['mcp_tool'] === 'initialize')
    expect(initialize).toMatchObject({ status: 200, method: 'POST' })
    expect(raw.join('\n')).not.toContain(query)
  })
})

describe('shutdown', () => {
  it('logs the signal, the drain and each close with its duration', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-logs-stop-'))
    const own: Record<string, unknown>[] = []
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line !== '') own.push(JSON.parse(line) as Record<string, unknown>)
        done()
      },
    })
    const stopping = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: dir,
      logStream: stream,
    })
    await stopping.stop('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
    const shutdown = own.filter((l) => String(l['msg']).startsWith('shutdown'))
    expect(shutdown.map((l) => l['msg'])).toEqual([
      'shutdown: signal received',
      'shutdown: draining requests, no new connections',
      'shutdown: HTTP server closed',
      'shutdown: runtime closed',
      'shutdown: complete',
    ])
    expect(shutdown[0]).toMatchObject({ signal: 'SIGTERM' })
    for (const l of shutdown.slice(2)) expect(typeof l['duration_ms']).toBe('number')
  })
})
