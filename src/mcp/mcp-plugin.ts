import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance, FastifyReply } from 'fastify'

import { ContractValidator } from '../wire/contract-validator.js'
import { REQUEST_ID_HEADER } from '../wire/request-id.js'
import type { RuntimeSlot } from '../wire/surface-call.js'
import { MCP_PATH, MCP_SERVER_INFO } from './mcp-identity.js'
import { callTool, type ToolCallContext } from './tool-calls.js'
import { MCP_TOOLS } from './tool-definitions.js'
import { MCP_INSTRUCTIONS } from './tool-descriptions.js'

export { MCP_PATH, MCP_SERVER_INFO }

/**
 * An MCP server exposing the allow-listed tools over one request context. Built with the low-level
 * `Server` so the contract's JSON schemas are listed as they are (no zod duplicates).
 */
export function createMcpServer(ctx: ToolCallContext): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: MCP_INSTRUCTIONS,
  })
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: MCP_TOOLS.map((b) => b.tool),
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(request.params.name, request.params.arguments, ctx),
  )
  return server
}

const methodNotAllowed = (reply: FastifyReply) =>
  reply
    .code(405)
    .header('Allow', 'POST')
    .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null })

/**
 * Mounts MCP Streamable HTTP at `/mcp` (pass it in `buildApp`'s `plugins`; `startServer` does by
 * default). Stateless: a fresh server and transport per POST, no session id, JSON responses;
 * GET and DELETE answer 405. The app's `onRequest` hook applies, so `/mcp` needs the same bearer
 * token as the API. Tool failures are tool results with `isError` (STYLE R11).
 */
export function mcpPlugin(app: FastifyInstance, slot: RuntimeSlot): void {
  const validator = new ContractValidator()

  app.post(MCP_PATH, async (req, reply) => {
    reply.hijack()
    const res = reply.raw
    // Hijacked replies skip fastify's headers; DESIGN §7 wants the request id on every response.
    res.setHeader(REQUEST_ID_HEADER, req.id)
    const server = createMcpServer({ slot, validator, log: req.log, requestId: req.id })
    // No `sessionIdGenerator` (the recipe's `undefined`, omitted for exactOptionalPropertyTypes):
    // stateless mode, no `Mcp-Session-Id`.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    try {
      await server.connect(transport)
      await transport.handleRequest(req.raw, res, req.body)
    } catch (err) {
      req.log.error({ err, request_id: req.id }, 'MCP request failed')
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32603, message: 'Internal server error' },
            id: null,
          }),
        )
      }
    }
  })
  app.get(MCP_PATH, async (_req, reply) => methodNotAllowed(reply))
  app.delete(MCP_PATH, async (_req, reply) => methodNotAllowed(reply))
}
