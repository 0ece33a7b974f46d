import createClient from 'openapi-fetch'

import { type OperationId, OPERATIONS } from '../contract/operations.js'
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

/**
 * One method per contract operation, taking and returning the wire shapes. Calls are sent once:
 * nothing is retried, so after a `timeout` or `connection_failed` a mutation may or may not have
 * been applied (read it back, e.g. with `get` or `changes`, before sending it again).
 * Every failure rejects with a {@link PowerContextClientError}.
 */
export interface PowerContextClient {
  /** `GET /health/live`: the process is up. */
  live(options?: CallOptions): Promise<Wire.LiveResponse>
  /** `GET /health/ready`: the report for both 200 (`ready`/`degraded`) and 503 (`not_ready`). */
  ready(options?: CallOptions): Promise<Wire.ReadinessResponse>
  /** `GET /openapi.json`: the contract the server was built from (public, no token needed). */
  openapi(options?: CallOptions): Promise<Wire.OpenApiDocument>
  /** `GET /metrics`: the server's Prometheus metrics, as text (behind the token like the API). */
  metrics(options?: CallOptions): Promise<string>
  /** `GET /v1/capabilities`: version, search modes, extraction, limits. */
  capabilities(options?: CallOptions): Promise<Wire.CapabilitiesResponse>
  /** `POST /v1/sources/content`: persist evidence (idempotent for the same payload). */
  captureContent(
    body: Wire.CaptureContentRequest,
    options?: CallOptions,
  ): Promise<Wire.CaptureContentResponse>
  /** `POST /v1/memory/remember`: add memories; exact duplicates come back `unchanged`. */
  remember(body: Wire.RememberRequest, options?: CallOptions): Promise<Wire.RememberResponse>
  /** `POST /v1/memory/update`: new version, based on exactly `memory_ref.revision`. */
  update(body: Wire.UpdateRequest, options?: CallOptions): Promise<Wire.UpdateResponse>
  /** `POST /v1/memory/forget`: active → forgotten. */
  forget(body: Wire.ForgetRequest, options?: CallOptions): Promise<Wire.ForgetResponse>
  /** `POST /v1/memory/restore`: forgotten → active (or undo merges), optionally to an old version's content. */
  restore(body: Wire.RestoreRequest, options?: CallOptions): Promise<Wire.RestoreResponse>
  /** `POST /v1/memory/restore/preview`: the plan a restore would apply now, and its token. */
  restorePreview(
    body: Wire.RestorePreviewRequest,
    options?: CallOptions,
  ): Promise<Wire.RestorePreviewResponse>
  /** `POST /v1/memory/merge`: two or more active memories into a new one. */
  merge(body: Wire.MergeRequest, options?: CallOptions): Promise<Wire.MergeResponse>
  /** `POST /v1/memory/get`: one version (exact, or the current one), hash-verified. */
  get(body: Wire.GetRequest, options?: CallOptions): Promise<Wire.GetResponse>
  /** `POST /v1/memory/history`: every version and state transition. */
  history(body: Wire.HistoryRequest, options?: CallOptions): Promise<Wire.HistoryResponse>
  /** `POST /v1/memory/list`: one keyset page. */
  list(body: Wire.ListRequest, options?: CallOptions): Promise<Wire.ListResponse>
  /** `POST /v1/memory/search`: ranked hits among active memories. */
  search(body: Wire.SearchRequest, options?: CallOptions): Promise<Wire.SearchResponse>
  /** `POST /v1/memory/changes`: the change log after `since` (exclusive). */
  /**
   * `POST /v1/context/prepare`: the cited, bounded block of memories an agent hook injects, for a
   * `query` or (without one) the session-start brief; `status: "empty"` with `content: null`
   * when nothing matched.
   */
  prepareContext(
    body: Wire.PrepareContextRequest,
    options?: CallOptions,
  ): Promise<Wire.PreparedContextResponse>
  changes(body: Wire.ChangesRequest, options?: CallOptions): Promise<Wire.ChangesResponse>
  /**
   * `POST /v1/memory/flush`: process one window of captured sources after the scope's cursor.
   * A model-backed flush can take longer than the default timeout: pass `timeoutMs`.
   */
  flush(body: Wire.FlushRequest, options?: CallOptions): Promise<Wire.FlushResponse>
  /** `POST /v1/scopes/list`: one keyset page of scopes with memory counts per state. */
  listScopes(body: Wire.ListScopesRequest, options?: CallOptions): Promise<Wire.ListScopesResponse>
  /** `POST /v1/sources/get`: captured sources by id (content, metadata, flush status). */
  getSources(body: Wire.GetSourcesRequest, options?: CallOptions): Promise<Wire.GetSourcesResponse>
  /** `POST /v1/sources/list`: the scope's journal — cursor, high watermark, a page of sources. */
  listSources(
    body: Wire.ListSourcesRequest,
    options?: CallOptions,
  ): Promise<Wire.ListSourcesResponse>
  /** `POST /v1/memory/flush/records`: decision records of the scope's flushes. */
  flushRecords(
    body: Wire.FlushRecordsRequest,
    options?: CallOptions,
  ): Promise<Wire.FlushRecordsResponse>
}

/** A text body parsed as JSON when it is JSON (an error envelope), else the text itself. */
function jsonOrText(body: unknown): unknown {
  if (typeof body !== 'string') return body
  try {
    return JSON.parse(body) as unknown
  } catch {
    return body
  }
}

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
}

/**
 * Creates a client for the PowerContext HTTP API (DESIGN §7), built on openapi-fetch over the
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

  async function call<T>(
    operation: OperationId,
    send: (init: RawInit) => Promise<RawResult>,
    opts: CallOptions | undefined,
    accept: (status: number, body: unknown) => boolean = isSuccess,
  ): Promise<T> {
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
    }
    let result: RawResult
    try {
      result = await send(init)
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
    const body = result.data ?? result.error
    if (!accept(response.status, body)) throw errorFromResponse(response, body)
    const expected = SUCCESS_STATUS.get(operation)
    if (response.status === expected || !isSuccess(response.status)) return body as T
    throw new PowerContextClientError(
      'unexpected_status',
      `${operation}: HTTP ${response.status} from ${url.origin}, the contract declares ${expected}`,
      response.status,
      response.headers.get(REQUEST_ID_HEADER) ?? requestId ?? null,
      { expected_status: expected },
    )
  }

  // Readiness is a report for 200 and 503 alike; a 503 without one (e.g. a proxy) is an error.
  const isReport = (status: number, body: unknown): boolean =>
    isSuccess(status) ||
    (status === 503 && typeof (body as { status?: unknown } | null)?.status === 'string')
  // The request types in `wire-types.ts` undo the generator's narrowing (fields with a default
  // made required, free-form objects typed as empty); those bodies are sent as given.

  return {
    live: (o) => call('live', (i) => raw.GET('/health/live', i), o),
    ready: (o) => call('ready', (i) => raw.GET('/health/ready', i), o, isReport),
    openapi: (o) => call('openapiDocument', (i) => raw.GET('/openapi.json', i), o),
    metrics: (o) =>
      call(
        'metrics',
        async (i) => {
          // A text route: the metrics are read as text, an error answer is still the envelope.
          const r = await raw.GET('/metrics', { ...i, parseAs: 'text' })
          return r.error === undefined ? r : { ...r, error: jsonOrText(r.error) }
        },
        o,
      ),
    capabilities: (o) => call('capabilities', (i) => raw.GET('/v1/capabilities', i), o),
    captureContent: (body, o) =>
      call(
        'captureContent',
        (i) =>
          raw.POST('/v1/sources/content', { ...i, body: body as Schemas['CaptureContentRequest'] }),
        o,
      ),
    remember: (body, o) =>
      call('remember', (i) => raw.POST('/v1/memory/remember', { ...i, body }), o),
    update: (body, o) => call('update', (i) => raw.POST('/v1/memory/update', { ...i, body }), o),
    forget: (body, o) => call('forget', (i) => raw.POST('/v1/memory/forget', { ...i, body }), o),
    restore: (body, o) => call('restore', (i) => raw.POST('/v1/memory/restore', { ...i, body }), o),
    restorePreview: (body, o) =>
      call('restorePreview', (i) => raw.POST('/v1/memory/restore/preview', { ...i, body }), o),
    merge: (body, o) => call('merge', (i) => raw.POST('/v1/memory/merge', { ...i, body }), o),
    get: (body, o) => call('get', (i) => raw.POST('/v1/memory/get', { ...i, body }), o),
    history: (body, o) => call('history', (i) => raw.POST('/v1/memory/history', { ...i, body }), o),
    list: (body, o) =>
      call(
        'list',
        (i) => raw.POST('/v1/memory/list', { ...i, body: body as Schemas['ListRequest'] }),
        o,
      ),
    search: (body, o) =>
      call(
        'search',
        (i) => raw.POST('/v1/memory/search', { ...i, body: body as Schemas['SearchRequest'] }),
        o,
      ),
    prepareContext: (body, o) =>
      call(
        'prepareContext',
        (i) =>
          raw.POST('/v1/context/prepare', {
            ...i,
            body: body as Schemas['PrepareContextRequest'],
          }),
        o,
      ),
    changes: (body, o) =>
      call(
        'changes',
        (i) => raw.POST('/v1/memory/changes', { ...i, body: body as Schemas['ChangesRequest'] }),
        o,
      ),
    flush: (body, o) =>
      call(
        'flush',
        (i) => raw.POST('/v1/memory/flush', { ...i, body: body as Schemas['FlushRequest'] }),
        o,
      ),
    listScopes: (body, o) =>
      call(
        'listScopes',
        (i) => raw.POST('/v1/scopes/list', { ...i, body: body as Schemas['ListScopesRequest'] }),
        o,
      ),
    getSources: (body, o) =>
      call('getSources', (i) => raw.POST('/v1/sources/get', { ...i, body }), o),
    listSources: (body, o) =>
      call(
        'listSources',
        (i) => raw.POST('/v1/sources/list', { ...i, body: body as Schemas['ListSourcesRequest'] }),
        o,
      ),
    flushRecords: (body, o) =>
      call(
        'flushRecords',
        (i) =>
          raw.POST('/v1/memory/flush/records', {
            ...i,
            body: body as Schemas['FlushRecordsRequest'],
          }),
        o,
      ),
  }
}

type Schemas = components['schemas']

const isSuccess = (status: number): boolean => status >= 200 && status < 300

/**
 * Each operation's declared success status: any other 2xx is `unexpected_status` (readiness's
 * 503 report is accepted by its own rule).
 */
const SUCCESS_STATUS: ReadonlyMap<OperationId, number> = new Map(
  OPERATIONS.map((op) => [op.operationId, op.successStatus]),
)

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
