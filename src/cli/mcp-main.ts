import { type CliIo, EXIT_OK, EXIT_USAGE } from './cli-output.js'

/** The flags of `powercontext mcp`; the environment fills in what they leave out. */
export interface McpFlags {
  readonly serverUrl?: string | undefined
  readonly token?: string | undefined
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

/**
 * Runs `powercontext mcp` with its flags (already checked) and returns the exit code: the stdio
 * proxy until stdin ends or SIGINT/SIGTERM (0), or a usage error (2) without a usable server URL.
 */
export async function runMcpCommand(flags: McpFlags, io: CliIo): Promise<number> {
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
    io.err('error: pass --server-url or set POWERCONTEXT_CLIENT_SERVER_URL')
    return EXIT_USAGE
  }
  const stop = (): void => {
    process.stdin.destroy()
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    const { runStdioProxy } = await import('../mcp/stdio-proxy.js')
    await runStdioProxy({
      serverUrl,
      token: flags.token ?? env('API_TOKEN'),
      log: (line) => io.err(line),
    })
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
  return EXIT_OK
}

const FLAGS = { '--server-url': 'serverUrl', '--token': 'token' } as const

/**
 * The flags of `powercontext mcp …` (`args` after `mcp`) when they are only `--server-url URL`
 * and `--token TOKEN` (or `--flag=value`) with an http(s) URL; otherwise undefined, and the full
 * command line parses them (help, usage errors, global options).
 */
export function quickMcpFlags(args: readonly string[]): McpFlags | undefined {
  const flags: { serverUrl?: string; token?: string } = {}
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
