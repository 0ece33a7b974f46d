/**
 * Client-side failures against small fake servers: connection failures and timeouts get their own
 * codes (status 0), nothing is ever retried, and answers without the error envelope still become
 * typed errors.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'

import {
  createPowerContextClient,
  DEFAULT_TIMEOUT_MS,
  PowerContextClientError,
} from '../../src/client/index.js'

const servers: Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

/** A loopback server answering with `handle`; returns its URL and the requests it saw. */
async function fake(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{
  url: string
  hits: { method: string; url: string; headers: IncomingMessage['headers'] }[]
}> {
  const hits: { method: string; url: string; headers: IncomingMessage['headers'] }[] = []
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers })
    req.resume()
    handle(req, res)
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits }
}

async function closedPortUrl(): Promise<string> {
  const { url } = await fake(() => undefined)
  const s = servers.pop()!
  await new Promise((r) => s.close(r))
  return url
}

async function failure(p: Promise<unknown>): Promise<PowerContextClientError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(PowerContextClientError)
  return err as PowerContextClientError
}

const entry = { scope_id: 's', entries: [{ kind: 'fact', text: 'x' }] }

describe('client-side failures', () => {
  it('a refused connection is connection_failed with status 0 and the caller request id', async () => {
    const pc = createPowerContextClient({ baseUrl: await closedPortUrl() })
    const e = await failure(pc.remember(entry, { requestId: 'mine:1' }))
    expect(e).toMatchObject({ code: 'connection_failed', status: 0, requestId: 'mine:1' })
    expect(e.details).toEqual({ reason: 'ECONNREFUSED' })
    expect((await failure(pc.live())).requestId).toBeNull()
  })

  it('a silent server is a timeout after timeoutMs, also per call', async () => {
    const { url } = await fake(() => undefined)
    expect(DEFAULT_TIMEOUT_MS).toBe(10_000)
    const pc = createPowerContextClient({ baseUrl: url, timeoutMs: 150 })
    const started = Date.now()
    const e = await failure(pc.search({ scope_id: 's', query: 'q' }))
    expect(e).toMatchObject({ code: 'timeout', status: 0, details: { timeout_ms: 150 } })
    expect(Date.now() - started).toBeLessThan(5_000)
    const slow = createPowerContextClient({ baseUrl: url })
    expect((await failure(slow.live({ timeoutMs: 100 }))).code).toBe('timeout')
  })

  it('never retries: a dropped connection, a 503 and a timeout each cost exactly one request', async () => {
    const dropped = await fake((req) => req.socket.destroy())
    const e1 = await failure(createPowerContextClient({ baseUrl: dropped.url }).remember(entry))
    expect(e1.code).toBe('connection_failed')
    expect(dropped.hits).toHaveLength(1)

    const unavailable = await fake((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'x-powercontext-request-id': 'r1' })
      res.end(
        JSON.stringify({
          error: { code: 'runtime_not_ready', message: 'later', request_id: 'r1', details: null },
        }),
      )
    })
    const pc = createPowerContextClient({ baseUrl: unavailable.url })
    expect((await failure(pc.forget({ scope_id: 's', memory_id: 'm' }))).code).toBe(
      'runtime_not_ready',
    )
    expect((await failure(pc.list({ scope_id: 's' }))).code).toBe('runtime_not_ready')
    expect(unavailable.hits.map((h) => h.url)).toEqual(['/v1/memory/forget', '/v1/memory/list'])
    // A 503 that is not a readiness report (here: an error envelope) is an error, even for ready().
    expect((await failure(pc.ready())).code).toBe('runtime_not_ready')

    const silent = await fake(() => undefined)
    const quick = createPowerContextClient({ baseUrl: silent.url, timeoutMs: 100 })
    expect(
      (
        await failure(
          quick.update({ scope_id: 's', memory_ref: { artifact_id: 'm', revision: 1 } }),
        )
      ).code,
    ).toBe('timeout')
    await new Promise((r) => setTimeout(r, 300))
    expect(silent.hits).toHaveLength(1)
  })

  it('sends the token, the request id and JSON', async () => {
    const { url, hits } = await fake((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"status":"ok"}')
    })
    const pc = createPowerContextClient({ baseUrl: `${url}/`, token: 'tok' })
    expect(await pc.live({ requestId: 'trace:7' })).toEqual({ status: 'ok' })
    await pc.remember(entry)
    expect(hits[0]?.headers).toMatchObject({
      authorization: 'Bearer tok',
      'x-powercontext-request-id': 'trace:7',
    })
    expect(hits[1]).toMatchObject({ method: 'POST', url: '/v1/memory/remember' })
    expect(hits[1]?.headers['content-type']).toBe('application/json')
    expect(hits[1]?.headers['x-powercontext-request-id']).toBeUndefined()
  })

  it('answers without an envelope still become typed errors', async () => {
    const { url } = await fake((req, res) => {
      if (req.url === '/health/live') {
        res.writeHead(502, { 'content-type': 'text/html', 'x-powercontext-request-id': 'px-1' })
        return res.end('<html>bad gateway</html>')
      }
      if (req.url === '/v1/capabilities') {
        res.writeHead(401, { 'content-type': 'text/plain' })
        return res.end('no')
      }
      if (req.url === '/v1/memory/get') {
        // What fastify itself answers while the server is closing.
        res.writeHead(503, { 'content-type': 'application/json' })
        return res.end('{"error":"Service Unavailable","message":"Service Unavailable"}')
      }
      if (req.url === '/health/ready') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end('{not json')
      }
      res.writeHead(409, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          error: {
            code: 'brand_new_code',
            message: 'newer server',
            request_id: 'r9',
            details: null,
          },
        }),
      )
    })
    const pc = createPowerContextClient({ baseUrl: url })
    const proxy = await failure(pc.live())
    expect(proxy).toMatchObject({ code: 'internal_error', status: 502, requestId: 'px-1' })
    expect(proxy.message).toContain('bad gateway')
    expect(await failure(pc.capabilities())).toMatchObject({ code: 'unauthorized', status: 401 })
    expect(await failure(pc.ready())).toMatchObject({ code: 'internal_error', status: 200 })
    expect(await failure(pc.get({ scope_id: 's', memory_id: 'm' }))).toMatchObject({
      code: 'runtime_not_ready',
      status: 503,
      requestId: null,
    })
    const newer = await failure(pc.search({ scope_id: 's', query: 'q' }))
    expect(newer).toMatchObject({
      code: 'internal_error',
      status: 409,
      requestId: 'r9',
      message: 'newer server',
      details: { server_code: 'brand_new_code' },
    })
  })

  it("a 2xx other than the operation's declared success status is unexpected_status", async () => {
    const memory = { memory_ref: { artifact_id: 'm', revision: 1 } }
    const { url } = await fake((req, res) => {
      const answer = (status: number, body?: unknown) => {
        res.writeHead(status, {
          'content-type': 'application/json',
          'x-powercontext-request-id': 'w2',
        })
        res.end(body === undefined ? undefined : JSON.stringify(body))
      }
      // capture is declared 202, everything else here 200.
      if (req.url === '/v1/sources/content') return answer(200, { status: 'accepted' })
      if (req.url === '/v1/memory/remember') return answer(201, { results: [] })
      if (req.url === '/v1/memory/get') return answer(204)
      if (req.url === '/health/ready') return answer(202, { status: 'ready', checks: {} })
      if (req.url === '/health/live') return answer(200, { status: 'ok' })
      answer(206, { memory })
    })
    const pc = createPowerContextClient({ baseUrl: url })
    const capture = await failure(pc.captureContent({ scope_id: 's', content: 'x' }))
    expect(capture).toMatchObject({
      code: 'unexpected_status',
      status: 200,
      requestId: 'w2',
      details: { expected_status: 202 },
    })
    expect(capture.message).toMatch(
      /^captureContent: HTTP 200 from http:\/\/127\.0\.0\.1:\d+, the contract declares 202$/,
    )
    for (const [p, status] of [
      [() => pc.remember(entry), 201],
      [() => pc.get({ scope_id: 's', memory_id: 'm' }), 204],
      [() => pc.ready(), 202],
      [() => pc.update({ scope_id: 's', memory_ref: memory.memory_ref, text: 'y' }), 206],
    ] as const) {
      expect(await failure(p())).toMatchObject({
        code: 'unexpected_status',
        status,
        details: { expected_status: 200 },
      })
    }
    // The declared status still passes.
    expect(await pc.live()).toEqual({ status: 'ok' })
  })

  it("a caller's abort rejects with the signal's reason", async () => {
    const { url } = await fake(() => undefined)
    const pc = createPowerContextClient({ baseUrl: url })
    const controller = new AbortController()
    const reason = new Error('user cancelled')
    const pending = pc.live({ signal: controller.signal })
    setTimeout(() => controller.abort(reason), 50)
    await expect(pending).rejects.toBe(reason)
  })

  it('rejects a bad baseUrl or timeout at creation', () => {
    expect(() => createPowerContextClient({ baseUrl: 'localhost:8000' })).toThrow(TypeError)
    expect(() => createPowerContextClient({ baseUrl: 'ftp://x' })).toThrow(/http or https/)
    expect(() => createPowerContextClient({ baseUrl: 'http://x', timeoutMs: 0 })).toThrow(
      /timeoutMs/,
    )
  })
})
