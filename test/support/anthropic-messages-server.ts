/**
 * A loopback Anthropic Messages server for the real `claude` CLI (`ANTHROPIC_BASE_URL`): it
 * answers `HEAD /` and `POST /v1/messages` with the streamed (SSE) reply Claude Code expects. A
 * request that offers the `StructuredOutput` tool (what `claude -p --json-schema` does) is answered
 * with a call of that tool carrying the scripted JSON; the follow-up request (the tool's result) is
 * answered with a short text and `end_turn`. Requests are recorded for assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

import { LoopbackListener } from './loopback-listener.js'

/** One Messages request as the server received it. */
export interface MessagesRequest {
  readonly body: {
    readonly model: string
    readonly system?: unknown
    readonly messages: readonly { role: string; content: unknown }[]
    readonly tools?: readonly { name: string; input_schema?: unknown }[]
  }
  readonly headers: IncomingMessage['headers']
  /** The tool names offered to the model. */
  readonly tools: readonly string[]
  /** The text of every user message, joined. */
  readonly userText: string
  /** The system prompt's text. */
  readonly systemText: string
  /** True when this request carries a tool result (the turn after a tool call). */
  readonly toolResult: boolean
}

/** How the server answers a structured-output request. */
export type MessagesStep =
  | { readonly json: unknown; readonly delayMs?: number; readonly usage?: Usage }
  | { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> }
  | { readonly text: string }

interface Usage {
  readonly input_tokens: number
  readonly output_tokens: number
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : ''))
    .join('\n')
}

export class AnthropicMessagesServer extends LoopbackListener {
  protected readonly server: Server
  readonly requests: MessagesRequest[] = []
  /** Answers each structured-output request (a request offering `StructuredOutput`). */
  responder: (request: MessagesRequest) => MessagesStep = () => ({ status: 500 })

  constructor() {
    super()
    this.server = createServer((req, res) => void this.#handle(req, res))
  }

  /** Requests that asked for the structured answer (not the follow-up turns). */
  get structuredRequests(): MessagesRequest[] {
    return this.requests.filter((r) => r.tools.includes('StructuredOutput') && !r.toolResult)
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = ''
    for await (const chunk of req) raw += (chunk as Buffer).toString()
    if (req.method === 'HEAD' || req.method === 'GET') {
      res.writeHead(200).end()
      return
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      res.writeHead(404).end()
      return
    }
    const body = JSON.parse(raw) as MessagesRequest['body']
    if (req.url.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ input_tokens: raw.length >> 2 }))
      return
    }
    const last = body.messages.at(-1)
    const toolResult =
      Array.isArray(last?.content) &&
      (last.content as { type?: string }[]).some((b) => b.type === 'tool_result')
    const request: MessagesRequest = {
      body,
      headers: req.headers,
      tools: (body.tools ?? []).map((t) => t.name),
      userText: body.messages
        .filter((m) => m.role === 'user')
        .map((m) => textOf(m.content))
        .join('\n'),
      systemText: textOf(body.system),
      toolResult,
    }
    this.requests.push(request)
    if (!request.tools.includes('StructuredOutput')) {
      // Claude Code's own side requests (titles, topic checks): a short text.
      this.#stream(res, body.model, [{ type: 'text', text: 'ok' }], 'end_turn', usageOf(raw, 'ok'))
      return
    }
    if (toolResult) {
      this.#stream(res, body.model, [{ type: 'text', text: 'Done.' }], 'end_turn', usageOf(raw, ''))
      return
    }
    const step = this.responder(request)
    if ('status' in step) {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers })
      res.end(
        JSON.stringify(
          step.body ?? { type: 'error', error: { type: 'api_error', message: 'scripted failure' } },
        ),
      )
      return
    }
    if ('delayMs' in step && step.delayMs !== undefined)
      await new Promise((r) => setTimeout(r, step.delayMs))
    if (res.destroyed) return
    if ('text' in step) {
      this.#stream(
        res,
        body.model,
        [{ type: 'text', text: step.text }],
        'end_turn',
        usageOf(raw, step.text),
      )
      return
    }
    const input = JSON.stringify(step.json)
    this.#stream(
      res,
      body.model,
      [{ type: 'tool_use', id: `toolu_${this.requests.length}`, name: 'StructuredOutput', input }],
      'tool_use',
      step.usage ?? usageOf(raw, input),
    )
  }

  #stream(
    res: ServerResponse,
    model: string,
    blocks: (
      { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: string }
    )[],
    stopReason: string,
    usage: Usage,
  ): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const send = (event: string, data: unknown): void => {
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    }
    send('message_start', {
      type: 'message_start',
      message: {
        id: `msg_${this.requests.length}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
      },
    })
    blocks.forEach((b, index) => {
      if (b.type === 'text') {
        send('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        })
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: b.text },
        })
      } else {
        send('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        })
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: b.input },
        })
      }
      send('content_block_stop', { type: 'content_block_stop', index })
    })
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    })
    send('message_stop', { type: 'message_stop' })
    res.end()
  }
}

/** Deterministic token counts: a quarter of the request bytes in, of the answer out. */
function usageOf(request: string, answer: string): Usage {
  return {
    input_tokens: Math.ceil(request.length / 4),
    output_tokens: Math.max(1, Math.ceil(answer.length / 4)),
  }
}
