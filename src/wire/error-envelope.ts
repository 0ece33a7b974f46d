import { PowerContextError } from '../core/errors.js'
import { toWireError } from './memory-wire.js'

/** Where a surface logs the failures that are our own bugs (pino and fastify loggers fit). */
export interface ErrorLog {
  error(obj: Record<string, unknown>, msg: string): void
}

/** The error envelope body (docs/http-api.md), as every surface sends it. */
export type ErrorEnvelope = ReturnType<typeof toWireError>

/**
 * The error a surface reports for anything thrown. A `PowerContextError` keeps its
 * code; anything else is our bug: logged once with its stack and reported as `internal_error`. An
 * `internal_error` is logged with its cause and reported without its message.
 */
export function reportedError(err: unknown, requestId: string, log: ErrorLog): PowerContextError {
  if (!(err instanceof PowerContextError)) {
    log.error({ err, request_id: requestId }, 'unexpected error')
    return new PowerContextError('internal_error', 'internal error')
  }
  if (err.code !== 'internal_error') return err
  log.error({ err: err.cause ?? err, request_id: requestId }, err.message)
  return new PowerContextError('internal_error', 'internal error', err.details)
}

/** The envelope of an error: what HTTP answers and MCP tools put in `structuredContent`. */
export const errorEnvelope = (e: PowerContextError, requestId: string): ErrorEnvelope =>
  toWireError({ code: e.code, message: e.message, details: e.details }, requestId)
