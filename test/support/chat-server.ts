import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

import { LoopbackListener } from './loopback-listener.js'

/** One chat-completions request as the server received it. */
export interface ChatRequest {
  readonly model: string
  readonly system: string
  /** The user message, parsed as JSON (the runtime always sends JSON). */
  readonly user: Record<string, unknown>
  readonly schemaName: string
  readonly body: Record<string, unknown>
  readonly authorization: string | undefined
}

/** How the server answers one request. */
export type ChatStep =
  | { readonly json: unknown; readonly delayMs?: number }
  | { readonly content: string; readonly delayMs?: number }
  | { readonly status: number; readonly delayMs?: number }
  | ((request: ChatRequest) => ChatStep)

/**
 * A loopback OpenAI-compatible chat completions server (`POST /v1/chat/completions`, `GET
 * /v1/models`), scripted per test: each request takes the next step of the script (or asks the
 * responder when the script is empty). Requests are recorded for assertions.
 */
export class ChatServer extends LoopbackListener {
  protected readonly server: Server
  readonly #script: ChatStep[] = []
  readonly requests: ChatRequest[] = []
  /** Answers requests once the script is used up; default: HTTP 500. */
  responder: ((request: ChatRequest) => ChatStep) | undefined
  modelsStatus = 200

  constructor() {
    super()
    this.server = createServer((req, res) => void this.#handle(req, res))
  }

  /** Appends steps to the script. */
  script(...steps: ChatStep[]): this {
    this.#script.push(...steps)
    return this
  }

  /** Forgets the script, the responder and the recorded requests. */
  reset(): void {
    this.#script.length = 0
    this.requests.length = 0
    this.responder = undefined
    this.modelsStatus = 200
  }

  /** Requests of one kind: `memory_candidates` (propose) or `memory_decision` (decide). */
  calls(schemaName: string): ChatRequest[] {
    return this.requests.filter((r) => r.schemaName === schemaName)
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = ''
    for await (const chunk of req) raw += (chunk as Buffer).toString()
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(this.modelsStatus, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }))
      return
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end()
      return
    }
    const body = JSON.parse(raw) as {
      model: string
      messages: { role: string; content: string }[]
      response_format: { json_schema: { name: string } }
    }
    const request: ChatRequest = {
      model: body.model,
      system: body.messages.find((m) => m.role === 'system')?.content ?? '',
      user: JSON.parse(body.messages.find((m) => m.role === 'user')?.content ?? '{}') as Record<
        string,
        unknown
      >,
      schemaName: body.response_format.json_schema.name,
      body: body as unknown as Record<string, unknown>,
      authorization: req.headers.authorization,
    }
    this.requests.push(request)
    let step: ChatStep = this.#script.shift() ?? this.responder ?? { status: 500 }
    while (typeof step === 'function') step = step(request)
    if (step.delayMs !== undefined) await new Promise((r) => setTimeout(r, step.delayMs))
    if (res.destroyed) return
    if ('status' in step) {
      res.writeHead(step.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: 'scripted failure' } }))
      return
    }
    const content = 'json' in step ? JSON.stringify(step.json) : step.content
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        id: `chatcmpl-${this.requests.length}`,
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        // What a tokenizer would count, roughly: four characters a token.
        usage: {
          prompt_tokens: Math.ceil(raw.length / 4),
          completion_tokens: Math.ceil(content.length / 4),
        },
      }),
    )
  }
}

/** A propose answer. */
export const proposal = (
  ...candidates: {
    kind?: string
    text: string
    evidence: string[]
    observed_at?: string | null
  }[]
) => ({
  json: {
    candidates: candidates.map((c) => ({
      kind: c.kind ?? 'fact',
      text: c.text,
      evidence: c.evidence,
      observed_at: c.observed_at ?? null,
      reason: null,
    })),
  },
})

/** One decision of a decide answer. */
export interface DecisionAnswer {
  readonly action: 'create' | 'update' | 'merge' | 'noop'
  readonly targets?: string[]
  readonly text?: string | null
  readonly kind?: string | null
}

/** A candidate of a decide request, as the deciding call shows it. */
export interface DecideCandidate {
  readonly id: string
  readonly text: string
  readonly related: string[]
  readonly earlier_result: string | null
  readonly observed_at: string | null
}

/**
 * A decide answer computed per candidate: `{decisions: [...]}`, one per candidate of the request
 * (a request of the single-candidate form, `candidate`, gets one bare decision).
 */
export const decideEach =
  (decide: (candidate: DecideCandidate, request: ChatRequest) => DecisionAnswer) =>
  (request: ChatRequest): ChatStep => {
    const one = (c: DecideCandidate) => {
      const d = decide(c, request)
      return {
        candidate: c.id,
        action: d.action,
        targets: d.targets ?? [],
        kind: d.kind ?? null,
        text: d.text ?? null,
        reason: null,
      }
    }
    const many = request.user['candidates'] as DecideCandidate[] | undefined
    if (many !== undefined) return { json: { decisions: many.map(one) } }
    const { candidate: _c, ...single } = one({
      id: 'c1',
      related: [],
      earlier_result: null,
      ...(request.user['candidate'] as { text: string; observed_at: string | null }),
    })
    return { json: single }
  }

/** A decide answer: the same decision for every candidate of the request. */
export const decision = (
  action: DecisionAnswer['action'],
  options: Omit<DecisionAnswer, 'action'> = {},
) => decideEach(() => ({ action, ...options }))
