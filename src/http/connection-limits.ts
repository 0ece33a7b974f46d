import type { FastifyServerOptions } from 'fastify'

import { PowerContextError } from '../core/errors.js'

/**
 * How long a client may take and how many connections it may hold (documented in
 * docs/server.md, settable by flag and `POWERCONTEXT_SERVER_*`). Without them a client trickling
 * a body held its connection forever, and a few hundred such clients exhausted the file
 * descriptors of the process.
 */
export interface ConnectionLimits {
  /** The whole request, headers and body, must arrive within this (408 and close otherwise). */
  readonly requestTimeoutMs: number
  /** The request headers must arrive within this (408 and close otherwise). */
  readonly headersTimeoutMs: number
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number
  /** Requests served on one connection before it is closed (0: no limit). */
  readonly maxRequestsPerSocket: number
  /** Open connections at most; one more is closed at once (0: no limit). */
  readonly maxConnections: number
  /**
   * Open connections of one client address at most; one more is closed at once (0: no limit),
   * so one peer cannot take every slot. Behind a reverse proxy every request comes from the
   * proxy's address: raise it or set 0 there.
   */
  readonly maxConnectionsPerClient: number
  /**
   * Of `maxConnections`, the last this many are kept for health probes: a connection opened
   * while fewer slots are free may only ask `/health/live` and `/health/ready` (anything else is
   * 503 `runtime_not_ready` and the connection is closed).
   */
  readonly probeReserve: number
  /**
   * Failed bearer-token attempts one client address may make per minute; beyond, every request
   * of it is 429 `unauthorized` with `Retry-After` until the minute is over (0: no limit).
   */
  readonly maxFailedAuthPerMinute: number
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxRequestsPerSocket: 1_000,
  maxConnections: 200,
  maxConnectionsPerClient: 64,
  probeReserve: 8,
  maxFailedAuthPerMinute: 10,
})

/**
 * How often Node checks the request and header timeouts (its default, 30 s, let a 60 s header
 * timeout close a connection only after ≈ 78 s).
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000

/**
 * The limits with defaults filled in.
 * @throws PowerContextError `invalid_request` for a negative or fractional value, or a header
 *   timeout longer than the request timeout.
 */
export function connectionLimits(given: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...given }
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new PowerContextError('invalid_request', `${name} must be a whole number ≥ 0`)
  }
  if (limits.maxConnections > 0 && limits.probeReserve >= limits.maxConnections)
    throw new PowerContextError(
      'invalid_request',
      `the probe reserve (${limits.probeReserve}) must be below the connection limit (${limits.maxConnections})`,
    )
  if (limits.requestTimeoutMs > 0 && limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new PowerContextError(
      'invalid_request',
      `the headers timeout (${limits.headersTimeoutMs} ms) must not exceed the request timeout (${limits.requestTimeoutMs} ms)`,
    )
  return Object.freeze(limits)
}

/** The fastify (and Node HTTP server) options enforcing `limits`, except `maxConnections`. */
export function serverOptions(limits: ConnectionLimits): Pick<
  FastifyServerOptions,
  'requestTimeout' | 'keepAliveTimeout' | 'maxRequestsPerSocket'
> & {
  readonly http: { headersTimeout: number; connectionsCheckingInterval: number }
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
  }
}
