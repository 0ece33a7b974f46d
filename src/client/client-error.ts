import { CONTRACT_ERROR_CODES, type ContractErrorCode } from '../contract/error-codes.js'

/**
 * Codes the client produces itself, never sent by a server: `connection_failed` (no HTTP
 * response: refused, reset, DNS, TLS; `details.reason` is e.g. `ECONNREFUSED`) and `timeout` (no
 * complete response within `timeoutMs`; `details.timeout_ms`), both with `status` 0 — after
 * either, a mutation may or may not have been applied — and `unexpected_status`: a 2xx answer
 * other than the operation's declared success status (`status` is the one received,
 * `details.expected_status` the contract's), e.g. a proxy's 204 or a different server.
 */
export const CLIENT_SIDE_ERROR_CODES = [
  'connection_failed',
  'timeout',
  'unexpected_status',
] as const

/** Every code a {@link PowerContextClientError} can carry. */
export const CLIENT_ERROR_CODES = [...CONTRACT_ERROR_CODES, ...CLIENT_SIDE_ERROR_CODES] as const

/** The contract's error codes plus the two client-side ones. */
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number]

/**
 * A failed call, rebuilt from the server's error envelope. Branch on `code`, never on
 * `status` or `message`. `requestId` is the server's request id (from the envelope, else the
 * `X-PowerContext-Request-ID` header); for client-side failures it is the caller's own request id
 * when one was given, else null.
 */
export class PowerContextClientError extends Error {
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    /** HTTP status, or 0 when no response was received. */
    readonly status: number,
    readonly requestId: string | null,
    readonly details: Readonly<Record<string, unknown>> | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = 'PowerContextClientError'
  }
}

const REQUEST_ID_HEADER = 'X-PowerContext-Request-ID'

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const isContractCode = (v: unknown): v is ContractErrorCode =>
  typeof v === 'string' && (CONTRACT_ERROR_CODES as readonly string[]).includes(v)

/**
 * Codes for a non-2xx answer that carries no envelope: from a proxy in front of the server, or
 * fastify's own 503 while the server shuts down.
 */
const STATUS_FALLBACK: Readonly<Record<number, ContractErrorCode>> = {
  401: 'unauthorized',
  413: 'payload_too_large',
  503: 'runtime_not_ready',
}

/**
 * Builds the error of a non-2xx response from its parsed body. A body that is not the envelope
 * gets a code from the status (401, 413, 503) or `internal_error`; an envelope code this client does
 * not know (a newer server) becomes `internal_error` with `details.server_code`.
 */
export function errorFromResponse(response: Response, body: unknown): PowerContextClientError {
  const headerId = response.headers.get(REQUEST_ID_HEADER)
  const envelope = isRecord(body) && isRecord(body['error']) ? body['error'] : undefined
  if (envelope === undefined || typeof envelope['message'] !== 'string') {
    const text = typeof body === 'string' ? body.slice(0, 200) : ''
    return new PowerContextClientError(
      STATUS_FALLBACK[response.status] ?? 'internal_error',
      `unexpected HTTP ${response.status} response without an error envelope${text === '' ? '' : `: ${text}`}`,
      response.status,
      headerId,
    )
  }
  const requestId = typeof envelope['request_id'] === 'string' ? envelope['request_id'] : headerId
  const details = isRecord(envelope['details']) ? envelope['details'] : null
  const code = envelope['code']
  if (isContractCode(code))
    return new PowerContextClientError(
      code,
      envelope['message'],
      response.status,
      requestId,
      details,
    )
  return new PowerContextClientError(
    'internal_error',
    envelope['message'],
    response.status,
    requestId,
    { ...details, server_code: code },
  )
}
