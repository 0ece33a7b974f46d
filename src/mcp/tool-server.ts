import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'

import type { ContractValidator } from '../wire/contract-validator.js'
import type { RuntimeSlot } from '../wire/surface-call.js'
import { MCP_SERVER_INFO } from './mcp-identity.js'
import { MCP_INSTRUCTIONS } from './mcp-instructions.js'
import { callTool, type ToolCallContext } from './tool-calls.js'
import { MCP_TOOLS } from './tool-definitions.js'

/** What a tool call takes from the transport that carried it. */
export type RequestScope = Pick<ToolCallContext, 'log' | 'requestId' | 'scopeId'>

/** The `tools/list` answer: the allow-list never changes while the process runs. */
const LISTED = Object.freeze({ tools: MCP_TOOLS.map((b) => b.tool) })

/** What the tool server of a surface is built from. */
export interface ToolServerOptions {
  readonly slot: RuntimeSlot
  readonly validator: ContractValidator
  /** The log and request id of a call, by the id the server saw; undefined for an unknown id. */
  readonly scopeOf: (id: RequestId) => RequestScope | undefined
}

/**
 * The MCP server every transport serves: the allow-listed tools and the server instructions,
 * built with the low-level `Server` so the contract's JSON schemas are listed as they are (no zod
 * duplicates). Not connected: the caller connects its transport.
 */
export function createToolServer(options: ToolServerOptions): Server {
  const { slot, validator, scopeOf } = options
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: MCP_INSTRUCTIONS,
  })
  server.setRequestHandler(ListToolsRequestSchema, () => LISTED)
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const scope = scopeOf(extra.requestId)
    if (scope === undefined) throw new McpError(ErrorCode.InternalError, 'no request context')
    return callTool(request.params.name, request.params.arguments, { slot, validator, ...scope })
  })
  return server
}
