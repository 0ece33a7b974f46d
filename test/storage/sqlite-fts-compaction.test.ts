/* Full-text index compaction (sqlite-fts-compaction.ts): a fragmented FTS5 index is merged into
 * one segment in bounded steps, search answers stay the same, the index stays consistent, and
 * nothing runs unless the server starts it. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { FtsCompaction, nextStepPages } from '../../src/storage/sqlite/sqlite-fts-compaction.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-fts-compaction-'))
const opened: SqliteMemoryBackend[] = []
afterAll(async () => {
  for (const b of opened) await b.close()
  rmSync(dir, { recursive: true, force: true })
})

const WORDS = ['deploy', 'build', 'cache', 'release', 'schema', 'review', 'vector', 'token']
const QUERIES = ['deploy cache', 'release schema review', 'vector token build', 'cache']

/** A file database written one memory per transaction (the layout an agent's writes leave). */
async function fragmented(name: string, count: number, terms = 0): Promise<SqliteMemoryBackend> {
  const backend = await openSqliteBackend({ database: join(dir, `${name}.sqlite`) })
  opened.push(backend)
  for (let i = 0; i < count; i++) {
    // `terms` distinct words more per memory make an index of many pages.
    const more = Array.from({ length: terms }, (_, k) => ` t${i}x${k}`).join('')
    const text = `note ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 3 + 1) % WORDS.length]} step${i}${more}`
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

/** Segments of the index (each holds at least one leaf page, so one `idx` row). */
const segments = (b: SqliteMemoryBackend): number =>
  (
    b.rawDatabase.prepare('SELECT count(DISTINCT segid) AS n FROM memory_fts_idx').get() as {
      n: number
    }
  ).n

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

  it('sizes each step by the time the step before took', async () => {
    // Two copies of one fragmented index: with no time to spend, every step after the first is
    // the fewest pages; with plenty, steps grow. Both end as one segment with the same answers.
    const slow = await fragmented('paced-small', 300, 100)
    const fast = await fragmented('paced-large', 300, 100)
    const before = new Map([
      [slow, await answers(slow)],
      [fast, await answers(fast)],
    ])
    expect(segments(slow)).toBeGreaterThan(1)
    const small = await new FtsCompaction(slow.rawDatabase, writer(slow), {
      pagesPerStep: 4,
      stepTargetMs: 0,
    }).compact()
    const large = await new FtsCompaction(fast.rawDatabase, writer(fast), {
      pagesPerStep: 4,
      stepTargetMs: 10_000,
    }).compact()
    expect(small.steps).toBeGreaterThan(large.steps)
    for (const b of [slow, fast]) {
      expect(segments(b)).toBe(1)
      expect(await answers(b)).toEqual(before.get(b))
    }
    expect(small.longestStepMs).toBeGreaterThan(0)
    expect(small.longestStepMs).toBeLessThanOrEqual(small.ms)
  })

  it('paces the next step to the target, at most doubling, within bounds', () => {
    expect(nextStepPages(500, 50, 8)).toBe(80) // 500 pages in 50 ms: 80 in 8 ms
    expect(nextStepPages(64, 1, 8)).toBe(128) // a quick step: at most twice as many next
    expect(nextStepPages(64, 1_000, 8)).toBe(4) // never below a few pages
    expect(nextStepPages(4096, 0, 8)).toBe(4096) // never above the cap
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
