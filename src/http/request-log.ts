import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/**
 * Adds fields to the request's `request completed` line (and to anything else logged on the
 * reply): the stable error code of an error response (`err_code`), the MCP tool (`mcp_tool`).
 * Never pass request content here: arguments, memory text and queries stay out of the logs.
 */
export function addLogFields(reply: FastifyReply, fields: Readonly<Record<string, string>>): void {
  reply.log = reply.log.child(fields)
}

/** Route label of a request no route matched (a 404): never the raw URL, whose values are unbounded. */
const UNMATCHED = 'unmatched'

/** The route pattern a request matched (`/v1/memory/{id}` style, as registered), or `unmatched`. */
export const routeLabel = (req: FastifyRequest): string => req.routeOptions?.url ?? UNMATCHED

/**
 * Structured per-request log lines: request id, method, route (the route pattern, not the URL;
 * `unmatched` plus the path without its query string when no route matched), status, duration, plus the fields added by {@link addLogFields}. Nothing is logged on arrival.
 */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'request_id' })
  }
  override incomingRequest(): void {}
  override requestCompleted(_err: unknown, req: FastifyRequest, reply: FastifyReply): void {
    const route = routeLabel(req)
    reply.log.info(
      {
        method: req.method,
        route,
        // What a person needs to see a 404's cause: the path, never the query string.
        ...(route === UNMATCHED ? { path: req.url.split('?')[0] } : {}),
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request completed',
    )
  }
}
