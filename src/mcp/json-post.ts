import http from 'node:http'

/** What the remote answered: its status and body (any status; the caller judges it). */
export interface PostAnswer {
  readonly status: number
  readonly text: string
}

/** Why no answer came: the connection failed, timed out, or the poster was closed. */
export class PostFailed extends Error {}

type RequestFn = typeof http.request

/**
 * POSTs JSON texts to one endpoint over kept-alive connections, with `node:http` (or
 * `node:https`, loaded for an https URL only) rather than `fetch`: a long-lived stdio proxy then
 * loads no undici and no WebAssembly parser, so it starts sooner, stays smaller and spends less
 * CPU per call (docs/benchmarks.md, MCP). Redirects are never followed (a 3xx is an answer like
 * any other). A request that fails with ECONNRESET on a reused connection (the server closed it
 * while idle) is sent once more on a new one.
 */
export class JsonPoster {
  readonly #url: URL
  readonly #headers: Readonly<Record<string, string>>
  readonly #open = new Set<http.ClientRequest>()
  #agent: http.Agent | undefined
  #request: Promise<RequestFn> | undefined
  #closed = false

  constructor(url: URL, headers: Readonly<Record<string, string>>) {
    this.#url = url
    this.#headers = headers
  }

  /** POSTs `body`; rejects with `PostFailed` when no answer comes within `timeoutMs`. */
  async post(body: string, timeoutMs: number): Promise<PostAnswer> {
    const request = await (this.#request ??= this.#load())
    const payload = Buffer.from(body, 'utf8')
    try {
      return await this.#send(request, payload, timeoutMs)
    } catch (err) {
      if (!(err instanceof Retry)) throw err
      return this.#send(request, payload, timeoutMs)
    }
  }

  /** Ends the requests in flight (they fail) and the kept-alive connections. */
  close(): void {
    this.#closed = true
    for (const req of this.#open) req.destroy(new PostFailed('the proxy is closing'))
    this.#agent?.destroy()
  }

  async #load(): Promise<RequestFn> {
    if (this.#url.protocol !== 'https:') {
      this.#agent = new http.Agent({ keepAlive: true })
      return http.request
    }
    const https = await import('node:https')
    this.#agent = new https.Agent({ keepAlive: true })
    return https.request
  }

  #send(request: RequestFn, payload: Buffer, timeoutMs: number): Promise<PostAnswer> {
    if (this.#closed) return Promise.reject(new PostFailed('the proxy is closing'))
    const headers = { ...this.#headers, 'content-length': String(payload.length) }
    return new Promise((resolve, reject) => {
      const req = request(this.#url, { method: 'POST', headers, agent: this.#agent })
      this.#open.add(req)
      const timer = setTimeout(() => req.destroy(new PostFailed('timed out')), timeoutMs)
      const settle = (): void => {
        clearTimeout(timer)
        this.#open.delete(req)
      }
      req.on('error', (err: Error & { code?: string }) => {
        settle()
        if (err.code === 'ECONNRESET' && req.reusedSocket) reject(new Retry())
        else reject(err instanceof PostFailed ? err : new PostFailed(err.message))
      })
      req.on('response', (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', (err) => {
          settle()
          reject(err instanceof PostFailed ? err : new PostFailed(err.message))
        })
        res.on('end', () => {
          settle()
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })
        })
      })
      req.end(payload)
    })
  }
}

/** A reused connection the server had closed: the request never reached it. */
class Retry extends Error {}
