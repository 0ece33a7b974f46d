import { type Command, InvalidArgumentError } from 'commander'

import type { CliIo } from './cli-io.js'
import { isHttpUrl, runMcpCommand } from './mcp-main.js'

const parseUrl = (value: string): string => {
  if (isHttpUrl(value)) return value
  throw new InvalidArgumentError('must be an http(s) URL')
}

/**
 * Registers `mcp`: a stdio MCP server proxying the remote server's `/mcp` tools, for agent hosts
 * that only speak stdio. Stdout carries the protocol; diagnostics go to stderr. It resolves when
 * stdin ends or on SIGINT/SIGTERM. Without a server URL (flag or env) it is a usage error (exit 2).
 * `bin/powercontext.js` runs the plain `mcp --server-url … [--token …]` form without this parser
 * (`quickMcpFlags`), so the proxy starts without loading the rest of the CLI.
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
      setExit(await runMcpCommand(o, io))
    })
}
