import { type Command, InvalidArgumentError } from 'commander'

import type { CliIo } from './cli-io.js'
import { EXIT_USAGE } from './cli-io.js'

const env = (name: string): string | undefined => {
  const v = process.env[`POWERCONTEXT_CLIENT_${name}`]
  return v === undefined || v === '' ? undefined : v
}

const parseUrl = (value: string): string => {
  try {
    const url = new URL(value)
    if (url.protocol === 'http:' || url.protocol === 'https:') return value
  } catch {
    // reported below
  }
  throw new InvalidArgumentError('must be an http(s) URL')
}

/**
 * Registers `mcp`: a stdio MCP server proxying the remote server's `/mcp` tools, for agent hosts
 * that only speak stdio. Stdout carries the protocol; diagnostics go to stderr. It resolves when
 * stdin ends or on SIGINT/SIGTERM. Without a server URL (flag or env) it is a usage error (exit 2).
 */
export function registerMcpCommand(
  program: Command,
  io: CliIo,
  setExit: (code: number) => void,
): void {
  program
    .command('mcp')
    .description("serve the remote server's MCP tools over stdio (for stdio-only agent hosts)")
    .option(
      '--server-url <url>',
      'server base URL, e.g. http://127.0.0.1:8000 (env POWERCONTEXT_CLIENT_SERVER_URL)',
      parseUrl,
    )
    .option('--token <token>', 'bearer token (env POWERCONTEXT_CLIENT_API_TOKEN)')
    .action(async (_o: unknown, cmd: Command) => {
      // The program's global --server-url/--token take these flags wherever they appear.
      const o = cmd.optsWithGlobals<{ serverUrl?: string; token?: string }>()
      let serverUrl = o.serverUrl
      const fromEnv = env('SERVER_URL')
      if (serverUrl === undefined && fromEnv !== undefined) {
        try {
          serverUrl = parseUrl(fromEnv)
        } catch {
          io.err('error: POWERCONTEXT_CLIENT_SERVER_URL must be an http(s) URL')
          setExit(EXIT_USAGE)
          return
        }
      }
      if (serverUrl === undefined) {
        io.err('error: pass --server-url or set POWERCONTEXT_CLIENT_SERVER_URL')
        setExit(EXIT_USAGE)
        return
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
          token: o.token ?? env('API_TOKEN'),
          log: (line) => io.err(line),
        })
      } finally {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
      }
    })
}
