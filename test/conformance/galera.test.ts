/*
 * The conformance suite, unchanged, against a node of a 3-node MariaDB Galera cluster started by
 * this file on loopback: every database is created and used on the second node, so
 * every write is certified by the cluster and every statement runs with causal reads. Skipped
 * with the reason where galera-4 (or mariadb-server, rsync) is missing; `.ci/run` installs them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { galeraUnavailable, PrivateGalera } from '../../harness/private-mariadb.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import { TestDatabases } from '../support/mysql-databases.js'
import { describeMemoryBackend } from './memory-backend.case.js'
import { mysqlFamilyOptions } from './mysql-family.case.js'

const unavailable = galeraUnavailable()

if (unavailable !== null) {
  it('galera conformance', (ctx) => ctx.skip(unavailable))
} else {
  let cluster: PrivateGalera | undefined
  beforeAll(async () => {
    cluster = await PrivateGalera.start(3)
  }, 240_000)
  afterAll(async () => {
    await cluster?.stop()
  })
  describeMemoryBackend(
    mysqlFamilyOptions('mariadb galera node', () => {
      if (cluster === undefined) throw new Error('the Galera cluster did not start')
      return cluster.nodes[1]!.url('mysql')
    }),
  )

  describe('first opens at once on three nodes', () => {
    const databases = new TestDatabases(() => cluster!.nodes[0]!.url('mysql'))
    afterAll(() => databases.dropAll())

    it('three backends open a new database at once, on three nodes, in every round', async () => {
      for (let round = 0; round < 20; round += 1) {
        const url = await databases.create(`first${round}`)
        await cluster!.waitForDatabase(new URL(url).pathname.slice(1))
        const opened = await Promise.allSettled(
          cluster!.nodes.map((n) =>
            openMysqlBackend({ url: url.replace(`:${cluster!.nodes[0]!.port}/`, `:${n.port}/`) }),
          ),
        )
        const backends = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))
        try {
          const failures = opened.flatMap((o) =>
            o.status === 'rejected' ? [String((o.reason as Error).message)] : [],
          )
          expect(failures, `round ${round}`).toEqual([])
          for (const b of backends) {
            expect(b.storageStatus.ftsProblem, `round ${round}`).toBeNull()
            expect(b.capabilities.fts).toBe(true)
          }
          const made = await backends[round % 3]!.remember({
            scopeId: 'proj:first',
            entries: [{ kind: 'fact', text: `opened together ${round}` }],
          })
          const id = made.results[0]!.memory.memoryRef.artifactId
          for (const b of backends) {
            const found = await b.search({ scopeId: 'proj:first', query: 'together', mode: 'fts' })
            expect(found.hits.map((h) => h.memoryRef.artifactId)).toEqual([id])
          }
        } finally {
          await Promise.all(backends.map((b) => b.close()))
        }
      }
    }, 240_000)
  })

  describe('galera node detection', () => {
    const databases = new TestDatabases(() => cluster!.nodes[0]!.url('mysql'))
    afterAll(() => databases.dropAll())

    it('reports the cluster, waits for causality, reads its writes on every other node', async () => {
      const url = await databases.create('galera')
      const urls = cluster!.nodes.map((n) =>
        url.replace(`:${cluster!.nodes[0]!.port}/`, `:${n.port}/`),
      )
      await cluster!.waitForDatabase(new URL(url).pathname.slice(1))
      const backends = await Promise.all(urls.map((u) => openMysqlBackend({ url: u })))
      try {
        for (const b of backends) {
          expect(b.capabilities.cluster).toEqual({
            kind: 'galera',
            size: 3,
            nodeState: 'Synced',
            primary: true,
          })
          expect(b.storageStatus.causalReads).toBe(true)
          expect(await b.storageHealth()).toEqual({ ready: true, checks: { cluster: 'ready' } })
        }
        let misses = 0
        for (let i = 0; i < 150; i += 1) {
          const writer = backends[i % 3]!
          const made = await writer.remember({
            scopeId: 'proj:ryw',
            entries: [{ kind: 'fact', text: `read your write ${i}` }],
          })
          const id = made.results[0]!.memory.memoryRef.artifactId
          for (const reader of backends.filter((b) => b !== writer)) {
            const got = await reader
              .get({ scopeId: 'proj:ryw', memoryId: id })
              .catch(() => undefined)
            if (got === undefined) misses += 1
          }
        }
        expect(misses).toBe(0)
      } finally {
        await Promise.all(backends.map((b) => b.close()))
      }
    })
  })
}
