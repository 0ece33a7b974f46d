/**
 * The MCP server entry `setup` installs in each host: for Claude Code the plugin's own
 * `.mcp.json` entry (`type: "http"`, the URL, a headers helper that sends
 * `POWERCONTEXT_CLIENT_API_TOKEN` when it is set) with the URL filled in; for Codex a
 * `[mcp_servers.powercontext]` table with `url` and, when a token is in use, the name of the
 * variable that holds it (`bearer_token_env_var`; the token itself is never written).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import type { HostFiles } from './agent-hosts.js'
import { MCP_SERVER_NAME, shellWord } from './agent-hosts.js'

/** The variable both hosts read the bearer token from. */
export const TOKEN_ENV = 'POWERCONTEXT_CLIENT_API_TOKEN'

/** The MCP endpoint of a server URL. */
export const mcpUrl = (serverUrl: string): string => `${serverUrl.replace(/\/+$/, '')}/mcp`

/** Claude Code's entry: the plugin's `.mcp.json` entry for this server URL. */
export function claudeMcpEntry(
  files: HostFiles,
  serverUrl: string,
  nodePath: string = process.execPath,
): Record<string, unknown> {
  const source = join(files.pluginDir, '.mcp.json')
  const parsed = JSON.parse(readFileSync(source, 'utf8')) as {
    mcpServers?: Record<string, Record<string, unknown>>
  }
  const entry = parsed.mcpServers?.[MCP_SERVER_NAME]
  if (entry === undefined) throw new Error(`${source} has no ${MCP_SERVER_NAME} server`)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(entry)) {
    if (k === 'url') out[k] = mcpUrl(serverUrl)
    else if (typeof v === 'string') out[k] = v.replace(/^node(?=\s)/, shellWord(nodePath))
    else out[k] = v
  }
  return out
}

/** Codex's `[mcp_servers.powercontext]` table. */
export function codexMcpEntry(serverUrl: string, withToken: boolean): Record<string, string> {
  return { url: mcpUrl(serverUrl), ...(withToken ? { bearer_token_env_var: TOKEN_ENV } : {}) }
}
