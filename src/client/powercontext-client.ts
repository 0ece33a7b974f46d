import createClient from 'openapi-fetch'

import {
  CLIENT_OPERATIONS,
  type ClientMethodName,
  type ClientOperation,
} from '../contract/client-operations.js'
import type { components, paths } from '../contract/powercontext-types.js'
import { errorFromResponse, PowerContextClientError } from './client-error.js'
import type * as Wire from './wire-types.js'

/** Default time a call may take, request and response body included: 10 seconds. */
export const DEFAULT_TIMEOUT_MS = 10_000

const REQUEST_ID_HEADER = 'X-PowerContext-Request-ID'

/** The `fetch` the client calls: the global one unless given (tests, proxies, instrumentation). */
export type FetchFunction = (input: Request) => Promise<Response>

/** How to reach a PowerContext server. */
export interface PowerContextClientOptions {
  /** Server root, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  readonly baseUrl: string
  /** Bearer token, sent as `Authorization: Bearer <token>` on every call. Default none. */
  readonly token?: string | undefined
  /** Per-call time limit in milliseconds. Default {@link DEFAULT_TIMEOUT_MS} (10 s). */
  readonly timeoutMs?: number | undefined
  /** Replaces the global `fetch`. */
  readonly fetch?: FetchFunction | undefined
}

/** Options of one call. */
export interface CallOptions {
  /**
   * Sent as `X-PowerContext-Request-ID`; the server keeps a value matching
   * `[A-Za-z0-9._:-]{1,128}` and logs it, so a timed-out call can be traced.
   */
  readonly requestId?: string | undefined
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number | undefined
  /** Cancels the call; the promise then rejects with the signal's reason, unchanged. */
  readonly signal?: AbortSignal | undefined
}

type Operations = typeof CLIENT_OPERATIONS
type Result<K extends ClientMethodName> = Operations[K]['responseType'] extends keyof Schemas
  ? Wire.WireType<Operations[K]['responseType']>
  : string
/** One method of the client, typed from its entry in the generated table. */
export type ClientMethod<K extends ClientMethodName> =
  Operations[K]['requestType'] extends keyof Schemas
    ? (
        body: Wire.WireType<Operations[K]['requestType']>,
        options?: CallOptions,
      ) => Promise<Result<K>>
    : (options?: CallOptions) => Promise<Result<K>>

/**
 * One method per contract operation (`src/contract/client-operations.ts`, generated from the
 * contract: its entries' comments name the route), taking and returning the wire shapes. Calls are
 * sent once: nothing is retried, so after a `timeout` or `connection_failed` a mutation may or may
 * not have been applied (read it back, e.g. with `get` or `changes`, before sending it again).
 * Every failure rejects with a {@link PowerContextClientError}. `ready` resolves with the report
 * for both 200 (`ready`/`degraded`) and 503 (`not_ready`); `metrics` resolves with the Prometheus
 * text; a model-backed `flush` can take longer than the default timeout: pass `timeoutMs`.
 */
export type PowerContextClient = { -readonly [K in keyof Operations]: ClientMethod<K> }

/** What openapi-fetch resolves with, reduced to what the client reads. */
interface RawResult {
  readonly data?: unknown
  readonly error?: unknown
  readonly response: Response
}

/** openapi-fetch's per-call init, reduced to what the client sets (a type: it needs an index signature). */
type RawInit = {
  readonly headers: Record<string, string>
  readonly signal: AbortSignal
  readonly fetch: FetchFunction
  readonly body?: unknown
  readonly parseAs?: 'text'
}

/**
 * openapi-fetch's `request`, untyped: each method's types come from the generated table
 * (`ClientMethod`), checked against the contract in `test/client/client-types.test.ts`.
 */
type RawRequest = (
  method: ClientOperation['method'],
  path: string,
  init: RawInit,
) => Promise<RawResult>

/**
 * Creates a client for the PowerContext HTTP API (docs/http-api.md), built on openapi-fetch over the
 * generated contract types. It loads no storage code and no native module.
 * @throws TypeError when `baseUrl` is not an absolute http(s) URL or `timeoutMs` is not positive.
 * @example
 * const pc = createPowerContextClient({ baseUrl: 'http://127.0.0.1:8000', token })
 * const { results } = await pc.remember({ scope_id: 'project:acme', entries: [{ kind: 'fact', text: 'Uses pnpm' }] })
 */
export function createPowerContextClient(options: PowerContextClientOptions): PowerContextClient {
  let url: URL
  try {
    url = new URL(options.baseUrl)
  } catch {
    throw new TypeError(`baseUrl must be an absolute URL, got ${JSON.stringify(options.baseUrl)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`baseUrl must use http or https, got ${url.protocol}`)
  const timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS)
  const baseFetch: FetchFunction = options.fetch ?? ((request) => globalThis.fetch(request))
  const headers: Record<string, string> = {}
  if (options.token !== undefined && options.token !== '')
    headers['Authorization'] = `Bearer ${options.token}`
  const raw = createClient<paths>({ baseUrl: options.baseUrl, headers })
  const request = raw.request as unknown as RawRequest

  async function call(
    operation: ClientOperation,
    body: unknown,
    opts: CallOptions | undefined,
  ): Promise<unknown> {
    const requestId = opts?.requestId
    const limit = checkTimeout(opts?.timeoutMs ?? timeoutMs)
    const timer = AbortSignal.timeout(limit)
    const signal = opts?.signal === undefined ? timer : AbortSignal.any([timer, opts.signal])
    let answered: Response | undefined
    const init: RawInit = {
      headers: requestId === undefined ? {} : { [REQUEST_ID_HEADER]: requestId },
      signal,
      // Sent exactly once: no retry loop anywhere, for reads or writes.
      fetch: async (request) => (answered = await baseFetch(request)),
      // The request types in `wire-types.ts` undo the generator's narrowing (fields with a
      // default made required, free-form objects typed as empty); bodies are sent as given.
      ...(operation.requestType === null ? {} : { body }),
      // A text route: read as text; an error answer is still the JSON envelope.
      ...(operation.responseFormat === 'text' ? { parseAs: 'text' as const } : {}),
    }
    let result: RawResult
    try {
      result = await request(operation.method, operation.path, init)
    } catch (err) {
      if (opts?.signal?.aborted === true) throw opts.signal.reason
      if (timer.aborted)
        throw new PowerContextClientError(
          'timeout',
          `no complete response from ${url.origin} within ${limit} ms`,
          0,
          answered?.headers.get(REQUEST_ID_HEADER) ?? requestId ?? null,
          { timeout_ms: limit },
          { cause: err },
        )
      if (answered !== undefined)
        throw new PowerContextClientError(
          'internal_error',
          `unreadable HTTP ${answered.status} response body: ${(err as Error).message}`,
          answered.status,
          answered.headers.get(REQUEST_ID_HEADER) ?? requestId ?? null,
          null,
          { cause: err },
        )
      const reason = describeNetworkError(err)
      throw new PowerContextClientError(
        'connection_failed',
        `cannot reach ${url.origin}: ${reason}`,
        0,
        requestId ?? null,
        { reason },
        { cause: err },
      )
    }
    const { response } = result
    const answer = result.data ?? result.error
    if (!isAnswer(operation, response.status, answer)) throw errorFromResponse(response, answer)
    const expected = operation.successStatuses
    if (expected.includes(response.status) || !isSuccess(response.status)) return answer
    throw new PowerContextClientError(
      'unexpected_status',
      `${operation.operationId}: HTTP ${response.status} from ${url.origin}, the contract declares ${expected.join(' or ')}`,
      response.status,
      response.headers.get(REQUEST_ID_HEADER) ?? requestId ?? null,
      { expected_status: expected.length === 1 ? expected[0] : expected },
    )
  }

  const method = (operation: ClientOperation) =>
    operation.requestType === null
      ? (o?: CallOptions) => call(operation, undefined, o)
      : (body: unknown, o?: CallOptions) => call(operation, body, o)
  // One method per table entry; their types are `ClientMethod`, which the table's data matches.
  return Object.fromEntries(
    Object.entries(CLIENT_OPERATIONS).map(([name, operation]) => [name, method(operation)]),
  ) as unknown as PowerContextClient
}

type Schemas = components['schemas']

const isSuccess = (status: number): boolean => status >= 200 && status < 300

/**
 * A 2xx, or a status the operation declares beside it (readiness's 503) when the body is the
 * operation's report (a string `status`), not the error envelope or a proxy's page.
 */
function isAnswer(operation: ClientOperation, status: number, body: unknown): boolean {
  return (
    isSuccess(status) ||
    (operation.answerStatuses.includes(status) &&
      typeof (body as { status?: unknown } | null)?.status === 'string')
  )
}

function checkTimeout(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new TypeError(`timeoutMs must be positive, got ${ms}`)
  return ms
}

/** One line for a fetch failure: undici puts the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause
  if (typeof cause?.code === 'string') return cause.code
  if (typeof cause?.message === 'string') return cause.message
  return err instanceof Error ? err.message : String(err)
}
