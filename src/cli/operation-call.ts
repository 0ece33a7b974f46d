import type { PowerContextClient } from '../client/index.js'
import type { MemoryRuntime } from '../runtime/memory-runtime.js'
import type { RequestOf, ResponseOf, RuntimeOperationId } from '../wire/operation-handlers.js'

/** The contract operations the CLI's commands call (every runtime operation with a request body). */
export type CliOperationId = Exclude<RuntimeOperationId, 'capabilities'>

/**
 * One contract operation in wire shapes: the request body the contract names, its success
 * response. The CLI's commands are written once against it; {@link localCall} runs it in this
 * process on the path HTTP and MCP use, {@link remoteCall} sends it to `--server-url`. Failures
 * reject with `PowerContextError` (local) or `PowerContextClientError` (remote), both carrying the
 * contract's error code.
 */
export type CallOperation = <Op extends CliOperationId>(
  operationId: Op,
  body: RequestOf<Op>,
) => Promise<ResponseOf<Op>>

/**
 * Operations that may run longer than the client's default timeout: a model-backed flush makes
 * several model calls, a redaction rewrites the database file afterwards (VACUUM).
 */
const REMOTE_TIMEOUTS_MS: Partial<Record<CliOperationId, number>> = {
  flush: 300_000,
  redact: 600_000,
}

/** Calls through the typed HTTP client; each call is sent once (no retries). */
export function remoteCall(client: PowerContextClient): CallOperation {
  return async (operationId, body) => {
    const method = client[operationId] as (b: unknown, o?: { timeoutMs?: number }) => Promise<never>
    const timeoutMs = REMOTE_TIMEOUTS_MS[operationId]
    return method(body, timeoutMs === undefined ? undefined : { timeoutMs })
  }
}

/**
 * Calls the opened runtime through `invokeOperation`, exactly as an HTTP request: the body goes
 * through JSON (an absent option is absent, not `undefined`), then the contract's request schema,
 * then the operation's handler. The wire modules load here, after the runtime opened.
 */
export async function localCall(runtime: MemoryRuntime): Promise<CallOperation> {
  const [{ invokeOperation }, { ContractValidator }] = await Promise.all([
    import('../wire/surface-call.js'),
    import('../wire/contract-validator.js'),
  ])
  const ctx = {
    slot: { current: runtime },
    // The contract document is checked where it is generated and at every server start.
    validator: new ContractValidator({ checkDocument: false }),
    bodyName: 'request' as const,
  }
  return async (operationId, body) =>
    // The handler of `operationId` answers the contract's response of that operation.
    (await invokeOperation(operationId, JSON.parse(JSON.stringify(body)), ctx)) as never
}
