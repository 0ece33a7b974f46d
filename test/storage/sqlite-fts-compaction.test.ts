/* Full-text index compaction (sqlite-fts-compaction.ts): a fragmented FTS5 index is merged into
 * one segment in bounded steps, search answers stay the same, the index stays consistent, and
 * nothing runs unless the server starts it. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { FtsCompaction } from '../../src/storage/sqlite/sqlite-fts-compaction.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-fts-compaction-'))
const opened: SqliteMemoryBackend[] = []
afterAll(async () => {
  for (const b of opened) await b.close()
  rmSync(dir, { recursive: true, force: true })
})

const WORDS = ['deploy', 'build', 'cache', 'release', 'schema', 'review', 'vector', 'token']
const QUERIES = ['deploy cache', 'release schema review', 'vector token build', 'cache']

/** A file database written one memory per transaction (the layout an agent's writes leave). */
async function fragmented(name: string, count: number): Promise<SqliteMemoryBackend> {
  const backend = await openSqliteBackend({ database: join(dir, `${name}.sqlite`) })
  opened.push(backend)
  for (let i = 0; i < count; i++) {
    const text = `note ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 3 + 1) % WORDS.length]} step${i}`
    await backend.remember({ scopeId: 'proj', entries: [{ kind: 'fact', text }] })
  }
  return backend
}

const answers = (b: SqliteMemoryBackend) =>
  Promise.all(
    QUERIES.map(async (query) =>
      (await b.search({ scopeId: 'proj', query, limit: 10 })).hits.map((h) => [
        h.memoryRef.artifactId,
        h.score,
      ]),
    ),
  )

/** The write path the backend gives its compaction, here as a plain SQLite transaction. */
const writer = (b: SqliteMemoryBackend) => {
  const db = b.rawDatabase
  return <T>(work: () => T): Promise<T> => Promise.resolve(db.transaction(work).immediate())
}

const segmentRows = (b: SqliteMemoryBackend): number =>
  (b.rawDatabase.prepare('SELECT count(*) AS n FROM memory_fts_idx').get() as { n: number }).n

describe('full-text index compaction', () => {
  it('merges a fragmented index in several steps, then finds nothing left to do', async () => {
    const b = await fragmented('merge', 400)
    const before = await answers(b)
    const rowsBefore = segmentRows(b)
    const compaction = new FtsCompaction(b.rawDatabase, writer(b), { pagesPerStep: 4 })
    const first = await compaction.compact()
    expect(first.steps).toBeGreaterThan(1)
    expect(segmentRows(b)).toBeLessThan(rowsBefore)
    expect((await compaction.compact()).steps).toBe(1)
    // Same answers, same scores; FTS5's own check and the backend's verify agree.
    expect(await answers(b)).toEqual(before)
    b.rawDatabase.exec("INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 1)")
    expect((await b.verify()).ok).toBe(true)
    // Writes after a compaction are indexed as before.
    await b.remember({ scopeId: 'proj', entries: [{ kind: 'fact', text: 'a fresh zebra note' }] })
    expect((await b.search({ scopeId: 'proj', query: 'zebra', limit: 5 })).hits).toHaveLength(1)
  })

  it('reports nothing when the index is already compact', async () => {
    const b = await fragmented('compact', 30)
    await new FtsCompaction(b.rawDatabase, writer(b)).compact()
    const compaction = new FtsCompaction(b.rawDatabase, writer(b), { firstCheckMs: 1 })
    const reports: unknown[] = []
    compaction.start((r) => reports.push(r))
    await new Promise((r) => setTimeout(r, 200))
    await compaction.stop()
    expect(reports).toEqual([])
  })

  it('runs only once started, reports what it did, and stops with the backend', async () => {
    const b = await fragmented('started', 120)
    const changes = () =>
      (b.rawDatabase.prepare('SELECT total_changes() AS n').get() as { n: number }).n
    const idle = changes()
    await new Promise((r) => setTimeout(r, 50))
    expect(changes()).toBe(idle) // opening never compacts by itself
    const compaction = new FtsCompaction(b.rawDatabase, writer(b), { firstCheckMs: 1 })
    const report = await new Promise<{ steps: number }>((resolve, reject) =>
      compaction.start(resolve, reject),
    )
    expect(report.steps).toBeGreaterThan(1)
    await compaction.stop()
    expect(changes()).toBeGreaterThan(idle)
  })

  it('is started through the backend and stopped by close', async () => {
    const b = await fragmented('backend', 50)
    const reports: { index: string; steps: number }[] = []
    b.startIndexMaintenance({ onDone: (r) => reports.push(r) })
    await new Promise((r) => setTimeout(r, 2_500))
    expect(reports).toEqual([expect.objectContaining({ index: 'full_text' })])
    expect(reports[0]!.steps).toBeGreaterThan(1)
    await b.close()
    opened.splice(opened.indexOf(b), 1)
  })
})
