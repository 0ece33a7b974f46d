import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { Readable } from 'node:stream'

import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RouteHandlerMethod,
} from 'fastify'

import { OPENAPI_DOCUMENT } from '../contract/openapi-document.js'
import { OPERATIONS } from '../contract/operations.js'
import { PowerContextError } from '../core/errors.js'
import { timeSlicer } from '../core/event-loop-slices.js'
import { type ClaudeCodeHookPayload, ClaudeCodeHooks } from '../wire/claude-code-hook.js'
import { ContractValidator } from '../wire/contract-validator.js'
import { toWireError } from '../wire/memory-wire.js'
import {
  isRuntimeOperation,
  MAX_BODY_BYTES,
  type SurfaceOperationId,
} from '../wire/operation-handlers.js'
import { REQUEST_ID_HEADER, requestIdFor } from '../wire/request-id.js'
import { checkedBody, invokeOperation, type RuntimeSlot } from '../wire/surface-call.js'
import { bearerMatches } from './auth.js'
import { clientAddress, ConnectionGuard, FailedAuthLimiter } from './client-guard.js'
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  serverOptions,
} from './connection-limits.js'
import { consolePlugin, PUBLIC_ROUTE } from './console-plugin.js'
import { toErrorResponse } from './error-response.js'
import { checkHostAndOrigin, DEFAULT_HOST_POLICY, type HostPolicy } from './host-guard.js'
import { jsonAnswerBytes } from './json-answer.js'
import { clientError, parseJsonBody } from './json-body.js'
import { loggerOptions, type LogSettings } from './log-format.js'
import { AppMetrics, type MetricsOptions } from './metrics.js'
import { addLogFields, RequestLogController } from './request-log.js'

export type { RuntimeSlot } from '../wire/surface-call.js'

export interface AppOptions {
  readonly slot: RuntimeSlot
  /** Log level, format and destination (log-format.ts), or false for none (tests). */
  readonly logger?: boolean | LogSettings
  /** When set, every non-health route requires `Authorization: Bearer <token>`. */
  readonly authToken?: string | undefined
  /** Host names and browser origins served besides the built-in ones (host-guard.ts). */
  readonly hostPolicy?: HostPolicy | undefined
  /** Serve the web console at `/` (default true). */
  readonly console?: boolean
  /** Timeouts and connection limits (default {@link DEFAULT_CONNECTION_LIMITS}). */
  readonly limits?: ConnectionLimits | undefined
  /** `GET /metrics` options (metrics.ts); the endpoint is always served, behind the same auth. */
  readonly metrics?: MetricsOptions | undefined
  /** Extra routes mounted by other surfaces (e.g. `/mcp`), behind the same auth. */
  readonly plugins?: readonly ((app: FastifyInstance, slot: RuntimeSlot) => void)[]
}

const PUBLIC_PATHS: ReadonlySet<string> = new Set(
  OPERATIONS.filter((op) => op.public).map((op) => op.path),
)

/** A client address on this machine. */
const LOOPBACK_ADDRESS = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1)$/u

/** `Content-Encoding` values that leave the body as sent (RFC 9110: `identity`, or nothing). */
const IDENTITY = /^\s*(identity\s*)?$/i
/** The content type Fastify gives an object it serialises (answers keep it: same bytes on the wire). */
const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * Refuses a request without the bearer token when one is configured (public routes excepted);
 * an address past its failed attempts is refused before its token is looked at.
 */
function checkAuthorization(
  req: FastifyRequest,
  reply: FastifyReply,
  token: string | undefined,
  failures: FailedAuthLimiter,
) {
  if (token === undefined || token === '' || PUBLIC_PATHS.has(req.url.split('?')[0] ?? '')) return
  const config = req.routeOptions.config as unknown as Record<string, unknown> | undefined
  if (config?.[PUBLIC_ROUTE] === true) return
  const address = clientAddress(req.raw.socket)
  try {
    failures.check(address)
  } catch (err) {
    const retry = (err as PowerContextError).details?.['retry_after_seconds']
    void reply.header('Retry-After', String(retry))
    throw err
  }
  if (!bearerMatches(req.headers.authorization, token)) {
    failures.failed(address)
    void reply.header('WWW-Authenticate', 'Bearer realm="powercontext"')
    throw new PowerContextError('unauthorized', 'a valid bearer token is required')
  }
}

/** Sends the error envelope of `err`; its code goes on the request's log line as `err_code`. */
function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown, status?: number): void {
  const { status: s, body } = toErrorResponse(err, req.id, req.log, status)
  addLogFields(reply, { err_code: body.error.code })
  // A failure that passes by itself (a lock held elsewhere, a lost connection) says when to retry.
  const retryAfter = body.error.details?.['retry_after_seconds']
  if (typeof retryAfter === 'number') void reply.header('Retry-After', String(retryAfter))
  void reply.code(s).header(REQUEST_ID_HEADER, req.id).send(body)
}

/** The route whose body is a capture (its metadata is bounded tighter than any body). */
const CAPTURE_PATH = OPERATIONS.find((op) => op.operationId === 'captureContent')?.path

/**
 * Builds the HTTP application over a runtime slot. Routes come from the contract's operation table;
 * each one validates its body against the contract, then calls the same operation handler the MCP
 * tools use. An unbound app answers health routes (`not_ready`) and `runtime_not_ready` elsewhere.
 */
export function buildApp(options: AppOptions): FastifyInstance {
  const limits = options.limits ?? DEFAULT_CONNECTION_LIMITS
  const app = Fastify({
    ...serverOptions(limits),
    logger:
      typeof options.logger === 'object'
        ? loggerOptions(options.logger)
        : (options.logger ?? false),
    logController: new RequestLogController(),
    genReqId: (req) => requestIdFor(req.headers[REQUEST_ID_HEADER]),
    bodyLimit: MAX_BODY_BYTES,
    // Requests arriving while closing reach the routes, which answer `runtime_not_ready` with the
    // envelope once the runtime is unbound (fastify's own 503 would carry neither).
    return503OnClosing: false,
    // Errors the router raises before any hook runs (e.g. a path with bad percent-encoding):
    // same envelope and request id header as every other response.
    frameworkErrors: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
      const status =
        typeof err.statusCode === 'number' && err.statusCode < 500 ? err.statusCode : 400
      sendError(req, reply, new PowerContextError('invalid_request', err.message), status)
    },
    // Requests Node's HTTP parser rejects (e.g. an unknown method token) never reach a route:
    // answer them in the envelope too, with a generated request id; close once it is flushed
    // (fastify's default destroys the socket right after writing, which can drop the reply).
    clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed) return
      if (!socket.writable) return void socket.destroy(err)
      const status =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : err.code === 'HPE_HEADER_OVERFLOW'
            ? 431
            : 400
      const id = requestIdFor(undefined)
      const message = `malformed HTTP request (${err.code ?? 'parse error'})`
      const body = JSON.stringify(toWireError({ code: 'invalid_request', message }, id))
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n` +
          `Content-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${id}\r\n\r\n${body}`,
        () => socket.destroy(),
      )
    },
  })
  // Past a limit a new connection is closed at once; the open ones are served as before.
  const connections = new ConnectionGuard(limits)
  connections.attach(app.server)
  const failures = new FailedAuthLimiter(limits.maxFailedAuthPerMinute)
  const validator = new ContractValidator()
  void validator.warmUp()
  const metrics = new AppMetrics(options.slot, options.metrics)
  app.addHook('onResponse', async (req, reply) => metrics.observe(req, reply))

  // JSON bodies only, counted, then parsed (in slices when large) by `parseJsonBody`: an async
  // parser, whose value or error is the one it settles with.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    async (req: FastifyRequest, body: Buffer) =>
      parseJsonBody(body, req.routeOptions.url === CAPTURE_PATH),
  )

  app.addHook('onRequest', async (req, reply) => {
    void reply.header(REQUEST_ID_HEADER, req.id)
    // Health probes stay answerable whatever name a platform probes them by, and keep a reserve
    // of connections when every other slot is taken.
    const probe = PUBLIC_PATHS.has(req.url.split('?')[0] ?? '')
    try {
      connections.check(req.raw.socket, probe)
    } catch (err) {
      void reply.header('Connection', 'close')
      throw err
    }
    if (!probe) checkHostAndOrigin(req.headers, options.hostPolicy ?? DEFAULT_HOST_POLICY)
    checkAuthorization(req, reply, options.authToken, failures)
    // Bodies are read as they arrive: a compressed one would be parsed as if it were JSON.
    const encoding = req.headers['content-encoding']
    if (encoding !== undefined && !IDENTITY.test(encoding)) {
      void reply.header('Accept-Encoding', 'identity')
      throw clientError(415, 'invalid_request', `content encoding ${encoding} is not supported`)
    }
  })

  app.setErrorHandler((err, req, reply) => {
    const e = err as Error & { statusCode?: number; code?: string }
    let mapped: unknown = err
    let status: number | undefined
    if (!(err instanceof PowerContextError) || e.statusCode !== undefined) {
      if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
        mapped = new PowerContextError(
          'payload_too_large',
          `request body exceeds ${MAX_BODY_BYTES} bytes`,
        )
      else if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        mapped = new PowerContextError('invalid_request', 'content type must be application/json')
        status = 415
      } else if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
        mapped =
          err instanceof PowerContextError
            ? err
            : new PowerContextError('invalid_request', e.message)
        status = e.statusCode
      }
    }
    sendError(req, reply, mapped, status)
  })

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? ''
    const allowed = OPERATIONS.filter((op) => op.path === path).map((op) => op.method)
    const message =
      allowed.length > 0
        ? `method ${req.method} not allowed on ${path}`
        : `no route ${req.method} ${path}`
    if (allowed.length > 0) void reply.header('Allow', allowed.join(', '))
    sendError(
      req,
      reply,
      new PowerContextError('invalid_request', message),
      allowed.length > 0 ? 405 : 404,
    )
  })

  const call = { slot: options.slot, validator, bodyName: 'request' } as const
  const hooks = new ClaudeCodeHooks((body) => invokeOperation('prepareContext', body, call))
  // The operations the app answers itself (exhaustive over SURFACE_OPERATIONS).
  const own = {
    live: async () => ({ status: 'ok' }),
    ready: async (_req, reply) => {
      const runtime = options.slot.current
      if (runtime === undefined)
        return reply.code(503).send({ status: 'not_ready', checks: { runtime: 'not_ready' } })
      const readiness = await runtime.readiness()
      return reply.code(readiness.status === 'not_ready' ? 503 : 200).send(readiness)
    },
    // The contract itself (public, like the health routes: it holds no data).
    openapiDocument: async () => OPENAPI_DOCUMENT,
    metrics: async (_req, reply) => metrics.send(reply),
    claudeCodeHook: async (req) => {
      const scope = req.headers['x-powercontext-scope']
      // The body has passed the contract's ClaudeCodeHookPayload schema.
      const payload = checkedBody('claudeCodeHook', req.body, call) as ClaudeCodeHookPayload
      return hooks.answer(payload, {
        scopeHeader: typeof scope === 'string' ? scope : undefined,
        loopback: LOOPBACK_ADDRESS.test(clientAddress(req.raw.socket)),
      })
    },
  } satisfies Record<SurfaceOperationId, RouteHandlerMethod>

  for (const op of OPERATIONS) {
    const id = op.operationId
    if (!isRuntimeOperation(id)) {
      app.route({ method: op.method, url: op.path, handler: own[id] })
      continue
    }
    app.route({
      method: op.method,
      url: op.path,
      handler: async (req, reply) => {
        const answer = await invokeOperation(id, req.body, call)
        const bytes = await jsonAnswerBytes(answer, timeSlicer())
        reply.code(op.successStatus).type(JSON_TYPE)
        if (bytes.pieces.length === 1) return reply.send(bytes.pieces[0])
        // Pieces in order, none copied into one buffer (a source's content is its stored bytes).
        return reply.header('content-length', bytes.length).send(Readable.from(bytes.pieces))
      },
    })
  }

  if (options.console !== false) consolePlugin(app)
  for (const plugin of options.plugins ?? []) plugin(app, options.slot)
  return app
}
