/*
 * A Galera node without quorum (a real 2-node cluster on loopback whose other node is killed with
 * SIGKILL: the survivor is one of two, non-primary) answers every statement with MariaDB error
 * 1047 `WSREP has not yet prepared node for application use` (SQLSTATE 08S01). A server on that
 * node answers `storage_unavailable` (503, `details.reason` `unavailable`) for writes and reads —
 * never a 500 — and readiness says so. Skipped with the reason where galera-4 is missing.
 */
import { setTimeout as sleep } from 'node:timers/promises'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { galeraUnavailable, PrivateGalera } from '../../harness/private-mariadb.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'

const unavailable = galeraUnavailable()
const DATABASE = 'pc_quorum'
let cluster: PrivateGalera | undefined
let server: RunningServer | undefined

beforeAll(async () => {
  if (unavailable !== null) return
  cluster = await PrivateGalera.start(2)
  await cluster.nodes[0]!.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`)
  await cluster.waitForDatabase(DATABASE)
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    databaseUrl: cluster.nodes[0]!.url(DATABASE),
    logLevel: 'silent',
  })
}, 300_000)
afterAll(async () => {
  await server?.stop()
  await cluster?.stop()
})

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('a Galera node that lost quorum', () => {
  it('answers storage_unavailable 503 (unavailable), never 500', async (ctx) => {
    if (unavailable !== null) return ctx.skip(unavailable)
    const scope = 'galera:quorum'
    const first = await post('/v1/memory/remember', {
      scope_id: scope,
      entries: [{ kind: 'fact', text: 'written while the cluster had quorum' }],
    })
    expect(first.status).toBe(200)
    const memoryId = (
      (await first.json()) as { results: { memory: { memory_ref: { artifact_id: string } } }[] }
    ).results[0]!.memory.memory_ref.artifact_id
    await cluster!.nodes[1]!.kill('SIGKILL')
    // The survivor notices the loss after its suspect timeout, then is non-primary.
    for (let i = 0; ; i += 1) {
      const rows = await cluster!.nodes[0]!.query<{ Value: string }[]>(
        "SHOW STATUS LIKE 'wsrep_ready'",
      )
      if (rows[0]?.Value === 'OFF') break
      if (i > 120) throw new Error('node 0 kept quorum')
      await sleep(250)
    }
    const calls: [string, unknown][] = [
      [
        '/v1/memory/remember',
        { scope_id: scope, entries: [{ kind: 'fact', text: 'written without quorum' }] },
      ],
      ['/v1/memory/get', { scope_id: scope, memory_id: memoryId }],
      ['/v1/memory/search', { scope_id: scope, query: 'quorum' }],
      ['/v1/memory/list', { scope_id: scope }],
    ]
    for (const [path, body] of calls) {
      const res = await post(path, body)
      const envelope = (await res.json()) as { error?: { code: string; details: unknown } }
      expect([path, res.status, envelope.error?.code]).toEqual([path, 503, 'storage_unavailable'])
      expect(envelope.error?.details).toMatchObject({ reason: 'unavailable' })
    }
    const ready = await fetch(`${server!.url}/health/ready`)
    expect(ready.status).toBe(503)
  }, 120_000)
})
