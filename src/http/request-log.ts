import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/**
 * Adds fields to the request's `request completed` line (and to anything else logged on the
 * reply): the stable error code of an error response (`err_code`), the MCP tool (`mcp_tool`).
 * Never pass request content here: arguments, memory text and queries stay out of the logs.
 */
export function addLogFields(reply: FastifyReply, fields: Readonly<Record<string, string>>): void {
  reply.log = reply.log.child(fields)
}

/**
 * Structured per-request log lines: request id, method, route (the route pattern, not the URL),
 * status, duration, plus the fields added by {@link addLogFields}. Nothing is logged on arrival.
 */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'request_id' })
  }
  override incomingRequest(): void {}
  override requestCompleted(_err: unknown, req: FastifyRequest, reply: FastifyReply): void {
    reply.log.info(
      {
        method: req.method,
        route: req.routeOptions.url ?? req.url,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request completed',
    )
  }
}
