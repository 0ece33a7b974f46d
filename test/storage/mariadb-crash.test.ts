/*
 * Crash safety on MariaDB: a private mariadbd (its own port and data directory,
 * started by this test) is killed with SIGKILL while six writers remember and update; after each
 * restart the first open must have full-text search, `verify` must pass, and search must find
 * every acknowledged memory (at its acknowledged version, or at the version of a write that was in
 * flight when the server died: it may have committed without its acknowledgement).
 *
 * A backend left running across a restart notices it on its next request (a new pooled connection
 * reads the server's uptime) and repairs the index without a readiness poll.
 *
 * Before the fix the first opens after a crash failed their full-text probe (InnoDB handed the
 * probe row a document id of a deleted row, which its deleted list hides), and committed heads were
 * missing from the FULLTEXT index (a sync between a transaction's document id and its commit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PrivateMariadb, privateMariadbUnavailable } from '../../harness/private-mariadb.js'
import type { MysqlMemoryBackend } from '../../src/storage/mysql/index.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'

const SCOPE = 'proj:crash'
const KILLS = 4
const WRITERS = 6
const unavailable = privateMariadbUnavailable()

/** What search must find for one memory: its acknowledged word, or a word in flight. */
interface Expected {
  revision: number
  word: string
  pending: { revision: number; word: string } | undefined
}

let db: PrivateMariadb | undefined
let url = ''

beforeAll(async () => {
  if (unavailable !== null) return
  db = await PrivateMariadb.create()
  await db.start()
  await db.query('CREATE DATABASE pc_crash CHARACTER SET utf8mb4')
  url = db.url('pc_crash')
}, 120_000)

afterAll(async () => {
  await db?.stop()
})

/** Opens the backend, waiting while the restarted server does not accept connections yet. */
async function open(): Promise<MysqlMemoryBackend> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await openMysqlBackend({ url })
    } catch (err) {
      if (attempt >= 40) throw err
      await new Promise((r) => setTimeout(r, 250))
    }
  }
}

describe.skipIf(unavailable !== null)(
  `MariaDB killed during writes${unavailable === null ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    it('after every restart the first open searches, verify passes, search finds every acknowledged memory', async () => {
      const expected = new Map<string, Expected>()
      let serial = 0
      let acknowledged = 0
      let rewrittenAtOpen = 0
      for (let round = 0; round < KILLS; round += 1) {
        const backend = await open()
        let stopped = false
        const writer = async (w: number): Promise<void> => {
          while (!stopped) {
            const n = (serial += 1)
            const word = `zq${n.toString(36)}w${w}`
            const ids = [...expected.keys()]
            const id = n % 3 === 2 && ids.length > 0 ? ids[(n * 7919) % ids.length]! : undefined
            const target = id === undefined ? undefined : expected.get(id)!
            if (target?.pending !== undefined) continue
            try {
              if (id !== undefined && target !== undefined) {
                target.pending = { revision: target.revision + 1, word }
                const r = await backend.update({
                  scopeId: SCOPE,
                  memoryRef: { artifactId: id, revision: target.revision },
                  text: `updated crash note ${word}`,
                })
                expected.set(id, {
                  revision: r.memory.memoryRef.revision,
                  word,
                  pending: undefined,
                })
              } else {
                const r = await backend.remember({
                  scopeId: SCOPE,
                  entries: [{ kind: 'fact', text: `crash note ${word}` }],
                })
                const m = r.results[0]!.memory
                expected.set(m.memoryRef.artifactId, {
                  revision: m.memoryRef.revision,
                  word,
                  pending: undefined,
                })
              }
              acknowledged += 1
            } catch {
              if (stopped) return // in flight when the server died: it may have committed
              // a racing update (revision_conflict): the acknowledged state stays as it was
              if (target !== undefined) target.pending = undefined
            }
          }
        }
        const writers = Array.from({ length: WRITERS }, (_v, w) => writer(w))
        await new Promise((r) => setTimeout(r, 1500 + Math.random() * 2000))
        stopped = true // no new writes; the ones in flight die with the server
        await db!.kill('SIGKILL')
        await Promise.allSettled(writers)
        await backend.close()

        await db!.start()
        const reopened = await open()
        try {
          expect(reopened.capabilities.fts, JSON.stringify(reopened.storageChecks())).toBe(true)
          expect(reopened.storageChecks()).toEqual({ storage: 'ready', full_text: 'ready' })
          rewrittenAtOpen += reopened.storageStatus.ftsRewritten
          const report = await reopened.verify()
          expect(report.problems).toEqual([])
          let found = 0
          for (const [id, e] of expected) {
            const words = [e, ...(e.pending === undefined ? [] : [e.pending])]
            let hit = false
            for (const candidate of words) {
              const r = await reopened.search({
                scopeId: SCOPE,
                query: candidate.word,
                mode: 'fts',
              })
              const h = r.hits.find((x) => x.memoryRef.artifactId === id)
              if (h?.memoryRef.revision === candidate.revision) {
                hit = true
                expected.set(id, {
                  revision: candidate.revision,
                  word: candidate.word,
                  pending: undefined,
                })
                break
              }
            }
            expect(
              hit,
              `${id} (${e.word}, revision ${e.revision}) not found after kill ${round + 1}`,
            ).toBe(true)
            if (hit) found += 1
          }
          expect(found).toBe(expected.size)
        } finally {
          await reopened.close()
        }
      }
      // The figures of docs/benchmarks.md, "MariaDB crash test".
      console.log(
        `mariadb crash: ${KILLS} kills, ${acknowledged} acknowledged writes, ${expected.size} memories all found by search, ${rewrittenAtOpen} index rows rewritten at reopen`,
      )
      expect(expected.size).toBeGreaterThan(50)
    }, 300_000)

    it('a restart under a running backend is noticed by the next request, without a readiness poll', async () => {
      const backend = await open()
      try {
        const made = await backend.remember({
          scopeId: 'proj:restart',
          entries: [{ kind: 'fact', text: 'the restart hides this okapi' }],
        })
        const lost = made.results[0]!.memory.memoryRef.artifactId
        // What a crash can leave (docs/oceanbase.md): a committed head the index does not find
        // (its row emptied in place: a deleted row's document id would come back after the kill).
        await db!.query("UPDATE pc_crash.memory_fts SET fts_text = '' WHERE memory_id = ?", [lost])
        // A restart is told from the server's start time (a few seconds of slack).
        while (
          Number((await db!.query<{ Value: string }[]>("SHOW STATUS LIKE 'Uptime'"))[0]!.Value) < 7
        ) {
          await new Promise((r) => setTimeout(r, 500))
        }
        await db!.kill('SIGKILL')
        await db!.start()
        let found = false
        // No readiness poll: the requests' new pooled connections see the restart.
        for (let attempt = 0; attempt < 100 && !found; attempt += 1) {
          const hits = await backend
            .search({ scopeId: 'proj:restart', query: 'okapi', mode: 'fts' })
            .then(
              (r) => r.hits,
              () => [], // a connection the restart broke
            )
          found = hits.some((h) => h.memoryRef.artifactId === lost)
          if (!found) await new Promise((r) => setTimeout(r, 200))
        }
        expect(found).toBe(true)
        expect(backend.storageStatus.ftsRewritten).toBe(1)
        expect(backend.storageChecks().full_text).toBe('ready')
      } finally {
        await backend.close()
      }
    }, 120_000)

    it('readiness reports heads the index misses; rebuild repairs them', async () => {
      const backend = await open()
      try {
        const made = await backend.remember({
          scopeId: 'proj:gap',
          entries: [
            { kind: 'fact', text: 'the index loses this zebra' },
            { kind: 'fact', text: 'the index keeps this yak' },
          ],
        })
        const lost = made.results[0]!.memory.memoryRef.artifactId
        await db!.query('DELETE FROM pc_crash.memory_fts WHERE memory_id = ?', [lost])
        expect(backend.storageChecks()).toEqual({ storage: 'ready', full_text: 'ready' })
        const report = await backend.verify()
        expect(report.ok).toBe(false)
        expect(report.problems).toContain(
          '1 head rows have no matching full-text row (run rebuild)',
        )
        expect(backend.storageChecks().full_text).toMatch(
          /^incomplete: full-text index finds \d+ of \d+ head rows/,
        )
        expect(
          (await backend.search({ scopeId: 'proj:gap', query: 'zebra', mode: 'fts' })).hits,
        ).toEqual([])

        await backend.rebuild()
        expect(backend.storageChecks()).toEqual({ storage: 'ready', full_text: 'ready' })
        expect((await backend.verify()).problems).toEqual([])
        const hits = (await backend.search({ scopeId: 'proj:gap', query: 'zebra', mode: 'fts' }))
          .hits
        expect(hits.map((h) => h.memoryRef.artifactId)).toEqual([lost])
      } finally {
        await backend.close()
      }
    }, 120_000)
  },
)
