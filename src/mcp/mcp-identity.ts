import { PRODUCT_VERSION } from '../core/product-version.js'

/** Where the MCP Streamable HTTP endpoint is mounted. */
export const MCP_PATH = '/mcp'

/** Server identity announced in `initialize` (by `/mcp` and by the stdio proxy). */
export const MCP_SERVER_INFO = Object.freeze({
  name: 'powercontext',
  version: PRODUCT_VERSION,
})

/**
 * The header that names a connection's scope: the scope of the tool calls that name no
 * `scope_id` (what `setup` writes into a host's project-level MCP entry).
 */
export const SCOPE_HEADER = 'X-PowerContext-Scope'
