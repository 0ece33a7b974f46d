/**
 * The stdio proxy's HTTP client (`JsonPoster`, node:http) against raw loopback servers: kept-alive
 * connections are reused, a redirect is an answer and never followed, a reused connection the
 * server had closed is retried once on a new one, a slow answer times out, and `close` ends the
 * calls in flight.
 */
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'

import { JsonPoster, PostFailed } from '../../src/mcp/json-post.js'

const HEADERS = { 'content-type': 'application/json' }
const servers: (Server | NetServer)[] = []

async function listen(server: Server | NetServer): Promise<URL> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return new URL(`http://127.0.0.1:${port}/mcp`)
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    if ('closeAllConnections' in s) s.closeAllConnections()
    await new Promise((resolve) => s.close(resolve))
  }
})

describe('JsonPoster', () => {
  it('posts JSON over one kept-alive connection and returns any status as an answer', async () => {
    const sockets = new Set<Socket>()
    const bodies: string[] = []
    const url = await listen(
      createHttpServer((req, res) => {
        sockets.add(req.socket)
        let body = ''
        req.on('data', (d: Buffer) => (body += d.toString()))
        req.on('end', () => {
          bodies.push(`${req.method} ${req.url} ${req.headers['content-type']} ${body}`)
          if (body === '"redirect"') res.writeHead(307, { location: 'http://127.0.0.1:1/' }).end()
          else res.writeHead(200).end(`{"echo":${body}}`)
        })
      }),
    )
    const poster = new JsonPoster(url, HEADERS)
    expect(await poster.post('1', 5000)).toEqual({ status: 200, text: '{"echo":1}' })
    expect(await poster.post('"é"', 5000)).toEqual({ status: 200, text: '{"echo":"é"}' })
    expect(await poster.post('"redirect"', 5000)).toEqual({ status: 307, text: '' })
    expect(bodies).toEqual([
      'POST /mcp application/json 1',
      'POST /mcp application/json "é"',
      'POST /mcp application/json "redirect"',
    ])
    expect(sockets.size).toBe(1)
    poster.close()
  })

  it('sends a request again on a new connection when a reused one was closed by the server', async () => {
    let connections = 0
    const answer = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok'
    const url = await listen(
      createNetServer((socket) => {
        const n = ++connections
        let requests = 0
        socket.on('data', (d: Buffer) => {
          if (!d.toString().includes('\r\n\r\n')) return
          requests++
          // The first connection answers once, then drops the next request unanswered.
          if (n === 1 && requests === 2) socket.destroy()
          else socket.write(answer)
        })
      }),
    )
    const poster = new JsonPoster(url, HEADERS)
    expect(await poster.post('{}', 5000)).toEqual({ status: 200, text: 'ok' })
    expect(await poster.post('{}', 5000)).toEqual({ status: 200, text: 'ok' })
    expect(connections).toBe(2)
    poster.close()
  })

  it('fails with PostFailed on a timeout, an unreachable server and after close', async () => {
    const url = await listen(createHttpServer(() => undefined)) // never answers
    const poster = new JsonPoster(url, HEADERS)
    await expect(poster.post('{}', 100)).rejects.toThrow(new PostFailed('timed out'))

    const pending = poster.post('{}', 5000)
    await new Promise((resolve) => setTimeout(resolve, 50))
    poster.close()
    await expect(pending).rejects.toThrow(new PostFailed('the proxy is closing'))
    await expect(poster.post('{}', 5000)).rejects.toThrow(new PostFailed('the proxy is closing'))

    const dead = await listen(createNetServer())
    servers.pop()!.close()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const refused = new JsonPoster(dead, HEADERS)
    await expect(refused.post('{}', 5000)).rejects.toThrow(/ECONNREFUSED/)
    await expect(refused.post('{}', 5000)).rejects.toBeInstanceOf(PostFailed)
    refused.close()
  })
})
