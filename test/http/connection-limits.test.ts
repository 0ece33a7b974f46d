/**
 * Slow request bodies are timed out and connections are limited, on a real
 * server on loopback. Before, 100 connections trickling a byte every 2 s stayed open past 100 s
 * and 300 of them starved the process of file descriptors.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { get } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { connectionLimits, DEFAULT_CONNECTION_LIMITS } from '../../src/http/connection-limits.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'

const REQUEST_TIMEOUT_MS = 1_500
const MAX_CONNECTIONS = 8
const PROBE_RESERVE = 2
const dataDir = mkdtempSync(join(tmpdir(), 'pc-limits-'))
let server: RunningServer
let port: number

beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    plugins: [],
    limits: {
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      headersTimeoutMs: 1_000,
      maxConnections: MAX_CONNECTIONS,
      probeReserve: PROBE_RESERVE,
      maxConnectionsPerClient: 0,
    },
  })
  port = Number(new URL(server.url).port)
})
afterAll(async () => {
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

/** A connection and what it has received until it closed. */
interface Client {
  readonly socket: Socket
  readonly closed: Promise<{ received: string; afterMs: number }>
}

function open(): Promise<Client> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => (received += d))
    const closed = new Promise<{ received: string; afterMs: number }>((done) =>
      socket.on('close', () => done({ received, afterMs: Date.now() - started })),
    )
    socket.once('error', () => undefined)
    socket.once('connect', () => resolve({ socket, closed }))
    socket.once('error', reject)
  })
}

/** Sends headers announcing a 1,000-byte body, then one byte every 200 ms (it would take 200 s). */
function trickle(c: Client): void {
  c.socket.write(
    'POST /v1/memory/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      'Content-Length: 1000\r\n\r\n{',
  )
  const timer = setInterval(() => {
    if (c.socket.writable) c.socket.write(' ')
  }, 200)
  void c.closed.then(() => clearInterval(timer))
}

/** `GET /health/live` on a connection of its own, closed afterwards (fetch would keep it). */
const live = () =>
  new Promise<number | undefined>((resolve, reject) => {
    get(`${server.url}/health/live`, { agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    }).on('error', reject)
  })

describe('connection limits', () => {
  it('closes a request whose body trickles in once the request timeout passes (408)', async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, open))
    clients.forEach(trickle)
    for (const { received, afterMs } of await Promise.all(clients.map((c) => c.closed))) {
      expect(received).toMatch(/^HTTP\/1\.1 408 /)
      expect(received).toContain('"code":"invalid_request"')
      // Closed after the timeout, long before the body could have finished (200 s).
      expect(afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100)
      expect(afterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 10_000)
    }
    expect(await live()).toBe(200)
  })

  it('closes a connection that never finishes its headers', async () => {
    const c = await open()
    c.socket.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    const { received } = await c.closed
    expect(received).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('keeps the last connections for health probes, refuses connections beyond the limit and stays live', async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS - PROBE_RESERVE }, open))
    try {
      held.forEach(trickle)
      // Let the server accept all of them before the reserve is reached.
      await new Promise((r) => setTimeout(r, 200))
      // In the reserve: a health probe is served, anything else is 503 and closed.
      expect(await live()).toBe(200)
      const other = await open()
      other.socket.write(
        'POST /v1/memory/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      )
      const answered = await other.closed
      expect(answered.received).toMatch(/^HTTP\/1\.1 503 /)
      expect(answered.received).toContain('"code":"runtime_not_ready"')
      const reserve = await Promise.all(Array.from({ length: PROBE_RESERVE }, open))
      held.push(...reserve)
      await new Promise((r) => setTimeout(r, 200))
      const extra = await open()
      const refused = await extra.closed
      expect(refused.received).toBe('')
      expect(refused.afterMs).toBeLessThan(REQUEST_TIMEOUT_MS)
      expect(held.filter((c) => c.socket.destroyed)).toHaveLength(0)
    } finally {
      for (const c of held) c.socket.destroy()
    }
    await Promise.all(held.map((c) => c.closed))
    expect(await live()).toBe(200)
  })

  it('has documented defaults and refuses inconsistent ones', () => {
    expect(connectionLimits()).toEqual(DEFAULT_CONNECTION_LIMITS)
    expect(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs).toBeLessThan(78_000)
    expect(() => connectionLimits({ headersTimeoutMs: 40_000 })).toThrow(
      /headers timeout \(40000 ms\) must not exceed the request timeout \(30000 ms\)/,
    )
    expect(() => connectionLimits({ maxConnections: -1 })).toThrow(/whole number/)
    expect(() => connectionLimits({ maxConnections: 8, probeReserve: 8 })).toThrow(/probe reserve/)
  })
})
