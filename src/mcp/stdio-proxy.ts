import type { Readable, Writable } from 'node:stream'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  type ListToolsRequest,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'

import type { ErrorCode } from '../core/errors.js'
import { toWireError } from '../wire/memory-wire.js'
import { MCP_PATH, MCP_SERVER_INFO } from './mcp-identity.js'
import { MCP_TOOLS } from './tool-definitions.js'
import { MCP_INSTRUCTIONS } from './tool-descriptions.js'

/** Settings of `powercontext mcp`. */
export interface StdioProxyOptions {
  /** Server base URL (`http://127.0.0.1:8000`) or its `/mcp` endpoint. */
  readonly serverUrl: string
  /** Bearer token sent as `Authorization: Bearer <token>`; none when undefined. */
  readonly token?: string | undefined
  /** Diagnostics (stderr in the CLI; stdout carries the protocol). Default: none. */
  readonly log?: (line: string) => void
  /** Protocol streams; default the process's stdin and stdout. */
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/** The `/mcp` endpoint of a server URL (kept as is when it already ends in `/mcp`). */
export function mcpEndpoint(serverUrl: string): URL {
  const url = new URL(serverUrl)
  const path = url.pathname.replace(/\/+$/, '')
  if (!path.endsWith(MCP_PATH)) url.pathname = `${path}${MCP_PATH}`
  return url
}

const errorResult = (code: ErrorCode, message: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${code}: ${message}` }],
  structuredContent: toWireError({ code, message }, null),
})

/**
 * A lazily connected SDK `Client` for the remote `/mcp` endpoint. A connection failure is not
 * remembered: the next call connects again, so the proxy recovers when the server comes up.
 */
export class RemoteMcpTools {
  readonly #endpoint: URL
  readonly #token: string | undefined
  readonly #log: (line: string) => void
  #client: Promise<Client> | undefined

  constructor(endpoint: URL, token: string | undefined, log: (line: string) => void = () => {}) {
    this.#endpoint = endpoint
    this.#token = token === '' ? undefined : token
    this.#log = log
  }

  /** The remote tool list; the built-in allow-list (same contract) while the remote is down. */
  async listTools(params: ListToolsRequest['params']): Promise<ListToolsResult> {
    try {
      return await (await this.#connected()).listTools(params)
    } catch (err) {
      if (err instanceof McpError) throw err
      this.#log(`powercontext mcp: ${this.#describe(err).message}; listing the built-in tools`)
      return { tools: MCP_TOOLS.map((b) => b.tool) }
    }
  }

  /**
   * Forwards one tool call. The remote's result (including its `isError` results) passes through;
   * an unreachable or rejecting remote becomes an `isError` result saying so. JSON-RPC errors the
   * remote answered with are rethrown unchanged.
   */
  async callTool(params: CallToolRequest['params']): Promise<CallToolResult> {
    try {
      const client = await this.#connected()
      const args = params.arguments === undefined ? {} : { arguments: params.arguments }
      return (await client.callTool({ name: params.name, ...args })) as CallToolResult
    } catch (err) {
      if (err instanceof McpError) throw err
      const { code, message } = this.#describe(err)
      this.#log(`powercontext mcp: ${message}`)
      return errorResult(code, message)
    }
  }

  /** Closes the remote client, if connected. */
  async close(): Promise<void> {
    const client = this.#client
    this.#client = undefined
    await client?.then((c) => c.close()).catch(() => {})
  }

  #connected(): Promise<Client> {
    this.#client ??= this.#connect()
    return this.#client
  }

  async #connect(): Promise<Client> {
    const headers: Record<string, string> =
      this.#token === undefined ? {} : { Authorization: `Bearer ${this.#token}` }
    const client = new Client({ name: 'powercontext-mcp-proxy', version: MCP_SERVER_INFO.version })
    const transport = new StreamableHTTPClientTransport(this.#endpoint, {
      requestInit: { headers },
    })
    // A dropped connection is forgotten so the next call reconnects.
    client.onclose = () => {
      this.#client = undefined
    }
    try {
      await client.connect(transport)
      return client
    } catch (err) {
      this.#client = undefined
      await client.close().catch(() => {})
      throw err
    }
  }

  #describe(err: unknown): { code: ErrorCode; message: string } {
    const where = `the PowerContext server at ${this.#endpoint.href}`
    if (err instanceof StreamableHTTPError && err.code === 401)
      return {
        code: 'unauthorized',
        message: `${where} rejected the bearer token (HTTP 401); pass --token or set POWERCONTEXT_CLIENT_API_TOKEN`,
      }
    const reason = err instanceof Error ? err.message : String(err)
    // Not a contract code of its own: the memory service is not available to this host right now.
    return { code: 'runtime_not_ready', message: `cannot reach ${where}: ${reason}` }
  }
}

/**
 * Runs a stdio MCP server that proxies `tools/list` and `tools/call` to a remote server's `/mcp`
 * (for agent hosts that only speak stdio). Resolves when stdin ends or the transport closes; the
 * proxy stays up while the remote is unreachable (tool calls then return `isError` results).
 */
export async function runStdioProxy(options: StdioProxyOptions): Promise<void> {
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  const remote = new RemoteMcpTools(mcpEndpoint(options.serverUrl), options.token, options.log)
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: MCP_INSTRUCTIONS,
  })
  server.setRequestHandler(ListToolsRequestSchema, (req) => remote.listTools(req.params))
  server.setRequestHandler(CallToolRequestSchema, (req) => remote.callTool(req.params))
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve
  })
  const stop = (): void => {
    void server.close()
  }
  await server.connect(new StdioServerTransport(stdin, stdout))
  stdin.once('end', stop)
  stdin.once('close', stop)
  try {
    await closed
  } finally {
    stdin.off('end', stop)
    stdin.off('close', stop)
    await remote.close()
  }
}
