/**
 * Keeps an agent host's traffic on loopback and proves it: a local proxy that refuses every
 * request and records where it was going, named in the host's own proxy settings
 * (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, lower and upper case; `NO_PROXY` lets loopback go
 * direct). A host that tries any other address reaches this proxy instead of the network, and a
 * test asserts `attempts` is empty.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export class EgressGuard {
  readonly #server: Server
  /** `host:port` (CONNECT) or the absolute URL of each request the proxy refused. */
  readonly attempts: string[] = []
  #url = ''

  constructor() {
    this.#server = createServer((req, res) => {
      this.attempts.push(req.url ?? '')
      req.socket.on('error', () => undefined)
      req.resume()
      res.writeHead(403, { connection: 'close' }).end('egress refused by the test')
    })
    this.#server.on('connect', (req, socket: Socket) => {
      this.attempts.push(req.url ?? '')
      socket.on('error', () => undefined) // the host may reset it first
      socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n')
    })
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r))
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
    return this
  }

  /** The proxy variables for a host process. */
  env(): Record<string, string> {
    const proxy: Record<string, string> = {}
    for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY']) {
      proxy[name] = this.#url
      proxy[name.toLowerCase()] = this.#url
    }
    proxy['NO_PROXY'] = proxy['no_proxy'] = '127.0.0.1,localhost,::1'
    return proxy
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((r) => this.#server.close(() => r()))
  }
}
