import type { ErrorCode } from '../core/errors.js'
import {
  type ErrorEnvelope,
  errorEnvelope,
  type ErrorLog,
  reportedError,
} from '../wire/error-envelope.js'

/** The one status table: exhaustive over the error codes. */
export const HTTP_STATUS = {
  invalid_request: 422,
  capability_not_supported: 422,
  memory_not_found: 404,
  source_not_found: 404,
  revision_conflict: 409,
  state_conflict: 409,
  preview_stale: 409,
  source_conflict: 409,
  secret_detected: 422,
  unauthorized: 401,
  forbidden: 403,
  payload_too_large: 413,
  inference_timeout: 503,
  inference_unavailable: 503,
  invalid_inference_output: 502,
  runtime_not_ready: 503,
  storage_unavailable: 503,
  internal_error: 500,
} as const satisfies Record<ErrorCode, number>

/**
 * Turns anything thrown into the error envelope (the one the MCP tools send too) and its HTTP
 * status: `status` when given, else the code's entry in {@link HTTP_STATUS}.
 */
export function toErrorResponse(
  err: unknown,
  requestId: string,
  log: ErrorLog,
  status?: number,
): { status: number; body: ErrorEnvelope } {
  const e = reportedError(err, requestId, log)
  return { status: status ?? HTTP_STATUS[e.code], body: errorEnvelope(e, requestId) }
}
