/*
 * Two `powercontext server run --database …` processes on one MariaDB database, driven at once
 * over HTTP on the same scope: concurrent writers (remember, update), merges, and flushes of
 * structured sources. Afterwards `verify` passes, every acknowledged write is there, and no
 * source was processed twice (the acknowledged flush windows tile the journal). Needs the build
 * (`npm test` runs it first) and the machine's MariaDB (shared/NOTES.md).
 */
import { existsSync } from 'node:fs'

import { afterAll, expect, it } from 'vitest'

import { DIST_MAIN as DIST, raced, ServerProcesses } from '../../harness/server-process.js'
import type { PowerContextClient } from '../../src/client/index.js'
import { createPowerContextClient } from '../../src/client/index.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'

const SCOPE = 'proj:two-servers'
const WRITERS_PER_SERVER = 4
const WRITES_PER_WRITER = 12
const MERGES_PER_SERVER = 6
const SOURCES = 30

const databases = new TestDatabases(MARIADB_TEST_URL)
const servers = new ServerProcesses()

afterAll(async () => {
  await servers.stopAll()
  await databases.dropAll()
})

interface Acked {
  readonly memoryId: string
  readonly revision: number
  readonly text: string
}

async function writer(pc: PowerContextClient, tag: string, acked: Acked[]): Promise<void> {
  for (let i = 0; i < WRITES_PER_WRITER; i += 1) {
    const text = `writer ${tag} note ${i} otter`
    const res = await pc.remember({ scope_id: SCOPE, entries: [{ kind: 'fact', text }] })
    const m = res.results[0]!.memory
    acked.push({ memoryId: m.memory_ref.artifact_id, revision: 1, text })
    if (i % 3 === 2) {
      const next = `${text} revised`
      const up = await raced(() =>
        pc.update({ scope_id: SCOPE, memory_ref: m.memory_ref, text: next }),
      )
      if (up !== undefined) {
        acked.push({ memoryId: m.memory_ref.artifact_id, revision: 2, text: next })
      }
    }
  }
}

async function merger(pc: PowerContextClient, tag: string, merges: string[]): Promise<void> {
  for (let i = 0; i < MERGES_PER_SERVER; i += 1) {
    const page = await pc.list({ scope_id: SCOPE, states: ['active'], limit: 200 })
    const pool = page.memories.filter((m) => !m.text.startsWith('merged'))
    if (pool.length < 2) continue
    const a = pool[(i * 7) % pool.length]!
    const b = pool[(i * 7 + 3) % pool.length]!
    if (a.memory_ref.artifact_id === b.memory_ref.artifact_id) continue
    const res = await raced(() =>
      pc.merge({
        scope_id: SCOPE,
        inputs: [a.memory_ref, b.memory_ref],
        kind: 'fact',
        text: `merged ${tag} ${i}`,
      }),
    )
    if (res !== undefined) merges.push(res.memory.memory_ref.artifact_id)
  }
}

async function flusher(pc: PowerContextClient, windows: [number, number][]): Promise<void> {
  for (let idle = 0; idle < 3;) {
    const res = await raced(() => pc.flush({ scope_id: SCOPE, limit: 4 }))
    if (res === undefined) continue // the other server advanced the cursor first
    if (res.status === 'idle') {
      idle += 1
      await new Promise((r) => setTimeout(r, 50))
    } else windows.push([res.previous_cursor, res.cursor])
  }
}

describeWithMariadb('two servers on one MariaDB database', () => {
  it('concurrent writers, merges and flushes keep every invariant and lose no write', async () => {
    if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run npm run build first`)
    const url = await databases.create('two_servers')
    const started = await Promise.all([servers.start(url), servers.start(url)])
    const clients = started.map((s) =>
      createPowerContextClient({ baseUrl: s.url, timeoutMs: 30_000 }),
    )
    const acked: Acked[] = []
    const merges: string[] = []
    const windows: [number, number][] = []
    const captures = Array.from({ length: SOURCES }, (_, i) => i)
    const work: Promise<void>[] = []
    clients.forEach((pc, s) => {
      for (let w = 0; w < WRITERS_PER_SERVER; w += 1) work.push(writer(pc, `${s}.${w}`, acked))
      work.push(merger(pc, `${s}`, merges))
      work.push(
        (async () => {
          for (const i of captures.filter((n) => n % 2 === s)) {
            const content = JSON.stringify({
              entries: [{ kind: 'fact', text: `flushed source ${i}` }],
            })
            await pc.captureContent({
              scope_id: SCOPE,
              source_id: `src-${i}`,
              content,
              media_type: 'application/vnd.powercontext.memory+json',
            })
          }
        })(),
      )
      work.push(flusher(pc, windows))
    })
    await Promise.all(work)
    // Drain what the racing flushers left (captures may have finished after they went idle).
    await flusher(clients[0]!, windows)

    const backend = await openMysqlBackend({ url })
    try {
      const report = await backend.verify()
      expect(report.problems).toEqual([])
      expect(report.ok).toBe(true)
      for (const a of acked) {
        const got = await backend.get({
          scopeId: SCOPE,
          memoryId: a.memoryId,
          revision: a.revision,
        })
        expect(got.memory.text).toBe(a.text)
      }
      for (const id of merges) {
        const h = await backend.history({ scopeId: SCOPE, memoryId: id })
        expect(h.merges.some((m) => m.resultId === id)).toBe(true)
      }
      // No source processed twice: the acknowledged windows tile (0, high watermark].
      const sorted = [...windows].sort((x, y) => x[0] - y[0])
      let end = 0
      for (const [from, to] of sorted) {
        expect(from).toBe(end)
        end = to
      }
      const window = await backend.journal.window({ scopeId: SCOPE })
      expect(window.highWatermark).toBe(SOURCES)
      expect(end).toBe(SOURCES)
      const flushed = (
        await backend.list({ scopeId: SCOPE, states: ['active', 'merged'], limit: 500 })
      ).memories.filter((m) => m.text.startsWith('flushed source'))
      expect(new Set(flushed.map((m) => m.text)).size).toBe(SOURCES)
      expect(flushed).toHaveLength(SOURCES)
      expect(acked.length).toBeGreaterThan(WRITERS_PER_SERVER * 2 * WRITES_PER_WRITER)
      expect(merges.length).toBeGreaterThan(0)
    } finally {
      await backend.close()
    }
  }, 120_000)
})
