/**
 * A local Anthropic Messages API (`POST /v1/messages`, what Claude Code sends with
 * `ANTHROPIC_BASE_URL`): streaming SSE — `message_start`, per content block
 * `content_block_start` / `content_block_delta` (`text_delta` or `input_json_delta`) /
 * `content_block_stop`, then `message_delta` with the stop reason and `message_stop` — or one
 * JSON message when the request does not stream. `HEAD /` (Claude Code's reachability probe)
 * gets 200. Scripted per test (see {@link ScriptedModelServer}).
 */
import type { ServerResponse } from 'node:http'

import type { ModelReply, ModelRequest } from './model-turns.js'
import { ScriptedModelServer, writeSse } from './model-turns.js'

let ids = 0

function content(reply: ModelReply): Record<string, unknown> {
  return 'text' in reply
    ? { type: 'text', text: reply.text }
    : { type: 'tool_use', id: `toolu_${++ids}`, name: reply.tool, input: reply.input }
}

function writeMessage(res: ServerResponse, reply: ModelReply, request: ModelRequest): void {
  const block = content(reply)
  const stop = 'text' in reply ? 'end_turn' : 'tool_use'
  const message = {
    id: `msg_${++ids}`,
    type: 'message',
    role: 'assistant',
    model: String(request.body['model'] ?? 'scripted'),
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  }
  if (request.body['stream'] !== true) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ...message, content: [block], stop_reason: stop }))
    return
  }
  const delta =
    'text' in reply
      ? { type: 'text_delta', text: reply.text }
      : { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) }
  const start = 'text' in reply ? { ...block, text: '' } : { ...block, input: {} }
  writeSse(res, [
    [
      'message_start',
      { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: start }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ])
}

/** Starts the server on an ephemeral loopback port. */
export function startAnthropicServer(): Promise<ScriptedModelServer> {
  return new ScriptedModelServer('/v1/messages', writeMessage, (req, res) => {
    if (req.method !== 'HEAD' && req.method !== 'GET') return false
    res.writeHead(200).end()
    return true
  }).start()
}

/** A message's text, whatever its content form (a string or blocks). */
export function messageText(message: { content?: unknown }): string {
  const c = message.content
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) return ''
  return c
    .map((b: { type?: string; text?: string; content?: unknown }) =>
      typeof b.text === 'string' ? b.text : b.type === 'tool_result' ? messageText(b) : '',
    )
    .join('\n')
}

/** The `role: "system"` messages of a request, as text: where Claude Code puts hook context. */
export const systemMessages = (body: { messages?: unknown } | undefined): string[] =>
  ((body?.messages ?? []) as { role: string; content?: unknown }[])
    .filter((m) => m.role === 'system')
    .map(messageText)
