/*
 * MCP messages the tests and benchmarks send by hand (no SDK client): the `initialize` request a
 * client opens with.
 */

/** The protocol version these messages ask for (one every supported SDK and the proxy answer). */
export const HAND_PROTOCOL_VERSION = '2025-06-18'

/** A JSON-RPC `initialize` request from the client `clientName`. */
export function initializeRequest(clientName: string, id: string | number = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: HAND_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: clientName, version: '0' },
    },
  } as const
}
