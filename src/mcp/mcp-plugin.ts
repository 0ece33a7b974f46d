import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance, FastifyReply } from 'fastify'

import { ContractValidator } from '../wire/contract-validator.js'
import type { RuntimeSlot } from '../wire/surface-call.js'
import { ExchangeTransport } from './exchange-transport.js'
import { MCP_PATH, MCP_SERVER_INFO, SCOPE_HEADER } from './mcp-identity.js'
import { MCP_TOOLS } from './tool-definitions.js'
import { createToolServer, type RequestScope } from './tool-server.js'

export { MCP_PATH, MCP_SERVER_INFO }

/** The most messages one POST may carry (the SDK's Streamable HTTP transport's limit). */
const MAX_BATCH = 100

/**
 * The MCP server of one app (`createToolServer`), connected to an exchange transport that each
 * `/mcp` POST goes through: built once, not per request.
 */
export function createMcpServer(
  slot: RuntimeSlot,
  validator: ContractValidator,
): { readonly server: Server; readonly transport: ExchangeTransport<RequestScope> } {
  const transport = new ExchangeTransport<RequestScope>()
  const server = createToolServer({ slot, validator, scopeOf: (id) => transport.contextOf(id) })
  // The transport's start() does nothing, so the server is connected once this returns.
  void server.connect(transport)
  return { server, transport }
}

const rpcError = (reply: FastifyReply, status: number, code: number, message: string) => {
  reply.log = reply.log.child({ rpc_error_code: code })
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null })
}

const TOOL_NAMES: ReadonlySet<string> = new Set(MCP_TOOLS.map((b) => b.tool.name))
/** A method name as a client may send it (anything else is logged as `other`). */
const METHOD_NAME = /^[A-Za-z0-9_./-]{1,64}$/

/**
 * What the request log line names for a POST (`mcp_tool`): each call's tool, or the JSON-RPC
 * method when it is not `tools/call`, comma-separated for a batch. Names only: a tool outside the
 * allow-list is `unknown_tool`, and no argument is ever logged.
 */
function mcpLogName(messages: readonly JSONRPCMessage[]): string | undefined {
  const names = new Set<string>()
  for (const m of messages) {
    if (!('method' in m)) continue
    if (m.method !== 'tools/call') names.add(METHOD_NAME.test(m.method) ? m.method : 'other')
    else {
      const name = (m.params as { name?: unknown } | undefined)?.name
      names.add(typeof name === 'string' && TOOL_NAMES.has(name) ? name : 'unknown_tool')
    }
  }
  return names.size === 0 ? undefined : [...names].join(',')
}

/** The JSON-RPC messages of a POST body, or why it is not one (the SDK transport's rules). */
function messagesOf(body: unknown): JSONRPCMessage[] | { code: number; message: string } {
  const raw = Array.isArray(body) ? body : [body]
  if (raw.length > MAX_BATCH)
    return { code: -32600, message: `Invalid Request: Batch must not exceed ${MAX_BATCH} messages` }
  const messages: JSONRPCMessage[] = []
  for (const m of raw) {
    const parsed = JSONRPCMessageSchema.safeParse(m)
    if (!parsed.success) return { code: -32700, message: 'Parse error: Invalid JSON-RPC message' }
    messages.push(parsed.data)
  }
  if (messages.length > 1 && messages.some(isInitializeRequest))
    return { code: -32600, message: 'Invalid Request: Only one initialization request is allowed' }
  return messages
}

/**
 * Mounts MCP Streamable HTTP at `/mcp` (pass it in `buildApp`'s `plugins`; `startServer` does by
 * default). Stateless: no session id, JSON responses (a single reply, or an array for a batch),
 * 202 for a POST without requests; every other method answers 405. One SDK server serves every POST
 * through an `ExchangeTransport`, so a request costs no server construction. The app's
 * `onRequest` hook applies, so `/mcp` needs the same bearer token as the API and every response
 * carries the request id. Tool failures are tool results with `isError`. The `X-PowerContext-Scope`
 * header names the scope of the calls that name none (`setup` writes the project's).
 */
export function mcpPlugin(app: FastifyInstance, slot: RuntimeSlot): void {
  const validator = new ContractValidator()
  void validator.warmUp()
  const { server, transport } = createMcpServer(slot, validator)
  app.addHook('onClose', async () => server.close())

  app.post(MCP_PATH, async (req, reply) => {
    const accept = req.headers.accept ?? ''
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      return rpcError(
        reply,
        406,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      )
    const version = req.headers['mcp-protocol-version']
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
      return rpcError(
        reply,
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      )
    const messages = messagesOf(req.body)
    if (!Array.isArray(messages)) return rpcError(reply, 400, messages.code, messages.message)
    const logName = mcpLogName(messages)
    // The same line as every request's (http/request-log.ts); `/mcp` adds the tool it ran.
    if (logName !== undefined) reply.log = reply.log.child({ mcp_tool: logName })
    const header = req.headers[SCOPE_HEADER.toLowerCase()]
    const scopeId = typeof header === 'string' ? header : undefined
    const replies = await transport.exchange(messages, { log: req.log, requestId: req.id, scopeId })
    if (replies.length === 0) return reply.code(202).send()
    return reply.send(Array.isArray(req.body) ? replies : replies[0])
  })
  const methodNotAllowed = (_req: unknown, reply: FastifyReply) =>
    rpcError(reply.header('Allow', 'POST'), 405, -32000, 'Method not allowed.')
  // Every other method (GET and DELETE as the transport's rules say, also PUT, PATCH, …): 405.
  const others = app.supportedMethods.filter((m) => m !== 'POST' && m !== 'HEAD')
  app.route({ method: others, url: MCP_PATH, handler: methodNotAllowed })
}
