/*
 * One peer cannot lock everyone out, on a real server on loopback with clients on distinct
 * loopback addresses (127.0.0.2, .3, …): one address holding slow connections gets at most its
 * share, the others and the health probes are still served, and an address that keeps presenting
 * a wrong bearer token is refused (429, `Retry-After`) while others are not.
 */
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'

import { describe, expect, it } from 'vitest'

import { useTempServer } from '../support/temp-server.js'

const TOKEN = 'client-limits-token'
const PER_CLIENT = 5
const t = useTempServer('pc-client-limits-', {
  plugins: [],
  authToken: TOKEN,
  limits: {
    maxConnections: 20,
    probeReserve: 3,
    maxConnectionsPerClient: PER_CLIENT,
    maxFailedAuthPerMinute: 3,
  },
})
const port = (): number => Number(new URL(t.server.url).port)

/** A connection from `from` that sends headers and then a body one byte at a time. */
function slow(from: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: port(), host: '127.0.0.1', localAddress: from })
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => (received += d))
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)))
    socket.once('error', () => undefined)
    socket.once('connect', () => {
      socket.write(
        `POST /v1/memory/search HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      )
      resolve({ socket, closed })
    })
    socket.once('error', reject)
  })
}

/** One request from `from` on a connection of its own. */
function ask(
  from: string,
  path: string,
  token?: string,
): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: port(),
        path,
        localAddress: from,
        agent: false,
        method: path.startsWith('/v1') ? 'POST' : 'GET',
        headers: {
          'content-type': 'application/json',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (body += d))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            body,
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(path.startsWith('/v1') ? JSON.stringify({ scope_id: 'limits' }) : undefined)
  })
}

describe('limits per client address', () => {
  it('one address with many slow connections gets its share; others and probes are served', async () => {
    const attacker = await Promise.all(Array.from({ length: 30 }, () => slow('127.0.0.2')))
    try {
      await new Promise((r) => setTimeout(r, 300))
      const open = attacker.filter((c) => !c.socket.destroyed)
      expect(open).toHaveLength(PER_CLIENT)
      expect((await ask('127.0.0.3', '/v1/memory/list', TOKEN)).status).toBe(200)
      expect((await ask('127.0.0.3', '/health/live')).status).toBe(200)
      // Fill every slot but the reserve from other addresses: probes still pass, work does not.
      const others = await Promise.all(
        ['127.0.0.4', '127.0.0.5'].flatMap((a) =>
          Array.from({ length: PER_CLIENT }, () => slow(a)),
        ),
      )
      attacker.push(...others, await slow('127.0.0.6'), await slow('127.0.0.6'))
      await new Promise((r) => setTimeout(r, 300))
      expect(attacker.filter((c) => !c.socket.destroyed)).toHaveLength(17)
      expect((await ask('127.0.0.7', '/health/ready')).status).toBe(200)
      const refused = await ask('127.0.0.7', '/v1/memory/list', TOKEN)
      expect(refused.status).toBe(503)
      expect(refused.body).toContain('"code":"runtime_not_ready"')
    } finally {
      for (const c of attacker) c.socket.destroy()
      await Promise.all(attacker.map((c) => c.closed))
      // The server sees the closes a moment later.
      await new Promise((r) => setTimeout(r, 300))
    }
  })

  it('refuses an address after its failed token attempts (429, Retry-After), not the others', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await ask('127.0.0.8', '/v1/memory/list', `wrong-${i}`)).status).toBe(401)
    }
    const locked = await ask('127.0.0.8', '/v1/memory/list', TOKEN)
    expect(locked.status).toBe(429)
    expect(locked.body).toContain('"code":"unauthorized"')
    expect(Number(locked.retryAfter)).toBeGreaterThan(0)
    expect(Number(locked.retryAfter)).toBeLessThanOrEqual(60)
    expect((await ask('127.0.0.9', '/v1/memory/list', TOKEN)).status).toBe(200)
    expect((await ask('127.0.0.8', '/health/live')).status).toBe(200)
  })
})
