import { type Command, InvalidArgumentError } from 'commander'

import type { CliIo } from './cli-io.js'
import { CliUsageError, printError } from './cli-io.js'
import { localDatabase, openLocalRuntime } from './cli-runners.js'
import { addEmbeddingOptions, type EmbeddingFlags, embeddingSettings } from './embedding-options.js'
import { isHttpUrl, type McpFlags, runMcpCommand } from './mcp-main.js'

const parseUrl = (value: string): string => {
  if (isHttpUrl(value)) return value
  throw new InvalidArgumentError('must be an http(s) URL')
}

interface McpCommandFlags extends EmbeddingFlags {
  serverUrl?: string
  token?: string
  scope?: string
  dataDir?: string
  database?: string
  json?: boolean
}

/** How the embedded form opens its database; undefined for the proxy (neither flag given). */
function embeddedOpener(o: McpCommandFlags): McpFlags['embedded'] {
  if (o.dataDir === undefined && o.database === undefined) {
    const given = [o.embeddingUrl, o.embeddingModel, o.embeddingDimension, o.embeddingProfileId]
    if (given.some((v) => v !== undefined))
      throw new CliUsageError('the embedding options need --data-dir or --database (embedded form)')
    return undefined
  }
  const local = localDatabase(o)
  const embedding = embeddingSettings(o)
  // The proxy form never loads a database driver: the runtime is opened only here.
  return () => openLocalRuntime({ ...local, ...(embedding === undefined ? {} : { embedding }) })
}

/**
 * Registers `mcp`: a stdio MCP server for agent hosts that start one. With `--server-url` (or
 * `POWERCONTEXT_CLIENT_SERVER_URL`) it proxies the remote server's `/mcp` tools; with the global
 * `--data-dir` or `--database` it serves that database itself, in this process (embedded, no
 * server needed). Stdout carries the protocol; diagnostics go to stderr. It resolves when stdin
 * ends or on SIGINT/SIGTERM. Neither a URL nor a database is a usage error (exit 2).
 * `bin/powercontext.js` runs the plain `mcp --server-url … [--token …]` form without this parser
 * (`quickMcpFlags`), so the proxy starts without loading the rest of the CLI.
 */
export function registerMcpCommand(
  program: Command,
  io: CliIo,
  setExit: (code: number) => void,
): void {
  const mcp = program
    .command('mcp')
    .description(
      "serve MCP tools over stdio: the remote server's (--server-url) or a local database's (--data-dir, --database)",
    )
    .option(
      '--server-url <url>',
      'server base URL, e.g. http://127.0.0.1:8000 (env POWERCONTEXT_CLIENT_SERVER_URL)',
      parseUrl,
    )
    .option('--token <token>', 'bearer token (env POWERCONTEXT_CLIENT_API_TOKEN)')
    .option(
      '--scope <id>',
      'scope of the tool calls that name no scope_id (the project scope `setup` would write); default: none, such calls fail with invalid_request',
    )
    .addHelpText(
      'after',
      `
Examples:
  powercontext mcp --server-url http://127.0.0.1:8000   proxy a running server's /mcp
  powercontext mcp --server-url URL --scope git:github.com/acme/api
                                                        calls without scope_id use that scope
  powercontext mcp --data-dir DIR                       serve DIR's SQLite database, no server
  powercontext mcp --database URL                       serve that database, no server
The embedding options apply to the embedded form only (--data-dir, --database).`,
    )
  addEmbeddingOptions(mcp).action(async (_o: unknown, cmd: Command) => {
    // The program's global --server-url/--token/--data-dir/--database wherever they appear.
    const o = cmd.optsWithGlobals<McpCommandFlags>()
    try {
      const embedded = embeddedOpener(o)
      // Only a --scope given here: the CLI's default (the working directory's project scope,
      // filled in before every command with a --scope option) would differ from the fast path's.
      const scope = cmd.getOptionValueSource('scope') === 'cli' ? o.scope : undefined
      setExit(await runMcpCommand({ serverUrl: o.serverUrl, token: o.token, scope, embedded }, io))
    } catch (err) {
      setExit(printError(io, err, o.json === true))
    }
  })
}
