/**
 * What every host's MCP entry shares (each host's own entry: its adapter, `hosts/<host>/`): the
 * endpoint, the token's variable, our read and write tools. A project-level entry also sends
 * the project's scope as the `X-PowerContext-Scope` header, so tool calls that name no
 * `scope_id` land in the project's memory; a user-level entry serves every project and sends
 * none (the model names the scope the injected project memory states).
 */
import { OPERATIONS } from '../../contract/operations.js'
import { SCOPE_HEADER } from '../../mcp/mcp-identity.js'

/** The variable both hosts read the bearer token from. */
export const TOKEN_ENV = 'POWERCONTEXT_CLIENT_API_TOKEN'

/** The MCP endpoint of a server URL. */
export const mcpUrl = (serverUrl: string): string => `${serverUrl.replace(/\/+$/, '')}/mcp`

const tools = OPERATIONS.flatMap((op) => (op.mcpTool === null ? [] : [op.mcpTool]))
/** Our MCP tools that only read (search, get, list, history, preview), in contract order. */
export const READ_TOOLS: readonly string[] = tools.filter((t) => t.readOnly).map((t) => t.name)
/** Our MCP tools that write (remember, update, forget, merge, restore). */
export const WRITE_TOOLS: readonly string[] = tools.filter((t) => !t.readOnly).map((t) => t.name)

/** The `X-PowerContext-Scope` header of a project-level entry (none at user level). */
export const scopeHeader = (scopeId: string | undefined): Record<string, string> =>
  scopeId === undefined ? {} : { [SCOPE_HEADER]: scopeId }

/** An entry as found (any JSON or TOML value) read through its URL and headers fields. */
export function mcpEntryView(
  entry: unknown,
  urlKey: string,
  headersKey: string,
): { url: unknown; headers: unknown } | undefined {
  if (entry === undefined) return undefined
  const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>
  return { url: e[urlKey], headers: e[headersKey] }
}
