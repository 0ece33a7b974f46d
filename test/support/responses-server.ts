/**
 * A local OpenAI Responses API (`POST /v1/responses`, what Codex sends to a
 * `[model_providers.x]` with `wire_api = "responses"`): SSE `response.created`, one
 * `response.output_item.done` (an assistant message, or a function call) and `response.completed`.
 * Codex offers MCP tools as `{type: "namespace", name: "mcp__<server>", tools: […]}`, and a call
 * of one must carry that namespace: a scripted tool `mcp__<server>__<tool>` is sent as
 * `{name: "<tool>", namespace: "mcp__<server>"}`. Scripted per test (see {@link ScriptedModelServer}).
 */
import type { ServerResponse } from 'node:http'

import type { ModelReply } from './model-turns.js'
import { ScriptedModelServer, writeSse } from './model-turns.js'

let ids = 0

function item(reply: ModelReply): Record<string, unknown> {
  if ('text' in reply)
    return {
      type: 'message',
      id: `msg_${++ids}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    }
  const m = /^(mcp__[^_]+(?:_[^_]+)*?)__(.+)$/.exec(reply.tool)
  return {
    type: 'function_call',
    id: `fc_${++ids}`,
    call_id: `call_${ids}`,
    status: 'completed',
    name: m === null ? reply.tool : m[2],
    ...(m === null ? {} : { namespace: m[1] }),
    arguments: JSON.stringify(reply.input),
  }
}

function writeResponse(res: ServerResponse, reply: ModelReply): void {
  const id = `resp_${++ids}`
  const output = item(reply)
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  }
  writeSse(res, [
    ['response.created', { type: 'response.created', response: { id, status: 'in_progress' } }],
    [
      'response.output_item.done',
      { type: 'response.output_item.done', output_index: 0, item: output },
    ],
    [
      'response.completed',
      {
        type: 'response.completed',
        response: { id, status: 'completed', output: [output], usage },
      },
    ],
  ])
}

/** Starts the server on an ephemeral loopback port. */
export function startResponsesServer(): Promise<ScriptedModelServer> {
  return new ScriptedModelServer('/v1/responses', writeResponse).start()
}

/** The text of a Responses input item (a message's `input_text`/`output_text` parts joined). */
export function inputText(entry: { content?: unknown; output?: unknown }): string {
  const c = entry.content ?? entry.output
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) return ''
  return c.map((p: { text?: string }) => (typeof p.text === 'string' ? p.text : '')).join('\n')
}

/** The `developer`-role input of a request, as text: where Codex puts hook context. */
export const developerInput = (body: { input?: unknown } | undefined): string[] =>
  ((body?.input ?? []) as { role?: string; content?: unknown }[])
    .filter((i) => i.role === 'developer')
    .map(inputText)
