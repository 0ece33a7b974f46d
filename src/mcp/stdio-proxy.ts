import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'

// Types only: the forwarder loads neither the MCP SDK nor zod (the CLI's start-up budget, docs/development.md).
import type {
  CallToolRequest,
  CallToolResult,
  JSONRPCMessage,
  ListToolsRequest,
  ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js'

import type { ErrorCode } from '../core/errors.js'
import { toWireError } from '../wire/memory-wire.js'
import { JsonPoster } from './json-post.js'
import { MCP_PATH, MCP_SERVER_INFO, SCOPE_HEADER } from './mcp-identity.js'
import { MCP_INSTRUCTIONS } from './mcp-instructions.js'

/** Settings of `powercontext mcp`. */
export interface StdioProxyOptions {
  /** Server base URL (`http://127.0.0.1:8000`) or its `/mcp` endpoint. */
  readonly serverUrl: string
  /** Bearer token sent as `Authorization: Bearer <token>`; none when undefined. */
  readonly token?: string | undefined
  /**
   * The scope of the calls that name none, sent as the `X-PowerContext-Scope` header
   * (`powercontext mcp --scope`); none when undefined.
   */
  readonly scopeId?: string | undefined
  /** Diagnostics (stderr in the CLI; stdout carries the protocol). Default: none. */
  readonly log?: (line: string) => void
  /** Protocol streams; default the process's stdin and stdout. */
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/**
 * The protocol versions the proxy answers `initialize` with: the MCP SDK's
 * `SUPPORTED_PROTOCOL_VERSIONS`, newest first (a test keeps the two equal).
 */
export const PROXY_PROTOCOL_VERSIONS = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
] as const

/** How long one forwarded call may take (the SDK client's default request timeout). */
const CALL_TIMEOUT_MS = 60_000

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

/** A JSON-RPC error the remote answered with; passed to the host unchanged. */
export class RemoteRpcError extends Error {
  constructor(readonly error: { code: number; message: string; data?: unknown }) {
    super(error.message)
  }
}

/** Why the remote did not answer a call: the HTTP status it gave, or none (unreachable). */
export class RemoteUnavailable extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message)
  }
}

/**
 * The remote `/mcp` endpoint, one JSON-RPC request per POST (it is stateless: nothing to connect
 * or initialise, so the proxy may start before the server and recovers when it comes up).
 */
export class RemoteMcpTools {
  readonly #endpoint: URL
  readonly #poster: JsonPoster
  readonly #log: (line: string) => void
  #next = 0

  constructor(
    endpoint: URL,
    token: string | undefined,
    log: (line: string) => void = () => {},
    scopeId?: string,
  ) {
    this.#endpoint = endpoint
    this.#poster = new JsonPoster(endpoint, {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROXY_PROTOCOL_VERSIONS[1],
      ...(token === undefined || token === '' ? {} : { authorization: `Bearer ${token}` }),
      ...(scopeId === undefined ? {} : { [SCOPE_HEADER]: scopeId }),
    })
    this.#log = log
  }

  /** The remote tool list; the built-in allow-list (same contract) while the remote is down. */
  async listTools(params?: ListToolsRequest['params']): Promise<ListToolsResult> {
    try {
      return (await this.#call('tools/list', params)) as ListToolsResult
    } catch (err) {
      if (err instanceof RemoteRpcError) throw err
      this.#log(`powercontext mcp: ${this.#describe(err).message}; listing the built-in tools`)
      const { MCP_TOOLS } = await import('./tool-definitions.js')
      return { tools: MCP_TOOLS.map((b) => b.tool) }
    }
  }

  /**
   * The remote's own tool list, without the fallback (`doctor` checks the endpoint with it).
   * @throws RemoteRpcError (a JSON-RPC error), RemoteUnavailable (no answer, or an HTTP error:
   *   `status` 401 when the token was refused).
   */
  async remoteTools(): Promise<ListToolsResult> {
    return (await this.#call('tools/list', undefined)) as ListToolsResult
  }

  /**
   * Forwards one tool call. The remote's result (including its `isError` results) passes through;
   * an unreachable or rejecting remote becomes an `isError` result saying so. JSON-RPC errors the
   * remote answered with are rethrown (`RemoteRpcError`).
   */
  async callTool(params: CallToolRequest['params']): Promise<CallToolResult> {
    try {
      return (await this.#call('tools/call', params)) as CallToolResult
    } catch (err) {
      if (err instanceof RemoteRpcError) throw err
      const { code, message } = this.#describe(err)
      this.#log(`powercontext mcp: ${message}`)
      return errorResult(code, message)
    }
  }

  /** Abandons the calls still in flight (they answer as unreachable). */
  close(): void {
    this.#poster.close()
  }

  async #call(method: string, params: unknown): Promise<unknown> {
    const body = {
      jsonrpc: '2.0',
      id: ++this.#next,
      method,
      ...(params === undefined ? {} : { params }),
    }
    const res = await this.#poster.post(JSON.stringify(body), CALL_TIMEOUT_MS).catch((err) => {
      throw new RemoteUnavailable(err instanceof Error ? err.message : String(err))
    })
    if (res.status < 200 || res.status > 299)
      throw new RemoteUnavailable(`HTTP ${res.status}`, res.status)
    let reply: { result?: unknown; error?: { code: number; message: string } }
    try {
      reply = JSON.parse(res.text) as typeof reply
    } catch {
      throw new RemoteUnavailable('the answer is not JSON-RPC')
    }
    if (reply.error !== undefined) throw new RemoteRpcError(reply.error)
    if (reply.result === undefined) throw new RemoteUnavailable('the answer is not JSON-RPC')
    return reply.result
  }

  #describe(err: unknown): { code: ErrorCode; message: string } {
    const where = `the PowerContext server at ${this.#endpoint.href}`
    if (err instanceof RemoteUnavailable && err.status === 401)
      return {
        code: 'unauthorized',
        message: `${where} rejected the bearer token (HTTP 401); pass --token or set POWERCONTEXT_CLIENT_API_TOKEN`,
      }
    const reason = err instanceof Error ? err.message : String(err)
    // Not a contract code of its own: the memory service is not available to this host right now.
    return { code: 'runtime_not_ready', message: `cannot reach ${where}: ${reason}` }
  }
}

type Id = string | number
type Reply = { result: unknown } | { error: { code: number; message: string; data?: unknown } }

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** What `initialize` answers: the client's version when supported, else the newest. */
function initializeResult(params: unknown): unknown {
  const asked = isObject(params) ? params['protocolVersion'] : undefined
  const protocolVersion =
    PROXY_PROTOCOL_VERSIONS.find((v) => v === asked) ?? PROXY_PROTOCOL_VERSIONS[0]
  return {
    protocolVersion,
    capabilities: { tools: {} },
    serverInfo: MCP_SERVER_INFO,
    instructions: MCP_INSTRUCTIONS,
  }
}

/** The reply to one request: `initialize` and `ping` locally, the tools forwarded. */
async function answer(remote: RemoteMcpTools, method: string, params: unknown): Promise<Reply> {
  try {
    switch (method) {
      case 'initialize':
        return { result: initializeResult(params) }
      case 'ping':
        return { result: {} }
      case 'tools/list':
        return { result: await remote.listTools(params as ListToolsRequest['params']) }
      case 'tools/call':
        if (!isObject(params) || typeof params['name'] !== 'string')
          return { error: { code: -32602, message: 'Invalid params: tools/call needs a name' } }
        return { result: await remote.callTool(params as CallToolRequest['params']) }
      default:
        return { error: { code: -32601, message: 'Method not found' } }
    }
  } catch (err) {
    if (err instanceof RemoteRpcError) return { error: err.error }
    return { error: { code: -32603, message: err instanceof Error ? err.message : String(err) } }
  }
}

/**
 * Runs a stdio MCP server that forwards `tools/list` and `tools/call` to a remote server's `/mcp`
 * (for agent hosts that only speak stdio): newline-delimited JSON-RPC on stdin and stdout,
 * `initialize` and `ping` answered locally, notifications dropped (the remote is stateless).
 * A small forwarder on Node built-ins (`node:http`, no `fetch`), so it starts fast and stays
 * small. Resolves when stdin ends and the calls asked before have been answered; the proxy stays
 * up while the remote is unreachable (tool calls then return `isError` results).
 */
export async function runStdioProxy(options: StdioProxyOptions): Promise<void> {
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  const remote = new RemoteMcpTools(
    mcpEndpoint(options.serverUrl),
    options.token,
    options.log,
    options.scopeId,
  )
  const write = (message: JSONRPCMessage | Record<string, unknown>): void => {
    if (!stdout.writableEnded && !stdout.destroyed) stdout.write(`${JSON.stringify(message)}\n`)
  }
  const onStdoutError = (): void => {
    stdin.destroy()
  }
  stdout.on('error', onStdoutError)
  const reply = (id: Id, r: Reply): void => write({ jsonrpc: '2.0', id, ...r })
  const lines = createInterface({ input: stdin, crlfDelay: Infinity })
  const inFlight = new Set<Promise<void>>()
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue
      let message: unknown
      try {
        message = JSON.parse(line)
      } catch {
        write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
        continue
      }
      if (!isObject(message) || message['jsonrpc'] !== '2.0') {
        write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } })
        continue
      }
      const { id, method, params } = message
      // Notifications and responses: nothing to answer, nothing the stateless remote needs.
      if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) continue
      const done: Promise<void> = answer(remote, method, params).then((r) => {
        inFlight.delete(done)
        reply(id, r)
      })
      inFlight.add(done)
    }
    // stdin ended: answer what was asked (a one-shot pipe gets its replies), then stop.
    await Promise.all(inFlight)
  } finally {
    lines.close()
    stdout.off('error', onStdoutError)
    remote.close()
  }
}
