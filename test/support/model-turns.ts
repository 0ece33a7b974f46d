/**
 * What a scripted model answers, shared by the local Anthropic and OpenAI servers the real agent
 * hosts talk to: a queue of replies, each plain text or one tool call; every request body kept.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One reply of the model: text (ends the turn) or a tool call (the host runs it, then asks again). */
export type ModelReply =
  { readonly text: string } | { readonly tool: string; readonly input: Record<string, unknown> }

/** One request as the server received it. */
export interface ModelRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly body: Record<string, unknown>
}

/** How a reply goes on the wire (per provider). */
export type ReplyWriter = (res: ServerResponse, reply: ModelReply, request: ModelRequest) => void

/** What a provider server answers on paths other than its one POST. */
export type OtherRoute = (req: IncomingMessage, res: ServerResponse) => boolean

/**
 * A loopback server that answers the provider's POST with the next scripted reply (`ok` when the
 * script is used up) and keeps every request; `turns` a test's script, `reset` between tests.
 */
export class ScriptedModelServer {
  readonly #server: Server
  readonly #script: ModelReply[] = []
  readonly requests: ModelRequest[] = []
  #url = ''

  constructor(
    private readonly path: string,
    private readonly write: ReplyWriter,
    private readonly other: OtherRoute = () => false,
  ) {
    this.#server = createServer((req, res) => void this.#handle(req, res))
    this.#server.keepAliveTimeout = 1
  }

  /** The base URL (`http://127.0.0.1:PORT`), once started. */
  get url(): string {
    return this.#url
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r))
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
    return this
  }

  /** Appends replies to the script. */
  turns(...replies: ModelReply[]): this {
    this.#script.push(...replies)
    return this
  }

  /** Forgets the script and the recorded requests. */
  reset(): void {
    this.#script.length = 0
    this.requests.length = 0
  }

  /** The bodies of the provider's POSTs so far. */
  bodies(): Record<string, unknown>[] {
    return this.requests.filter((r) => r.method === 'POST').map((r) => r.body)
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections()
    await new Promise<void>((r) => this.#server.close(() => r()))
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = ''
    for await (const chunk of req) raw += (chunk as Buffer).toString('utf8')
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'POST' && path === this.path) {
      const request: ModelRequest = {
        method: 'POST',
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(raw) as Record<string, unknown>,
      }
      this.requests.push(request)
      this.write(res, this.#script.shift() ?? { text: 'ok' }, request)
      return
    }
    this.requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: {},
    })
    if (!this.other(req, res)) res.writeHead(404).end()
  }
}

/** Writes a server-sent events stream: each `[event, data]` as one event. */
export function writeSse(
  res: ServerResponse,
  events: readonly (readonly [string, unknown])[],
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const [event, data] of events)
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  res.end()
}
