import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js'

/** One HTTP exchange: the replies owed to its requests, in request order. */
interface Exchange<C> {
  readonly context: C
  readonly replies: JSONRPCMessage[]
  waiting: number
  resolve: (replies: JSONRPCMessage[]) => void
}

interface InFlight<C> {
  readonly exchange: Exchange<C>
  /** The id the client gave the request. */
  readonly id: RequestId
  /** Where its reply goes in `exchange.replies`. */
  readonly index: number
}

/** A request (not a notification, not a response) of a validated JSON-RPC message. */
export const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest => 'method' in m && 'id' in m

/**
 * A transport for one long-lived SDK `Server` behind a stateless HTTP endpoint: each POST is an
 * `exchange` of its JSON-RPC requests for their replies, so the server and its handler table are
 * built once rather than per request (the SDK's Streamable HTTP transport cannot be reused in
 * stateless mode). While a request is in flight its id is replaced by one unique to this
 * transport, so concurrent clients that pick the same ids never receive each other's replies;
 * `contextOf` gives a handler the context of the exchange its request came in.
 *
 * Notifications and responses from clients are dropped: a stateless server has no session to
 * initialise, never sends requests to a client, and cannot tell whose request a
 * `notifications/cancelled` names. Messages the server sends without a reply to deliver
 * (notifications, progress) are dropped too: JSON responses carry only replies.
 */
export class ExchangeTransport<C> implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: Transport['onmessage']
  readonly #inFlight = new Map<string, InFlight<C>>()
  #next = 0

  async start(): Promise<void> {}

  async close(): Promise<void> {
    for (const { exchange } of this.#inFlight.values()) exchange.resolve(exchange.replies)
    this.#inFlight.clear()
    this.onclose?.()
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message || !('id' in message)) return
    const key = String(message.id)
    const flight = this.#inFlight.get(key)
    if (flight === undefined) return
    this.#inFlight.delete(key)
    const { exchange } = flight
    exchange.replies[flight.index] = { ...message, id: flight.id }
    if (--exchange.waiting === 0) exchange.resolve(exchange.replies)
  }

  /**
   * Hands the requests among `messages` to the server and resolves with their replies, in order
   * (empty when there is no request). `extra` is passed to the server as the SDK transports do.
   */
  exchange(
    messages: readonly JSONRPCMessage[],
    context: C,
    extra?: MessageExtraInfo,
  ): Promise<JSONRPCMessage[]> {
    const requests = messages.filter(isRequest)
    if (requests.length === 0) return Promise.resolve([])
    const deliver = this.onmessage
    if (deliver === undefined) throw new Error('the MCP server is not connected')
    return new Promise((resolve) => {
      const exchange: Exchange<C> = {
        context,
        replies: new Array<JSONRPCMessage>(requests.length),
        waiting: requests.length,
        resolve,
      }
      requests.forEach((request, index) => {
        const internal = `x${++this.#next}`
        this.#inFlight.set(internal, { exchange, id: request.id, index })
        deliver({ ...request, id: internal }, extra)
      })
    })
  }

  /** The context of the exchange a request (by the id the server sees) belongs to. */
  contextOf(id: RequestId): C | undefined {
    return this.#inFlight.get(String(id))?.exchange.context
  }
}
