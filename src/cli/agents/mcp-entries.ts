/**
 * The MCP server entry `setup` installs in each host, and which of our tools the host may call
 * without asking. Claude Code: `{type: "http", url}` and, when a token is in use, a header the
 * host fills from `POWERCONTEXT_CLIENT_API_TOKEN` (`${…}` expansion, so the token is never
 * written; a `headersHelper` command would not run in a project the user has not trusted in the
 * interactive dialog, which `claude -p` never shows). Codex: a `[mcp_servers.powercontext]` table
 * with `url`, the name of the token's variable (`bearer_token_env_var`) and, with
 * `--allow-writes`, `default_tools_approval_mode = "approve"`. A project-level entry also sends
 * the project's scope as the `X-PowerContext-Scope` header (Claude Code `headers`, Codex
 * `http_headers`), so tool calls that name no `scope_id` land in the project's memory; a
 * user-level entry serves every project and sends none (the model names the scope the injected
 * project memory states).
 */
import { OPERATIONS } from '../../contract/operations.js'
import { SCOPE_HEADER } from '../../mcp/mcp-identity.js'
import { MCP_SERVER_NAME } from './agent-hosts.js'

/** The variable both hosts read the bearer token from. */
export const TOKEN_ENV = 'POWERCONTEXT_CLIENT_API_TOKEN'

/** The MCP endpoint of a server URL. */
export const mcpUrl = (serverUrl: string): string => `${serverUrl.replace(/\/+$/, '')}/mcp`

const tools = OPERATIONS.flatMap((op) => (op.mcpTool === null ? [] : [op.mcpTool]))
/** Our MCP tools that only read (search, get, list, history, preview), in contract order. */
export const READ_TOOLS: readonly string[] = tools.filter((t) => t.readOnly).map((t) => t.name)
/** Our MCP tools that write (remember, update, forget, merge, restore). */
export const WRITE_TOOLS: readonly string[] = tools.filter((t) => !t.readOnly).map((t) => t.name)

/** Claude Code's name of one of our tools (`mcp__<server>__<tool>`). */
export const claudeToolRule = (tool: string): string => `mcp__${MCP_SERVER_NAME}__${tool}`

/** The `permissions.allow` rules `setup` manages in Claude Code: read tools, and writes when asked. */
export const claudeAllowRules = (allowWrites: boolean): string[] =>
  [...READ_TOOLS, ...(allowWrites ? WRITE_TOOLS : [])].map(claudeToolRule)

const scopeHeader = (scopeId: string | undefined): Record<string, string> =>
  scopeId === undefined ? {} : { [SCOPE_HEADER]: scopeId }

/** Claude Code's entry for this server URL, with the project's scope when one is given. */
export function claudeMcpEntry(
  serverUrl: string,
  withToken: boolean,
  scopeId?: string,
): Record<string, unknown> {
  const headers = {
    ...(withToken ? { Authorization: `Bearer \${${TOKEN_ENV}}` } : {}),
    ...scopeHeader(scopeId),
  }
  return {
    type: 'http',
    url: mcpUrl(serverUrl),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
  }
}

/** Codex's `[mcp_servers.powercontext]` table (and its `http_headers` table for a scope). */
export type CodexMcpEntry = Readonly<Record<string, string | Readonly<Record<string, string>>>> & {
  readonly url: string
}

/** Codex's `[mcp_servers.powercontext]` table, with the project's scope when one is given. */
export function codexMcpEntry(
  serverUrl: string,
  withToken: boolean,
  allowWrites: boolean,
  scopeId?: string,
): CodexMcpEntry {
  return {
    url: mcpUrl(serverUrl),
    ...(withToken ? { bearer_token_env_var: TOKEN_ENV } : {}),
    ...(allowWrites ? { default_tools_approval_mode: 'approve' } : {}),
    ...(scopeId === undefined ? {} : { http_headers: scopeHeader(scopeId) }),
  }
}
