/**
 * The three servers the contract and client end-to-end tests talk to, on loopback: one without
 * auth, one with a bearer token, and a listener whose runtime slot is still empty (a server's
 * state before its runtime opens). Registers the file's beforeAll/afterAll; the fields are set
 * once the beforeAll has run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll } from 'vitest'

import { buildApp } from '../../src/http/app.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'

export interface LoopbackServers {
  /** A server without auth on a temporary data directory. */
  server: RunningServer
  /** A server that requires `Authorization: Bearer <token>`. */
  authServer: RunningServer
  /** Base URL of a listener with no runtime bound (readiness `not_ready`, 503 on operations). */
  unboundUrl: string
}

export function useLoopbackServers(token: string, dirPrefix: string): LoopbackServers {
  const dirs: string[] = []
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), dirPrefix))
    dirs.push(dir)
    return dir
  }
  let unbound: FastifyInstance | undefined
  const servers = {} as LoopbackServers
  beforeAll(async () => {
    const common = { host: '127.0.0.1', port: 0, logLevel: 'silent' } as const
    servers.server = await startServer({ ...common, dataDir: tempDir() })
    servers.authServer = await startServer({ ...common, dataDir: tempDir(), authToken: token })
    unbound = buildApp({ slot: { current: undefined }, logger: false })
    await unbound.listen({ host: '127.0.0.1', port: 0 })
    servers.unboundUrl = `http://127.0.0.1:${(unbound.server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await servers.server?.stop()
    await servers.authServer?.stop()
    await unbound?.close()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  return servers
}
