import { CONTRACT_ERROR_CODES } from '../contract/error-codes.js'

/**
 * The closed set of error codes a caller can rely on: exactly the contract's codes (docs/http-api.md),
 * generated from `openapi/powercontext.yaml`. Callers branch on `code`, never on the message text.
 */
export const ERROR_CODES = CONTRACT_ERROR_CODES

export type ErrorCode = (typeof ERROR_CODES)[number]

/** One validation failure inside an `invalid_request` error (`details.errors`). */
export interface FieldError {
  readonly field: string
  readonly message: string
}

/**
 * The one domain error. Every failure that leaves the core, storage or runtime layers is a
 * `PowerContextError` with a stable `code`; anything else is a bug and becomes `internal_error`.
 */
export class PowerContextError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = 'PowerContextError'
  }
}

/** Builds an `invalid_request` error naming the offending field. */
export function invalidRequest(field: string, message: string): PowerContextError {
  return new PowerContextError('invalid_request', `${field}: ${message}`, {
    errors: [{ field, message }],
  })
}

/** Wraps anything unknown as `internal_error`, keeping the original as `cause`. */
export function toPowerContextError(err: unknown, message = 'internal error'): PowerContextError {
  if (err instanceof PowerContextError) return err
  return new PowerContextError('internal_error', message, undefined, { cause: err })
}

/** True when `value` is one of the stable error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value)
}
