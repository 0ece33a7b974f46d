/**
 * Full-text index compaction benchmark: what a server's index upkeep (sqlite-fts-compaction.ts)
 * buys search. For each of `--sizes`, a file database holds that many LoCoMo-derived memories
 * written as the other benchmarks write them (`remember` in batches of `--batch`); a copy of the
 * file is compacted (`FtsCompaction.compact`, timed); then the FTS candidate query
 * (`FTS_CANDIDATES_SQL`, the one every search runs) and the whole `search` are timed on both
 * files, interleaved per question, after `--warmup`. Results of both files are compared.
 *
 * Usage: `npm run bench:fts-compaction [-- --sizes 1000,10000 --queries 300 --warmup 30 --batch 100]`.
 * Prints a table, then one JSON line.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

import type { SqliteMemoryBackend } from '../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../src/storage/sqlite/index.js'
import { FtsCompaction } from '../src/storage/sqlite/sqlite-fts-compaction.js'
import { FTS_CANDIDATES_SQL, queryMatchExpression } from '../src/storage/sqlite/sqlite-search.js'
import { parseFlags, positiveInt } from './bench-args.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { f2, stats } from './bench-stats.js'

const SCOPE = 'bench-fts'
const opts = { sizes: [1000, 10_000], queries: 300, warmup: 30, batch: 100 }
parseFlags(process.argv.slice(2), {
  '--sizes': (v, flag) => (opts.sizes = (v ?? '').split(',').map((s) => positiveInt(flag, s))),
  '--queries': (v, flag) => (opts.queries = positiveInt(flag, v)),
  '--warmup': (v, flag) => (opts.warmup = positiveInt(flag, v)),
  '--batch': (v, flag) => (opts.batch = positiveInt(flag, v)),
})

const segmentRows = (b: SqliteMemoryBackend): number =>
  (b.rawDatabase.prepare('SELECT count(*) AS n FROM memory_fts_idx').get() as { n: number }).n

const timedMs = async (work: () => unknown): Promise<number> => {
  const t = performance.now()
  await work()
  return performance.now() - t
}

const load = os.loadavg().slice(0, 1)
const out: Record<string, unknown>[] = []
for (const size of opts.sizes) {
  const dir = mkdtempSync(join(os.tmpdir(), 'pc-bench-fts-'))
  try {
    const [plain, compacted] = [join(dir, 'plain.sqlite'), join(dir, 'compacted.sqlite')]
    const writer = await openSqliteBackend({ database: plain })
    const texts = memoryTexts(size, 1)
    for (let i = 0; i < texts.length; i += opts.batch) {
      const entries = texts.slice(i, i + opts.batch).map((text) => ({ kind: 'fact', text }))
      await writer.remember({ scopeId: SCOPE, entries })
    }
    await writer.close()
    copyFileSync(plain, compacted)
    const a = await openSqliteBackend({ database: plain })
    const b = await openSqliteBackend({ database: compacted })
    const db = b.rawDatabase
    const compaction = new FtsCompaction(db, (work) =>
      Promise.resolve(db.transaction(work).immediate()),
    )
    const rows = { before: segmentRows(b), after: 0 }
    const report = await compaction.compact()
    rows.after = segmentRows(b)
    const questions = locomoQuestions(opts.warmup + opts.queries, 1).map((q) => q.question)
    const stmts = [a, b].map((x) => x.rawDatabase.prepare(FTS_CANDIDATES_SQL))
    const t = { query: [[], []] as number[][], search: [[], []] as number[][] }
    let differ = 0
    for (const [i, question] of questions.entries()) {
      const match = queryMatchExpression(SCOPE, question)
      const answers: string[] = []
      for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const backend = k === 0 ? a : b
        const q = match === undefined ? 0 : await timedMs(() => stmts[k]!.all(match, 32))
        let hits = ''
        const s = await timedMs(async () => {
          const r = await backend.search({ scopeId: SCOPE, query: question, limit: 8 })
          hits = JSON.stringify(r.hits.map((h) => [h.memoryRef.artifactId, h.score]))
        })
        answers[k] = hits
        if (i >= opts.warmup) {
          if (match !== undefined) t.query[k]!.push(q)
          t.search[k]!.push(s)
        }
      }
      if (answers[0] !== answers[1]) differ += 1
    }
    await a.close()
    await b.close()
    const [q0, q1, s0, s1] = [...t.query, ...t.search].map(stats)
    console.log(`\n${size.toLocaleString('en')} memories (remember batches of ${opts.batch})`)
    console.log(
      `compaction: ${report.steps} steps, ${f2(report.ms)} ms (longest step ${f2(report.longestStepMs)} ms); FTS5 idx rows ${rows.before} → ${rows.after}`,
    )
    console.log(
      `${''.padEnd(28)}${'as written p50/p95'.padStart(22)}${'compacted p50/p95'.padStart(22)}`,
    )
    console.log(
      `${'candidate query (ms)'.padEnd(28)}${`${f2(q0!.p50)} / ${f2(q0!.p95)}`.padStart(22)}${`${f2(q1!.p50)} / ${f2(q1!.p95)}`.padStart(22)}`,
    )
    console.log(
      `${'search, fts (ms)'.padEnd(28)}${`${f2(s0!.p50)} / ${f2(s0!.p95)}`.padStart(22)}${`${f2(s1!.p50)} / ${f2(s1!.p95)}`.padStart(22)}`,
    )
    console.log(`questions whose hits or scores differ: ${differ} of ${questions.length}`)
    out.push({ size, compaction: report, rows, query: [q0, q1], search: [s0, s1], differ })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
console.log(
  JSON.stringify({
    bench: 'fts-compaction',
    options: opts,
    load,
    loadAfter: os.loadavg()[0],
    sizes: out,
  }),
)
