import type { Command } from 'commander'

import { CliUsageError, parseServerUrl } from './cli-io.js'

/** Where the remote commands go, resolved from the global flags and the environment. */
export interface RemoteSettings {
  readonly serverUrl: string
  readonly token: string | undefined
  /** True when `--server-url` was given on the command line (not only in the environment). */
  readonly fromFlag: boolean
}

/** Global options the remote mode adds to the program. */
export interface RemoteOptions {
  readonly serverUrl?: string
  readonly token?: string
}

const env = (name: string): string | undefined => {
  const v = process.env[`POWERCONTEXT_CLIENT_${name}`]
  return v === undefined || v === '' ? undefined : v
}

/**
 * Adds the global `--server-url URL` and `--token TOKEN` options (env
 * `POWERCONTEXT_CLIENT_SERVER_URL`, `POWERCONTEXT_CLIENT_API_TOKEN`). Commander recognises program
 * options before and after the subcommand, so `powercontext search --server-url URL …` works too.
 */
export function addRemoteOptions(program: Command): Command {
  return program
    .option(
      '--server-url <url>',
      'use a PowerContext server instead of the data directory (env POWERCONTEXT_CLIENT_SERVER_URL)',
      parseServerUrl,
    )
    .option('--token <token>', 'bearer token for --server-url (env POWERCONTEXT_CLIENT_API_TOKEN)')
}

/** The bearer token of a command: `--token`, else `POWERCONTEXT_CLIENT_API_TOKEN`, else none. */
export function clientToken(cmd: Command): string | undefined {
  return cmd.optsWithGlobals<RemoteOptions>().token ?? env('API_TOKEN')
}

/**
 * The remote settings of a command, or undefined when neither `--server-url` nor
 * `POWERCONTEXT_CLIENT_SERVER_URL` is set.
 * @throws CliUsageError when the environment's URL is not an http(s) URL, or when both
 *   `--server-url` and `--data-dir` (or `--database`) are given.
 */
export function remoteSettings(cmd: Command): RemoteSettings | undefined {
  const o = cmd.optsWithGlobals<RemoteOptions & { dataDir?: string; database?: string }>()
  const token = clientToken(cmd)
  const local = o.dataDir !== undefined || o.database !== undefined
  if (o.serverUrl !== undefined) {
    if (local) throw new CliUsageError('use either --server-url or --data-dir/--database, not both')
    return { serverUrl: o.serverUrl, token, fromFlag: true }
  }
  const fromEnv = env('SERVER_URL')
  if (fromEnv === undefined || local) return undefined
  try {
    return { serverUrl: parseServerUrl(fromEnv), token, fromFlag: false }
  } catch {
    throw new CliUsageError(`POWERCONTEXT_CLIENT_SERVER_URL must be an http(s) URL, got ${fromEnv}`)
  }
}
