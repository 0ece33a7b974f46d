/**
 * A loopback OpenAI Responses server for the real `codex` CLI (`POST /v1/responses`, SSE): it
 * answers each request with one assistant message whose text is the scripted JSON (what `codex
 * exec --output-schema` asks the model for), then `response.completed` with token usage. Requests
 * are recorded for assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

import { LoopbackListener } from './loopback-listener.js'

/** One Responses request as the server received it. */
export interface ResponsesRequest {
  readonly body: {
    readonly model: string
    readonly instructions?: string
    readonly input: readonly { type?: string; role?: string; content?: unknown }[]
    readonly tools?: readonly { type: string; name?: string }[]
    readonly text?: { format?: { type?: string; name?: string; schema?: unknown } }
  }
  readonly headers: IncomingMessage['headers']
  /** The text of every user-role input message, joined. */
  readonly userText: string
  /** The JSON schema the request constrains the answer to, if any. */
  readonly schema: unknown
}

/** How the server answers one request. */
export type ResponsesStep =
  | { readonly json: unknown; readonly delayMs?: number }
  | { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> }

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((b: { text?: string }) => b.text ?? '').join('\n')
}

export class OpenAiResponsesServer extends LoopbackListener {
  protected readonly server: Server
  readonly requests: ResponsesRequest[] = []
  responder: (request: ResponsesRequest) => ResponsesStep = () => ({ status: 500 })

  constructor() {
    super()
    this.server = createServer((req, res) => void this.#handle(req, res))
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = ''
    for await (const chunk of req) raw += (chunk as Buffer).toString()
    if (req.method !== 'POST' || !req.url?.endsWith('/responses')) {
      res.writeHead(404).end()
      return
    }
    const body = JSON.parse(raw) as ResponsesRequest['body']
    const request: ResponsesRequest = {
      body,
      headers: req.headers,
      userText: body.input
        .filter((m) => m.role === 'user')
        .map((m) => textOf(m.content))
        .join('\n'),
      schema: body.text?.format?.schema,
    }
    this.requests.push(request)
    const step = this.responder(request)
    if ('status' in step) {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers })
      res.end(
        JSON.stringify(
          step.body ?? { error: { message: 'scripted failure', type: 'server_error' } },
        ),
      )
      return
    }
    if (step.delayMs !== undefined) await new Promise((r) => setTimeout(r, step.delayMs))
    if (res.destroyed) return
    const text = JSON.stringify(step.json)
    const id = `resp_${this.requests.length}`
    const item = {
      type: 'message',
      id: `msg_${this.requests.length}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const send = (data: Record<string, unknown>): void => {
      res.write(`event: ${String(data['type'])}\ndata: ${JSON.stringify(data)}\n\n`)
    }
    send({ type: 'response.created', response: { id, status: 'in_progress', output: [] } })
    send({ type: 'response.output_item.done', output_index: 0, item })
    send({
      type: 'response.completed',
      response: {
        id,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: Math.ceil(raw.length / 4),
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: Math.max(1, Math.ceil(text.length / 4)),
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: Math.ceil(raw.length / 4) + Math.max(1, Math.ceil(text.length / 4)),
        },
      },
    })
    res.end()
  }
}
