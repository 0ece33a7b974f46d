/*
 * The database cannot take a request: a full disk (SQLite on a small tmpfs this
 * test mounts itself) and a MariaDB that went away (a TCP relay on a private port in front of the
 * machine's MariaDB, closed mid-run) answer `storage_unavailable` (503, `details.reason`), never
 * `500 internal_error`; readiness says so while it lasts, and both recover.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'

const root = mkdtempSync(join(tmpdir(), 'pc-storage-unavailable-'))
const mnt = join(root, 'tmpfs')
let mounted: string | undefined

beforeAll(() => {
  mkdirSync(mnt)
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mnt], { stdio: 'pipe' })
  } catch (err) {
    mounted = `cannot mount a tmpfs here (needs root and mount(8)): ${(err as Error).message}`
    return
  }
  mounted = 'yes'
})
afterAll(() => {
  if (mounted === 'yes') execFileSync('umount', ['-l', mnt])
  rmSync(root, { recursive: true, force: true })
})

async function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

async function ready(url: string): Promise<{ status: string; checks: Record<string, string> }> {
  return (await (await fetch(`${url}/health/ready`)).json()) as never
}

describe('a full disk (SQLite on a 3 MiB tmpfs)', () => {
  it('is storage_unavailable 503 disk_full, readiness degraded until a write succeeds', async (ctx) => {
    if (mounted !== 'yes') return ctx.skip(mounted ?? 'tmpfs not mounted')
    const dataDir = join(mnt, 'data')
    const server: RunningServer = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      logLevel: 'silent',
      vectorAnn: false,
    })
    const url = server.url
    try {
      const remember = (i: number): Promise<Response> =>
        post(url, '/v1/memory/remember', {
          scope_id: 'disk:full',
          entries: [{ kind: 'fact', text: `fact ${i} ${'padding words here '.repeat(300)}` }],
        })
      expect((await remember(0)).status).toBe(200)
      // Leave ≈ 200 KiB free, then write until the disk refuses.
      const free = Number(
        execFileSync('df', ['--output=avail', '-B1', mnt]).toString().split('\n')[1],
      )
      writeFileSync(join(mnt, 'filler'), Buffer.alloc(Math.max(free - 200 * 1024, 0)))
      let refused: Response | undefined
      for (let i = 1; i < 400 && refused === undefined; i += 1) {
        const res = await remember(i)
        if (res.status !== 200) refused = res
      }
      expect(refused, 'a write was refused once the disk was full').toBeDefined()
      expect(refused!.status).toBe(503)
      const body = (await refused!.json()) as { error: Record<string, unknown> }
      expect(body.error).toMatchObject({
        code: 'storage_unavailable',
        message: 'the disk holding the database is full',
        details: { reason: 'disk_full' },
      })
      expect(await ready(url)).toMatchObject({
        status: 'degraded',
        checks: { database: 'ready', storage: 'unavailable: disk_full' },
      })
      rmSync(join(mnt, 'filler'))
      expect((await remember(1000)).status).toBe(200)
      expect(await ready(url)).toMatchObject({ status: 'ready', checks: { storage: 'ready' } })
      const list = await post(url, '/v1/memory/search', {
        scope_id: 'disk:full',
        query: 'fact 1000',
      })
      expect(list.status).toBe(200)
    } finally {
      await server.stop()
    }
  })
})

/** A TCP relay to MariaDB on a private port; `stop` refuses new connections and cuts open ones. */
async function relay(target: { host: string; port: number }): Promise<{
  port: number
  stop: () => Promise<void>
  start: () => Promise<void>
}> {
  const sockets = new Set<net.Socket>()
  let server: net.Server | undefined
  let port = 0
  const start = (): Promise<void> =>
    new Promise((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host)
        for (const s of [client, upstream]) {
          sockets.add(s)
          s.on('close', () => sockets.delete(s))
          s.on('error', () => undefined)
        }
        client.pipe(upstream).pipe(client)
      })
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port
        resolve()
      })
    })
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy()
      server!.close(() => resolve())
    })
  await start()
  return { port, stop, start }
}

describeWithMariadb('a MariaDB outage (connection refused on a private port)', () => {
  const databases = new TestDatabases(MARIADB_TEST_URL)
  afterAll(() => databases.dropAll())

  it('is storage_unavailable 503 unavailable, readiness not_ready, and recovers', async () => {
    const direct = new URL(await databases.create('outage'))
    const proxy = await relay({ host: direct.hostname, port: Number(direct.port || 3306) })
    direct.host = `127.0.0.1:${proxy.port}`
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      databaseUrl: direct.toString(),
      logLevel: 'silent',
    })
    const url = server.url
    const remember = (text: string): Promise<Response> =>
      post(url, '/v1/memory/remember', {
        scope_id: 'db:outage',
        entries: [{ kind: 'fact', text }],
      })
    try {
      expect((await remember('before the outage')).status).toBe(200)
      await proxy.stop()
      const refused = await remember('during the outage')
      expect(refused.status).toBe(503)
      const body = (await refused.json()) as { error: Record<string, unknown> }
      expect(body.error).toMatchObject({
        code: 'storage_unavailable',
        details: { reason: 'unavailable' },
      })
      expect(String(body.error['message'])).toMatch(/^database connection failed: /)
      const search = await post(url, '/v1/memory/search', { scope_id: 'db:outage', query: 'x' })
      expect(search.status).toBe(503)
      const during = await fetch(`${url}/health/ready`)
      expect(during.status).toBe(503)
      expect(await during.json()).toMatchObject({
        status: 'not_ready',
        checks: { database: 'unavailable' },
      })
      await proxy.start()
      expect((await remember('after the outage')).status).toBe(200)
      expect(await ready(url)).toMatchObject({ status: 'ready', checks: { storage: 'ready' } })
    } finally {
      await server.stop()
      await proxy.stop()
    }
  })
})
