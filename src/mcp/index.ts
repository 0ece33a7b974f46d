/**
 * The MCP surface: the `/mcp` Streamable HTTP plugin, the contract-derived tool allow-list, and the
 * stdio proxy behind `powercontext mcp`. Loads no native database driver.
 */
export { createMcpServer, MCP_PATH, MCP_SERVER_INFO, mcpPlugin } from './mcp-plugin.js'
export type { StdioProxyOptions } from './stdio-proxy.js'
export { mcpEndpoint, RemoteMcpTools, runStdioProxy } from './stdio-proxy.js'
export type { ToolCallContext } from './tool-calls.js'
export { callTool, toolError } from './tool-calls.js'
export type { McpToolBinding } from './tool-definitions.js'
export { findMcpTool, MCP_TOOLS } from './tool-definitions.js'
