/*
 * A connection lost after `COMMIT` was sent: the server may have committed. A TCP relay in front
 * of the machine's MariaDB forwards a `COMMIT` to the database and then cuts the connection before
 * its answer reaches the server, so the update does commit. The answer is `storage_unavailable`
 * with `details.reason` `outcome_unknown` (never "nothing was written"): reading the memory shows
 * what happened, and a retry with the revision read is a clean compare-and-set.
 */
import net from 'node:net'

import { afterAll, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'

/** A relay that, once armed, lets the next `COMMIT` through and then drops the connection. */
async function commitCutter(target: { host: string; port: number }) {
  let armed = false
  let cut = 0
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    let commitSent = false
    for (const s of [client, upstream]) s.on('error', () => undefined)
    client.on('data', (chunk: Buffer) => {
      // A COM_QUERY packet: 4-byte header, 0x03, then the statement text.
      if (
        armed &&
        chunk.length > 5 &&
        chunk[4] === 0x03 &&
        chunk.subarray(5).toString() === 'COMMIT'
      ) {
        armed = false
        commitSent = true
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (commitSent) {
        cut += 1
        client.destroy()
        upstream.destroy()
        return
      }
      client.write(chunk)
    })
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    arm: () => (armed = true),
    cuts: () => cut,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The parts of the answers this test reads. */
interface Answer {
  results: { memory: { memory_ref: { artifact_id: string; revision: number } } }[]
  memory: { memory_ref: { revision: number }; text: string }
  error?: { code: string; details: unknown }
}

describeWithMariadb('a connection lost after COMMIT was sent', () => {
  const databases = new TestDatabases(MARIADB_TEST_URL)
  afterAll(() => databases.dropAll())

  it('answers storage_unavailable outcome_unknown; the write did commit; a retry with CAS is clean', async () => {
    const direct = new URL(await databases.create('outcome'))
    const relay = await commitCutter({ host: direct.hostname, port: Number(direct.port || 3306) })
    direct.host = `127.0.0.1:${relay.port}`
    const server: RunningServer = await startServer({
      host: '127.0.0.1',
      port: 0,
      databaseUrl: direct.toString(),
      logLevel: 'silent',
    })
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as Answer,
      }
    }
    try {
      const scope = 'outcome:unknown'
      const added = await post('/v1/memory/remember', {
        scope_id: scope,
        entries: [{ kind: 'fact', text: 'The API rate limit is 100 requests per minute.' }],
      })
      expect(added.status).toBe(200)
      const ref = added.body.results[0]!.memory.memory_ref
      relay.arm()
      const lost = await post('/v1/memory/update', {
        scope_id: scope,
        memory_ref: ref,
        text: 'The API rate limit is 200 requests per minute.',
      })
      expect(relay.cuts()).toBe(1)
      expect(lost.status).toBe(503)
      expect(lost.body.error?.code).toBe('storage_unavailable')
      expect(lost.body.error?.details).toMatchObject({ reason: 'outcome_unknown' })
      expect(lost.retryAfter).toBe('1')
      // It did commit: the current version is 2 with the new text.
      const now = await post('/v1/memory/get', { scope_id: scope, memory_id: ref.artifact_id })
      expect(now.status).toBe(200)
      expect(now.body.memory.memory_ref.revision).toBe(2)
      expect(now.body.memory.text).toBe('The API rate limit is 200 requests per minute.')
      // The caller's retry at the old revision is refused, not applied twice.
      const stale = await post('/v1/memory/update', {
        scope_id: scope,
        memory_ref: ref,
        text: 'The API rate limit is 200 requests per minute.',
      })
      expect(stale.body.error?.code).not.toBe('internal_error')
      expect([200, 409]).toContain(stale.status)
    } finally {
      await server.stop()
      await relay.close()
    }
  })
})
