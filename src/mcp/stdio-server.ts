import type { Readable, Writable } from 'node:stream'

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  type CancelledNotification,
  CancelledNotificationSchema,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'

// Types only: `./mcp` loads no native driver; the caller opens the runtime.
import type { MemoryRuntime } from '../runtime/memory-runtime.js'
import { ContractValidator } from '../wire/contract-validator.js'
import type { ErrorLog } from '../wire/error-envelope.js'
import { isRequest } from './exchange-transport.js'
import { createToolServer } from './tool-server.js'

/** Settings of `powercontext mcp --data-dir …` (the embedded stdio server). */
export interface StdioServerOptions {
  /** The opened runtime to serve; closed when the server stops. */
  readonly runtime: MemoryRuntime
  /** Diagnostics (stderr in the CLI; stdout carries the protocol). Default: none. */
  readonly log?: (line: string) => void
  /** The scope of the calls that name none (`powercontext mcp --scope`); default: none. */
  readonly scopeId?: string | undefined
  /** Protocol streams; default the process's stdin and stdout. */
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/** A client's `notifications/cancelled` for one of its requests. */
const isCancellation = (m: JSONRPCMessage): m is JSONRPCMessage & CancelledNotification =>
  'method' in m && !('id' in m) && CancelledNotificationSchema.safeParse(m).success

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** Unexpected failures of a tool call, one line each (with the stack) for the diagnostics. */
function errorLog(log: (line: string) => void): ErrorLog {
  return {
    error: (obj, msg) => {
      const err = obj['err']
      const why = err instanceof Error ? (err.stack ?? err.message) : String(err)
      log(`powercontext mcp: ${msg} (request ${String(obj['request_id'])}): ${why}`)
    },
  }
}

/**
 * Serves the allow-listed MCP tools over stdio on a runtime in this process (newline-delimited
 * JSON-RPC, the MCP SDK's stdio transport): one process between the agent host and the database,
 * no HTTP server and no proxy hop. The same tool server and call path as `/mcp`, so every tool
 * answers as it does there. Runs the runtime's index upkeep (and the background reindex when an
 * embedding model is set) as the HTTP server does. Resolves when stdin ends (or the host stops
 * reading stdout) and the calls asked before have been answered; the runtime is closed then.
 */
export async function runStdioServer(options: StdioServerOptions): Promise<void> {
  const { runtime } = options
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  const log = options.log ?? (() => {})
  const slot = { current: runtime as MemoryRuntime | undefined }
  let calls = 0
  const scope = { log: errorLog(log), scopeId: options.scopeId }
  const server = createToolServer({
    slot,
    validator: new ContractValidator(),
    scopeOf: () => ({ ...scope, requestId: `stdio-${++calls}` }),
  })
  const transport = new StdioServerTransport(stdin, stdout)
  transport.onerror = (err) => log(`powercontext mcp: ${err.message}`)
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve)
    stdin.once('close', resolve)
  })
  const onStdoutError = (): void => void stdin.destroy()
  stdout.on('error', onStdoutError)
  try {
    await server.connect(transport)
    // The SDK's transport does not say when a request has been answered: track them, so that the
    // replies owed when stdin ends are written before the runtime closes. A request the client
    // cancels gets no reply (the SDK drops it), so its cancellation settles it.
    const pending = new Set<RequestId>()
    let drained: (() => void) | undefined
    const settle = (id: RequestId): void => {
      if (pending.delete(id) && pending.size === 0) drained?.()
    }
    const receive = transport.onmessage
    transport.onmessage = (message) => {
      if (isRequest(message)) pending.add(message.id)
      receive?.(message)
      const cancelled = isCancellation(message) ? message.params.requestId : undefined
      if (cancelled !== undefined) settle(cancelled)
    }
    const send = transport.send.bind(transport)
    transport.send = async (message) => {
      try {
        await send(message)
      } finally {
        if (!('method' in message) && 'id' in message && message.id !== undefined)
          settle(message.id)
      }
    }
    runtime.startIndexMaintenance({
      onError: (err) => log(`powercontext mcp: index compaction failed: ${reason(err)}`),
    })
    runtime.startBackgroundReindex({
      onError: (err) => log(`powercontext mcp: background reindex: ${reason(err)}`),
    })
    await ended
    if (pending.size > 0) await new Promise<void>((resolve) => (drained = resolve))
  } finally {
    stdout.off('error', onStdoutError)
    slot.current = undefined
    await server.close()
    await runtime.close()
  }
}
