import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

import { PowerContextError } from '../core/errors.js'
import type { ContractValidator } from '../wire/contract-validator.js'
import { errorEnvelope, type ErrorLog, reportedError } from '../wire/error-envelope.js'
import { isRuntimeOperation } from '../wire/operation-handlers.js'
import { invokeOperation, type RuntimeSlot } from '../wire/surface-call.js'
import { findMcpTool } from './tool-definitions.js'

/** What one `tools/call` needs from the HTTP request that carries it. */
export interface ToolCallContext {
  readonly slot: RuntimeSlot
  readonly validator: ContractValidator
  readonly log: ErrorLog
  readonly requestId: string
}

/**
 * A failure as an MCP tool result: `isError`, `<code>: <message>` as text, and the
 * contract's error envelope as `structuredContent`. Anything but a `PowerContextError` is our bug:
 * it is logged with its stack and reported as `internal_error` without internals.
 */
export function toolError(err: unknown, ctx: Pick<ToolCallContext, 'log' | 'requestId'>) {
  const body = errorEnvelope(reportedError(err, ctx.requestId, ctx.log), ctx.requestId)
  return {
    isError: true,
    content: [{ type: 'text', text: `${body.error.code}: ${body.error.message}` }],
    structuredContent: body,
  } satisfies CallToolResult
}

/**
 * Runs one allow-listed tool through the call path HTTP routes use too (`invokeOperation`:
 * validate, runtime slot, handler). Never throws: every failure is a
 * tool result with `isError` (`invalid_request` for an unknown tool or bad arguments,
 * `runtime_not_ready` while the runtime is unbound, and any code the operation raises).
 */
export async function callTool(
  name: string,
  args: Record<string, unknown> | undefined,
  ctx: ToolCallContext,
): Promise<CallToolResult> {
  try {
    const id = findMcpTool(name)?.operationId
    if (id === undefined || !isRuntimeOperation(id))
      throw new PowerContextError('invalid_request', `unknown tool ${name}`)
    const call = { slot: ctx.slot, validator: ctx.validator, bodyName: 'arguments' } as const
    const wire = (await invokeOperation(id, args ?? {}, call)) as Record<string, unknown>
    return { content: [{ type: 'text', text: JSON.stringify(wire) }], structuredContent: wire }
  } catch (err) {
    return toolError(err, ctx)
  }
}
