import { PRODUCT_VERSION } from '../core/product-version.js'

/** Where the MCP Streamable HTTP endpoint is mounted. */
export const MCP_PATH = '/mcp'

/** Server identity announced in `initialize` (by `/mcp` and by the stdio proxy). */
export const MCP_SERVER_INFO = Object.freeze({
  name: 'powercontext',
  version: PRODUCT_VERSION,
})
