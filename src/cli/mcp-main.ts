import type { MemoryRuntime } from '../runtime/memory-runtime.js'
import { type CliIo, EXIT_OK, EXIT_USAGE } from './cli-output.js'

/** The flags of `powercontext mcp`; the environment fills in what they leave out. */
export interface McpFlags {
  readonly serverUrl?: string | undefined
  readonly token?: string | undefined
  /** The scope of tool calls that name none (`--scope`); none when undefined. */
  readonly scope?: string | undefined
  /**
   * Serve this database in-process instead of proxying (`--data-dir`, `--database`): opens it
   * and resolves with the runtime. Given by the full command line only, never by `quickMcpFlags`.
   */
  readonly embedded?: (() => Promise<MemoryRuntime>) | undefined
}

const env = (name: string): string | undefined => {
  const v = process.env[`POWERCONTEXT_CLIENT_${name}`]
  return v === undefined || v === '' ? undefined : v
}

/** True for an absolute http(s) URL, the only server URLs `mcp` takes. */
export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

/** A scope id as the contract has it: 1–128 printable ASCII characters, no space. */
const SCOPE_ID = /^[\x21-\x7E]{1,128}$/

/** Until stdin ends or SIGINT/SIGTERM (which end it). */
async function untilStdinEnds(serve: () => Promise<void>): Promise<void> {
  const stop = (): void => {
    process.stdin.destroy()
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    await serve()
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
}

/**
 * Runs `powercontext mcp` with its flags (already checked) and returns the exit code: the stdio
 * proxy, or the embedded stdio server on a local database, until stdin ends or SIGINT/SIGTERM
 * (0); a usage error (2) without a usable server URL or database, or with a malformed `--scope`.
 */
export async function runMcpCommand(flags: McpFlags, io: CliIo): Promise<number> {
  const log = (line: string): void => io.err(line)
  const scopeId = flags.scope
  if (scopeId !== undefined && !SCOPE_ID.test(scopeId)) {
    io.err('error: --scope must be a scope id: 1–128 printable ASCII characters, no spaces')
    return EXIT_USAGE
  }
  if (flags.embedded !== undefined) {
    if (flags.serverUrl !== undefined) {
      io.err('error: use either --server-url (proxy) or --data-dir/--database (embedded), not both')
      return EXIT_USAGE
    }
    const runtime = await flags.embedded()
    const { runStdioServer } = await import('../mcp/stdio-server.js')
    await untilStdinEnds(() => runStdioServer({ runtime, log, scopeId }))
    return EXIT_OK
  }
  let serverUrl = flags.serverUrl
  const fromEnv = env('SERVER_URL')
  if (serverUrl === undefined && fromEnv !== undefined) {
    if (!isHttpUrl(fromEnv)) {
      io.err('error: POWERCONTEXT_CLIENT_SERVER_URL must be an http(s) URL')
      return EXIT_USAGE
    }
    serverUrl = fromEnv
  }
  if (serverUrl === undefined) {
    io.err(
      'error: pass --server-url (or set POWERCONTEXT_CLIENT_SERVER_URL) to proxy a server, or --data-dir/--database to serve a database in this process',
    )
    return EXIT_USAGE
  }
  const { runStdioProxy } = await import('../mcp/stdio-proxy.js')
  const token = flags.token ?? env('API_TOKEN')
  await untilStdinEnds(() => runStdioProxy({ serverUrl, token, log, scopeId }))
  return EXIT_OK
}

const FLAGS = { '--server-url': 'serverUrl', '--token': 'token', '--scope': 'scope' } as const

/**
 * The flags of `powercontext mcp …` (`args` after `mcp`) when they are only `--server-url URL`,
 * `--token TOKEN` and `--scope ID` (or `--flag=value`) with an http(s) URL; otherwise undefined, and the full
 * command line parses them (help, usage errors, global options).
 */
export function quickMcpFlags(args: readonly string[]): McpFlags | undefined {
  const flags: { serverUrl?: string; token?: string; scope?: string } = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const eq = arg.indexOf('=')
    const name = eq < 0 ? arg : arg.slice(0, eq)
    const key = Object.hasOwn(FLAGS, name) ? FLAGS[name as keyof typeof FLAGS] : undefined
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1)
    if (key === undefined || value === undefined || value.startsWith('-')) return undefined
    flags[key] = value
  }
  if (flags.serverUrl !== undefined && !isHttpUrl(flags.serverUrl)) return undefined
  return flags
}
