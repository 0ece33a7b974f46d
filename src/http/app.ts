import Fastify, { type FastifyInstance } from 'fastify'

import type { MemoryRuntime } from '../runtime/memory-runtime.js'
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.js'

/** Holds the runtime the app serves; unbound until the runtime is open (remote RFC assembly). */
export interface RuntimeSlot {
  current: MemoryRuntime | undefined
}

export interface AppOptions {
  readonly slot: RuntimeSlot
  /** pino logger options, or false for none (tests). */
  readonly logger?: boolean | { level: string }
}

/**
 * Builds the HTTP application over a runtime slot. An unbound app answers health routes (readiness
 * `not_ready`, 503) so it can be inspected before the runtime is open.
 */
export function buildApp(options: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    genReqId: (req) => requestIdFor(req.headers[REQUEST_ID_HEADER]),
  })

  app.addHook('onRequest', async (req, reply) => {
    void reply.header(REQUEST_ID_HEADER, req.id)
  })

  app.get('/health/live', async () => ({ status: 'ok' }))

  app.get('/health/ready', async (_req, reply) => {
    const runtime = options.slot.current
    if (runtime === undefined) {
      return reply.code(503).send({ status: 'not_ready', checks: { runtime: 'not_ready' } })
    }
    const readiness = await runtime.readiness()
    return reply.code(readiness.status === 'not_ready' ? 503 : 200).send(readiness)
  })

  return app
}
