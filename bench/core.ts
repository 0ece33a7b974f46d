/**
 * Core benchmark: the embedded SQLite backend at 10k and 100k memories in one scope.
 *
 * For each size, in a fresh child process (so RSS is per size) and a fresh file database in a
 * temp dir (synchronous FULL, the default):
 * - fills the scope with `remember` batches of 100 (throughput over the fill and its last 10 %),
 *   then adds the last `--single` memories with single-entry calls (throughput and latency);
 * - closes and re-opens the database (open-to-ready time, median of 5);
 * - runs `--queries` LoCoMo questions through `search` (mode fts, limit 8) and, on the same
 *   connection, the raw FTS5 floor with the very MATCH expression the backend builds, plus the
 *   backend's candidate SQL alone (join + order, no re-check); p50/p95 and ratios;
 *   the BM25 re-rank alone on the admitted candidates with warm statistics;
 * - reports RSS after the run.
 *
 * Usage: `npm run bench:core [-- --sizes 10000,100000 --queries 200 --single 2000 --warmup 50]`.
 * Prints a table, then one JSON line with every figure.
 *
 * With `--database mysql://user:pass@host:port/db` the same runs go to that MySQL-protocol
 * database (OceanBase, MariaDB) instead, each size in its own scope (give it an empty database;
 * sizes share its FULLTEXT index). The raw-floor rows are SQLite-only and show `–` there.
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { analyzeTokens } from '../src/core/analyzer.js'
import { bm25Order } from '../src/core/bm25.js'
import { admits, planQuery } from '../src/core/query-plan.js'
import { candidatePoolSize } from '../src/core/search-rules.js'
import { openMysqlBackend } from '../src/storage/mysql/index.js'
import type { RememberEntry } from '../src/storage/spi/memory-backend.js'
import { SqliteMemoryBackend } from '../src/storage/sqlite/sqlite-memory-backend.js'
import { FTS_CANDIDATES_SQL, queryMatchExpression } from '../src/storage/sqlite/sqlite-search.js'
import { SqliteStatements } from '../src/storage/sqlite/sqlite-session.js'
import { SqliteTextStatistics } from '../src/storage/sqlite/sqlite-text-stats.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { f1, f2, int, type Stats as FullStats, stats } from './bench-stats.js'

const SQLITE_SCOPE = 'bench-core'
const BATCH = 100
const SEARCH_LIMIT = 8
const OPEN_REPEATS = 5
const SEED = 1
/** The FTS5 floor: the backend's MATCH expression, bm25 order, no join, no re-check. */
const FLOOR_SQL =
  'SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts, 0.0, 1.0) LIMIT ?'
const MATCH_COUNT_SQL = 'SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?'

/** The figures this benchmark records for a latency series. */
type Stats = Pick<FullStats, 'p50' | 'p95' | 'mean'>

interface Options {
  readonly sizes: readonly number[]
  readonly queries: number
  readonly single: number
  readonly warmup: number
  /** A MySQL-protocol database URL instead of a temp SQLite file. */
  readonly database?: string | undefined
}

interface SizeResult {
  readonly size: number
  readonly sqliteVersion: string
  readonly remember: {
    readonly batchSize: number
    readonly batchedMemories: number
    readonly batchedPerSec: number
    readonly batchedLast10PctPerSec: number
    readonly singleCalls: number
    readonly singlePerSec: number
    readonly singleMs: Stats & { readonly p99: number }
  }
  readonly openMs: { readonly first: number; readonly median: number }
  readonly search: {
    readonly queries: number
    readonly warmup: number
    readonly limit: number
    readonly candidateLimit: number
    readonly searchMs: Stats
    readonly floorMs: Stats
    readonly candidatesMs: Stats
    /** The BM25 re-rank alone (statistics read + scoring + sort), warm statistics. */
    readonly rerankMs: Stats
    readonly rerankOverSearchP50: number
    readonly ratioP50: number
    readonly ratioP95: number
    readonly ratioMedianPerQuery: number
    readonly candidatesOverFloorP50: number
    readonly meanHits: number
    readonly meanMatchedShare: number
  }
  readonly rssMb: number
  readonly heapUsedMb: number
  readonly dbFileMb: number
}

function parseOptions(argv: readonly string[]): Options {
  const opts: { -readonly [K in keyof Options]: Options[K] } = {
    sizes: [10_000, 100_000],
    queries: 200,
    single: 2000,
    warmup: 50,
  }
  const int = (flag: string, value: string | undefined): number => {
    const n = Number(value)
    if (value === undefined || !Number.isInteger(n) || n < 0) {
      throw new Error(`${flag} needs a non-negative integer`)
    }
    return n
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] = arg.includes('=') ? arg.split('=', 2) : [arg, undefined]
    const value = (): string | undefined => inline ?? argv[++i]
    switch (flag) {
      case '--sizes':
        opts.sizes = (value() ?? '').split(',').map((s) => int('--sizes', s.trim()))
        if (opts.sizes.some((s) => s < 1)) throw new Error('--sizes must be positive')
        break
      case '--queries':
        opts.queries = Math.max(1, int('--queries', value()))
        break
      case '--single':
        opts.single = int('--single', value())
        break
      case '--warmup':
        opts.warmup = int('--warmup', value())
        break
      case '--database':
        opts.database = value()
        break
      default:
        throw new Error(`unknown argument ${arg}`)
    }
  }
  return opts
}

function progress(message: string): void {
  process.stderr.write(`[bench:core] ${message}\n`)
}

const entry = (text: string): RememberEntry => ({ kind: 'fact', text })

async function runSize(size: number, opts: Options): Promise<SizeResult> {
  const dir = mkdtempSync(join(os.tmpdir(), 'powercontext-bench-core-'))
  const database = join(dir, 'memories.db')
  const url = opts.database
  const SCOPE = url === undefined ? SQLITE_SCOPE : `${SQLITE_SCOPE}-${size}-${process.pid}`
  const open = () =>
    url === undefined ? SqliteMemoryBackend.open({ database }) : openMysqlBackend({ url })
  try {
    const texts = memoryTexts(size, SEED)
    const single = Math.min(opts.single, size)
    const fill = size - single
    const tailFrom = fill - Math.ceil((fill * 0.1) / BATCH) * BATCH
    let created = 0

    let backend = await open()
    progress(`${size}: filling ${fill} memories in batches of ${BATCH}`)
    const fillStart = performance.now()
    let tailStart = fillStart
    for (let i = 0; i < fill; i += BATCH) {
      if (i === tailFrom) tailStart = performance.now()
      const r = await backend.remember({
        scopeId: SCOPE,
        entries: texts.slice(i, Math.min(i + BATCH, fill)).map(entry),
      })
      created += r.results.filter((x) => x.status === 'created').length
    }
    const fillEnd = performance.now()

    progress(`${size}: ${single} single-entry remember calls`)
    const singleLatencies: number[] = []
    const singleStart = performance.now()
    for (let i = fill; i < size; i++) {
      const t = performance.now()
      const r = await backend.remember({ scopeId: SCOPE, entries: [entry(texts[i]!)] })
      singleLatencies.push(performance.now() - t)
      created += r.results.filter((x) => x.status === 'created').length
    }
    const singleEnd = performance.now()
    if (created !== size) throw new Error(`expected ${size} created memories, got ${created}`)
    await backend.close()

    const opens: number[] = []
    for (let i = 0; i < OPEN_REPEATS; i++) {
      const t = performance.now()
      const b = await open()
      opens.push(performance.now() - t)
      await b.close()
    }

    backend = await open()
    const db = backend instanceof SqliteMemoryBackend ? backend.rawDatabase : undefined
    const sqliteVersion =
      db === undefined
        ? `${backend.name}: ${'storageStatus' in backend ? backend.storageStatus.server.versionString : ''}`
        : (db.prepare('SELECT sqlite_version() AS v').pluck().get() as string)
    const candidateLimit = candidatePoolSize(SEARCH_LIMIT)
    const floorStmt = db?.prepare(FLOOR_SQL)
    const candidatesStmt = db?.prepare(FTS_CANDIDATES_SQL)
    const countStmt = db?.prepare(MATCH_COUNT_SQL).pluck()
    // The floor runs the very MATCH expression the backend plans for each question.
    const queries = locomoQuestions(opts.queries, SEED).flatMap((q) => {
      const match = queryMatchExpression(SCOPE, q.question)
      return match === undefined ? [] : [{ text: q.question, match }]
    })
    const runSearch = async (q: string): Promise<number> =>
      (await backend.search({ scopeId: SCOPE, query: q, limit: SEARCH_LIMIT, mode: 'fts' })).hits
        .length
    const runFloor = (match: string): number =>
      floorStmt === undefined ? 0 : floorStmt.all(match, candidateLimit).length
    const runCandidates = (match: string): number =>
      candidatesStmt === undefined ? 0 : candidatesStmt.all(match, candidateLimit).length

    progress(`${size}: warm-up (${Math.min(opts.warmup, queries.length)} queries)`)
    for (const q of queries.slice(0, opts.warmup)) {
      await runSearch(q.text)
      runFloor(q.match)
      runCandidates(q.match)
    }

    progress(`${size}: measuring ${queries.length} queries`)
    const searchMs: number[] = []
    const floorMs: number[] = []
    const candidatesMs: number[] = []
    const perQueryRatio: number[] = []
    let hits = 0
    for (const [i, q] of queries.entries()) {
      // Rotate the order of the three runs so none always profits from the others' cache.
      for (let k = 0; k < 3; k++) {
        const which = (i + k) % 3
        const t = performance.now()
        if (which === 0) hits += await runSearch(q.text)
        else if (which === 1) runFloor(q.match)
        else runCandidates(q.match)
        const ms = performance.now() - t
        ;(which === 0 ? searchMs : which === 1 ? floorMs : candidatesMs).push(ms)
      }
      if (db !== undefined) perQueryRatio.push(searchMs.at(-1)! / floorMs.at(-1)!)
    }
    // The BM25 re-rank alone, as the backend runs it on the admitted candidates: a first pass
    // warms the statistics, the second is timed (candidate SQL and admission untimed).
    const rerankMs: number[] = []
    if (db !== undefined && candidatesStmt !== undefined) {
      const textStats = new SqliteTextStatistics(new SqliteStatements(db))
      for (const pass of [0, 1]) {
        for (const q of queries) {
          const plan = planQuery(analyzeTokens(q.text))
          const rows = candidatesStmt.all(q.match, candidateLimit) as { searchableText: string }[]
          const admitted = rows.filter((r) => admits(plan, r.searchableText.split(' ')))
          if (admitted.length < 2) continue
          const t = performance.now()
          const read = textStats.read(plan.terms)
          bm25Order(admitted, (r) => r.searchableText.split(' '), plan.terms, read)
          if (pass === 1) rerankMs.push(performance.now() - t)
        }
      }
    }
    let matched = 0
    for (const q of queries)
      matched += (countStmt?.get(q.match) as number | undefined) ?? Number.NaN
    await backend.close()

    const memory = process.memoryUsage()
    const search = stats(searchMs)
    const floor = stats(db === undefined ? [] : floorMs)
    const candidates = stats(db === undefined ? [] : candidatesMs)
    const rerank = stats(rerankMs)
    const fillSecs = (fillEnd - fillStart) / 1000
    const tailSecs = (fillEnd - tailStart) / 1000
    const { p99: _p99s, ...searchStats } = search
    const { p99: _p99f, ...floorStats } = floor
    const { p99: _p99c, ...candidatesStats } = candidates
    const { p99: _p99r, ...rerankStats } = rerank
    return {
      size,
      sqliteVersion,
      remember: {
        batchSize: BATCH,
        batchedMemories: fill,
        batchedPerSec: fill > 0 ? fill / fillSecs : Number.NaN,
        batchedLast10PctPerSec: fill > 0 ? (fill - tailFrom) / tailSecs : Number.NaN,
        singleCalls: single,
        singlePerSec: single > 0 ? (single * 1000) / (singleEnd - singleStart) : Number.NaN,
        singleMs: stats(singleLatencies),
      },
      openMs: { first: opens[0]!, median: stats(opens).p50 },
      search: {
        queries: queries.length,
        warmup: Math.min(opts.warmup, queries.length),
        limit: SEARCH_LIMIT,
        candidateLimit,
        searchMs: searchStats,
        floorMs: floorStats,
        candidatesMs: candidatesStats,
        rerankMs: rerankStats,
        rerankOverSearchP50: rerank.p50 / search.p50,
        ratioP50: search.p50 / floor.p50,
        ratioP95: search.p95 / floor.p95,
        ratioMedianPerQuery: stats(perQueryRatio).p50,
        candidatesOverFloorP50: candidates.p50 / floor.p50,
        meanHits: hits / queries.length,
        meanMatchedShare: matched / queries.length / size,
      },
      rssMb: memory.rss / 2 ** 20,
      heapUsedMb: memory.heapUsed / 2 ** 20,
      dbFileMb: db === undefined ? Number.NaN : statSync(database).size / 2 ** 20,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs one size in a child process (same loader flags), so memory figures do not accumulate. */
function runChild(size: number, opts: Options): Promise<SizeResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify({ size, opts })])
    let result: SizeResult | undefined
    child.on('message', (m) => {
      result = m as SizeResult
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0 && result !== undefined) resolve(result)
      else reject(new Error(`bench child for ${size} exited with code ${code}`))
    })
  })
}

const pair = (s: Stats): string => `${f2(s.p50)} / ${f2(s.p95)}`

function table(results: readonly SizeResult[]): string {
  const rows: [string, (r: SizeResult) => string][] = [
    ['remember, batched ×100 (mem/s, whole fill)', (r) => int(r.remember.batchedPerSec)],
    ['remember, batched ×100 (mem/s, last 10 %)', (r) => int(r.remember.batchedLast10PctPerSec)],
    ['remember, single calls (mem/s)', (r) => int(r.remember.singlePerSec)],
    [
      'remember, single call p50 / p99 (ms)',
      (r) => `${f2(r.remember.singleMs.p50)} / ${f2(r.remember.singleMs.p99)}`,
    ],
    ['open-to-ready (ms, median of 5)', (r) => f2(r.openMs.median)],
    ['search fts, limit 8: p50 / p95 (ms)', (r) => pair(r.search.searchMs)],
    ['floor, raw FTS5: p50 / p95 (ms)', (r) => pair(r.search.floorMs)],
    ['candidate SQL (join, no re-check): p50 / p95 (ms)', (r) => pair(r.search.candidatesMs)],
    ['BM25 re-rank alone, warm (ms): p50 / p95', (r) => pair(r.search.rerankMs)],
    ['BM25 re-rank / search: p50', (r) => f2(r.search.rerankOverSearchP50)],
    ['search / floor: p50 / p95', (r) => `${f2(r.search.ratioP50)} / ${f2(r.search.ratioP95)}`],
    ['search / floor: median per query', (r) => f2(r.search.ratioMedianPerQuery)],
    ['candidate SQL / floor: p50', (r) => f2(r.search.candidatesOverFloorP50)],
    [
      'rows matched per query (share)',
      (r) =>
        Number.isFinite(r.search.meanMatchedShare)
          ? `${f1(r.search.meanMatchedShare * 100)} %`
          : '–',
    ],
    ['hits per search (mean)', (r) => f2(r.search.meanHits)],
    ['RSS after run (MB)', (r) => f1(r.rssMb)],
    ['database file (MB)', (r) => f1(r.dbFileMb)],
  ]
  const header = ['', ...results.map((r) => `${int(r.size)} memories`)]
  const body = rows.map(([label, cell]) => [label, ...results.map(cell)])
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)))
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`
  const rule = `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`
  return [line(header), rule, ...body.map(line)].join('\n')
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  if (argv[0] === '--child') {
    const { size, opts } = JSON.parse(argv[1] ?? '{}') as { size: number; opts: Options }
    const result = await runSize(size, opts)
    await new Promise<void>((resolve, reject) =>
      process.send!(result, (err: Error | null) => (err ? reject(err) : resolve())),
    )
    return
  }
  const opts = parseOptions(argv)
  const started = performance.now()
  const loadBefore = os.loadavg()[0]!
  const results: SizeResult[] = []
  for (const size of opts.sizes) results.push(await runChild(size, opts))
  const machine = {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sqlite: results[0]?.sqliteVersion ?? 'unknown',
    /** 1-minute load average before and after the run: other work on the machine skews figures. */
    load1: [loadBefore, os.loadavg()[0]!],
  }
  const totalSecs = (performance.now() - started) / 1000
  const target =
    opts.database === undefined
      ? 'SQLite backend, one scope, file database, synchronous FULL'
      : `MySQL-protocol backend (${results[0]?.sqliteVersion ?? 'unknown'}), one scope per size`
  console.log(
    `\nCore benchmark: ${target}\n` +
      `machine: ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGb} GB, ` +
      `Node ${machine.node}, ${opts.database === undefined ? 'SQLite ' : ''}${machine.sqlite}; ` +
      `load average ${f2(machine.load1[0]!)} before, ${f2(machine.load1[1]!)} after\n` +
      `queries: ${opts.queries} LoCoMo questions, warm-up ${opts.warmup}; ` +
      `single-entry calls: ${opts.single}; total ${totalSecs.toFixed(0)} s\n`,
  )
  console.log(table(results))
  console.log()
  console.log(
    JSON.stringify(
      { bench: 'core', machine, options: { ...opts, database: undefined }, totalSecs, results },
      (_k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(4)) : v),
    ),
  )
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
