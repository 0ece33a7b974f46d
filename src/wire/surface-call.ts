import { type ContractOperation, type OperationId, OPERATIONS } from '../contract/operations.js'
import { PowerContextError } from '../core/errors.js'
import type { MemoryRuntime } from '../runtime/memory-runtime.js'
import type { ContractValidator } from './contract-validator.js'
import { OPERATION_HANDLERS, type RuntimeOperationId } from './operation-handlers.js'

/** Holds the runtime the surfaces serve; unbound until the runtime is open. */
export interface RuntimeSlot {
  current: MemoryRuntime | undefined
}

/** What one call needs from the surface that carries it. */
export interface SurfaceCallContext {
  readonly slot: RuntimeSlot
  readonly validator: ContractValidator
  /** How the surface names the body in a validation message: HTTP `request`, MCP `arguments`. */
  readonly bodyName: 'request' | 'arguments'
}

const DOES_NOT_MATCH = { request: 'request does', arguments: 'arguments do' } as const

const BY_ID: ReadonlyMap<OperationId, ContractOperation> = new Map(
  OPERATIONS.map((op) => [op.operationId, op]),
)

/**
 * The one call path of every surface: validate the body against the operation's request schema
 * (an operation without one gets `{}`), take the bound runtime from the slot, run the operation's
 * handler, return its wire response. Failures throw `PowerContextError` (`invalid_request` with
 * `details.errors` for a body the contract rejects, `runtime_not_ready` while the slot is empty,
 * and any code the operation raises); each surface turns them into the error envelope.
 */
export async function invokeOperation(
  operationId: RuntimeOperationId,
  body: unknown,
  ctx: SurfaceCallContext,
): Promise<unknown> {
  const checked = checkedBody(operationId, body, ctx)
  const runtime = ctx.slot.current
  if (runtime === undefined)
    throw new PowerContextError('runtime_not_ready', 'the runtime is not open yet')
  // The body has passed the operation's request schema, which is what its handler's type says.
  const handler = OPERATION_HANDLERS[operationId] as (
    runtime: MemoryRuntime,
    body: unknown,
  ) => Promise<unknown>
  return handler(runtime, checked)
}

/**
 * The body of a call to `operationId` once it matches the operation's request schema (`{}` for an
 * operation without one).
 * @throws PowerContextError `invalid_request` with `details.errors` when it does not
 */
export function checkedBody(
  operationId: OperationId,
  body: unknown,
  ctx: SurfaceCallContext,
): Record<string, unknown> {
  const schema = BY_ID.get(operationId)?.requestSchema ?? null
  if (schema === null) return {}
  const errors = ctx.validator.check(schema, body)
  if (errors.length > 0) {
    throw new PowerContextError(
      'invalid_request',
      `${DOES_NOT_MATCH[ctx.bodyName]} not match ${schema}: ${errors[0]?.field} ${errors[0]?.message}`,
      { errors },
    )
  }
  return body as Record<string, unknown>
}
