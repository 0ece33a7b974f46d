import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

import { invalidRequest, PowerContextError } from '../core/errors.js'
import { checkScopeId } from '../core/ids.js'
import type { ContractValidator } from '../wire/contract-validator.js'
import { errorEnvelope, type ErrorLog, reportedError } from '../wire/error-envelope.js'
import { isRuntimeOperation } from '../wire/operation-handlers.js'
import { invokeOperation, type RuntimeSlot } from '../wire/surface-call.js'
import { SCOPE_HEADER } from './mcp-identity.js'
import { findMcpTool } from './tool-definitions.js'

/** What one `tools/call` needs from the HTTP request that carries it. */
export interface ToolCallContext {
  readonly slot: RuntimeSlot
  readonly validator: ContractValidator
  readonly log: ErrorLog
  readonly requestId: string
  /**
   * The connection's scope: the `X-PowerContext-Scope` header of `/mcp`, or `powercontext mcp
   * --scope`. Used by a call that names no `scope_id`; undefined when none is configured.
   */
  readonly scopeId?: string | undefined
}

/**
 * The arguments with the connection's scope filled in when they name none. A `scope_id` of the
 * call (whatever its value: the contract checks it) always wins.
 * @throws PowerContextError `invalid_request` when neither the call nor the connection names a
 *   scope, or the connection's scope is not a valid scope id.
 */
export function withConnectionScope(
  args: Record<string, unknown>,
  scopeId: string | undefined,
): Record<string, unknown> {
  if (Object.hasOwn(args, 'scope_id')) return args
  if (scopeId === undefined)
    throw invalidRequest(
      'scope_id',
      `is required: this connection has no project scope configured (the ${SCOPE_HEADER} header, or \`powercontext mcp --scope\`); pass the scope_id the injected project memory names`,
    )
  return { ...args, scope_id: checkScopeId(scopeId, SCOPE_HEADER) }
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
 * `runtime_not_ready` while the runtime is unbound, and any code the operation raises). A call
 * without `scope_id` runs in the connection's scope ({@link withConnectionScope}).
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
    const scoped = withConnectionScope(args ?? {}, ctx.scopeId)
    const wire = (await invokeOperation(id, scoped, call)) as Record<string, unknown>
    return { content: [{ type: 'text', text: JSON.stringify(wire) }], structuredContent: wire }
  } catch (err) {
    return toolError(err, ctx)
  }
}
