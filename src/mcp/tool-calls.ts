import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyBaseLogger } from 'fastify'

import { PowerContextError } from '../core/errors.js'
import type { RuntimeSlot } from '../http/app.js'
import { toErrorResponse } from '../http/error-response.js'
import type { ContractValidator } from '../http/schema-validator.js'
import { OPERATION_HANDLERS } from '../wire/operation-handlers.js'
import { findMcpTool } from './tool-definitions.js'

/** What one `tools/call` needs from the HTTP request that carries it. */
export interface ToolCallContext {
  readonly slot: RuntimeSlot
  readonly validator: ContractValidator
  readonly log: FastifyBaseLogger
  readonly requestId: string
}

/**
 * A failure as an MCP tool result (STYLE R11): `isError`, `<code>: <message>` as text, and the
 * contract's error envelope as `structuredContent`. Anything but a `PowerContextError` is our bug:
 * it is logged with its stack and reported as `internal_error` without internals.
 */
export function toolError(err: unknown, ctx: Pick<ToolCallContext, 'log' | 'requestId'>) {
  const { body } = toErrorResponse(err, ctx.requestId, ctx.log)
  return {
    isError: true,
    content: [{ type: 'text', text: `${body.error.code}: ${body.error.message}` }],
    structuredContent: body,
  } satisfies CallToolResult
}

/**
 * Runs one allow-listed tool: validates the arguments against the operation's request schema,
 * then calls the same wire-level handler the HTTP route uses. Never throws: every failure is a
 * tool result with `isError` (`invalid_request` for an unknown tool or bad arguments,
 * `runtime_not_ready` while the runtime is unbound, and any code the operation raises).
 */
export async function callTool(
  name: string,
  args: Record<string, unknown> | undefined,
  ctx: ToolCallContext,
): Promise<CallToolResult> {
  try {
    const binding = findMcpTool(name)
    const handler = binding === undefined ? undefined : OPERATION_HANDLERS[binding.operationId]
    if (binding === undefined || handler === undefined)
      throw new PowerContextError('invalid_request', `unknown tool ${name}`)
    const body = args ?? {}
    const errors = ctx.validator.check(binding.requestSchema, body)
    if (errors.length > 0) {
      throw new PowerContextError(
        'invalid_request',
        `arguments do not match ${binding.requestSchema}: ${errors[0]?.field} ${errors[0]?.message}`,
        { errors },
      )
    }
    const runtime = ctx.slot.current
    if (runtime === undefined)
      throw new PowerContextError('runtime_not_ready', 'the runtime is not open yet')
    const wire = (await handler(runtime, body)) as Record<string, unknown>
    return { content: [{ type: 'text', text: JSON.stringify(wire) }], structuredContent: wire }
  } catch (err) {
    return toolError(err, ctx)
  }
}
