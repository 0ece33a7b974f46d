/*
 * DNS rebinding and cross-origin browser requests, on a real server on loopback: a page on a
 * name rebound to 127.0.0.1 sends its own name in `Host`; a foreign page sends its `Origin`.
 * Both are refused with 403 `forbidden` (`details.reason` `host` / `origin`) on `/v1/…` and
 * `/mcp`, while what the console, the CLI, the clients, the MCP proxy and the hooks send —
 * `Host: 127.0.0.1:port` / `localhost:port`, the console's own `Origin` — is served; a reverse
 * proxy's names are allowed by setting.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'

const dirs: string[] = []
const servers: RunningServer[] = []

async function start(extra: { allowedHosts?: string[]; allowedOrigins?: string[] } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'pc-host-guard-'))
  dirs.push(dataDir)
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    ...extra,
  })
  servers.push(server)
  return Number(new URL(server.url).port)
}

afterAll(async () => {
  for (const s of servers) await s.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

interface Answer {
  readonly status: number
  readonly body: { error?: { code: string; details: Record<string, unknown> | null } }
}

/** One request to 127.0.0.1:`port` with exactly these headers (fetch cannot set `Host`). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => {
          let parsed: Answer['body'] = {}
          try {
            parsed = JSON.parse(text) as Answer['body']
          } catch {
            // an SSE answer of /mcp
          }
          resolve({ status: res.statusCode ?? 0, body: parsed })
        })
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

const remember = { scope_id: 'rebind', entries: [{ kind: 'fact', text: 'a secret fact' }] }
const mcpList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }

describe('the default policy (loopback bind, nothing configured)', () => {
  let port: number
  beforeAll(async () => {
    port = await start()
  })

  it('refuses a rebinding Host on /v1 and /mcp with 403 forbidden (host)', async () => {
    for (const host of [
      `attacker.example:${port}`,
      'attacker.example',
      `rebind.localhost.evil.com:${port}`,
    ]) {
      const rest = await send(port, 'POST', '/v1/memory/remember', { host }, remember)
      expect(rest.status, host).toBe(403)
      expect(rest.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'host' } })
      const mcp = await send(port, 'POST', '/mcp', { host }, mcpList)
      expect(mcp.status, host).toBe(403)
      expect(mcp.body.error?.code).toBe('forbidden')
    }
    const list = await send(
      port,
      'POST',
      '/v1/memory/list',
      { host: 'attacker.example' },
      { scope_id: 'rebind' },
    )
    expect(list.status).toBe(403)
  })

  it('serves what the local clients send: 127.0.0.1, localhost, [::1], with or without the port', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      '127.0.0.1',
      `app.localhost:${port}`,
    ]) {
      const rest = await send(port, 'POST', '/v1/memory/remember', { host }, remember)
      expect(rest.status, host).toBe(200)
    }
    const mcp = await send(port, 'POST', '/mcp', { host: `localhost:${port}` }, mcpList)
    expect(mcp.status).toBe(200)
  })

  it("refuses a foreign Origin (403 forbidden, origin) and serves the console's own", async () => {
    const host = `127.0.0.1:${port}`
    for (const origin of ['http://attacker.example', 'null', `http://localhost:${port + 1}`]) {
      const r = await send(port, 'POST', '/v1/memory/remember', { host, origin }, remember)
      expect(r.status, origin).toBe(403)
      expect(r.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'origin' } })
      const mcp = await send(port, 'POST', '/mcp', { host, origin }, mcpList)
      expect(mcp.status, origin).toBe(403)
    }
    const own = await send(
      port,
      'POST',
      '/v1/memory/remember',
      { host, origin: `http://${host}` },
      remember,
    )
    expect(own.status).toBe(200)
  })

  it('keeps health probes answerable by any name', async () => {
    const live = await send(port, 'GET', '/health/live', { host: 'powercontext.internal:80' })
    expect(live.status).toBe(200)
  })
})

describe('a reverse proxy configured by name and origin', () => {
  let port: number
  beforeAll(async () => {
    port = await start({
      allowedHosts: ['memory.example.com'],
      allowedOrigins: ['https://memory.example.com'],
    })
  })

  it("serves the proxy's Host and Origin and still refuses others", async () => {
    const ok = await send(
      port,
      'POST',
      '/v1/memory/remember',
      { host: 'memory.example.com', origin: 'https://memory.example.com' },
      remember,
    )
    expect(ok.status).toBe(200)
    const other = await send(
      port,
      'POST',
      '/v1/memory/remember',
      { host: 'other.example.com' },
      remember,
    )
    expect(other.status).toBe(403)
    const foreign = await send(
      port,
      'POST',
      '/v1/memory/remember',
      { host: 'memory.example.com', origin: 'https://attacker.example' },
      remember,
    )
    expect(foreign.status).toBe(403)
  })
})
