import type { FastifyBaseLogger } from 'fastify'

import type { ErrorCode } from '../core/errors.js'
import { PowerContextError } from '../core/errors.js'
import { toWireError } from '../wire/memory-wire.js'

/** The one status table (STYLE R9): exhaustive over the error codes. */
export const HTTP_STATUS = {
  invalid_request: 422,
  capability_not_supported: 422,
  memory_not_found: 404,
  source_not_found: 404,
  revision_conflict: 409,
  state_conflict: 409,
  preview_stale: 409,
  source_conflict: 409,
  unauthorized: 401,
  payload_too_large: 413,
  inference_timeout: 503,
  inference_unavailable: 503,
  invalid_inference_output: 502,
  runtime_not_ready: 503,
  internal_error: 500,
} as const satisfies Record<ErrorCode, number>

/**
 * Turns anything thrown into the error envelope. A `PowerContextError` keeps its code; anything else
 * is our bug: logged once with its stack, answered as `internal_error` without internals.
 */
export function toErrorResponse(
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
  status?: number,
): { status: number; body: ReturnType<typeof toWireError> } {
  let e: PowerContextError
  if (err instanceof PowerContextError) e = err
  else {
    log.error({ err, request_id: requestId }, 'unexpected error')
    e = new PowerContextError('internal_error', 'internal error')
  }
  if (e.code === 'internal_error' && err instanceof PowerContextError) {
    log.error({ err: e.cause ?? e, request_id: requestId }, e.message)
  }
  const body = toWireError(
    {
      code: e.code,
      message: e.code === 'internal_error' ? 'internal error' : e.message,
      details: e.details,
    },
    requestId,
  )
  return { status: status ?? HTTP_STATUS[e.code], body }
}
