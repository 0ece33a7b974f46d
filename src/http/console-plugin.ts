import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

/**
 * Where `npm run build` puts the web console (vite, from `src/console/`). The same path from
 * `src/http/` and `dist/http/`: the package ships the built console inside `dist/`.
 */
export const CONSOLE_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url))

/** Route config marking a route that needs no bearer token (the console's static files). */
export const PUBLIC_ROUTE = 'powercontextPublic'

// The page talks only to its own origin; memory text is data, so no inline script is allowed.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

function setHeaders(res: { setHeader(name: string, value: string): unknown }, path: string): void {
  res.setHeader('X-Content-Type-Options', 'nosniff')
  if (path.endsWith('.html')) {
    res.setHeader('Cache-Control', 'no-cache')
    res.setHeader('Content-Security-Policy', CSP)
    res.setHeader('Referrer-Policy', 'no-referrer')
  } else res.setHeader('Cache-Control', 'public, max-age=31536000, immutable')
}

/**
 * Serves the web console at `/` (docs/console.md): the built page and its hashed assets,
 * nothing from elsewhere. The files are public — they hold no data; every call the console makes
 * goes through the contract's routes with the tab's bearer token. Without a build, `/` says so.
 */
export function consolePlugin(app: FastifyInstance): void {
  void app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), [PUBLIC_ROUTE]: true }
    })
    if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
      scope.get('/', async (_req, reply) =>
        reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The web console is not built: run `npm run build`.\n'),
      )
      return
    }
    await scope.register(fastifyStatic, {
      root: CONSOLE_DIR,
      prefix: '/',
      wildcard: false,
      index: ['index.html'],
      decorateReply: false,
      serveDotFiles: false,
      setHeaders,
    })
  })
}
