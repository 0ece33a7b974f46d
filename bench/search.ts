/**
 * Search benchmark: fts, vector and hybrid search on the
 * embedded SQLite backend at 1k / 10k / 100k active memories in one scope, next to their floors.
 *
 * For each size, in a fresh child process (RSS per size) and a file database:
 * - fills the scope through `remember` (batches of 100) with the deterministic 384-dimension test
 *   embedder, so every memory has its vector (a test tool, not a semantic model: the figures are
 *   about speed, not quality);
 * - re-opens the database (open-to-ready, median of 5: extension load + probe included);
 * - times the first hybrid search after open (the scope's completeness check, then cached);
 * - runs `--queries` LoCoMo questions (limit 8) through `search` in modes fts, vector and hybrid,
 *   and on the same connection the raw floors: FTS5 with the very MATCH expression the backend
 *   plans (bm25 order, no join, no re-check) and sqlite-vec KNN on the scope's partition (k = the
 *   candidate pool, query vector precomputed); p50/p95 and the ratios of the targets:
 *   fts / FTS floor, hybrid / (FTS floor + KNN floor), p95 at 100k / p95 at 10k.
 *
 * Usage: `npm run bench:search [-- --sizes 1000,10000,100000 --queries 200 --warmup 30
 * --mmap 536870912 --data <dir> --ann false]` (`--data` keeps and reuses the filled databases
 * there; `--ann false` searches vectors exactly at every size).
 */
import { fork } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { candidatePoolSize } from '../src/core/search-rules.js'
import { DeterministicEmbedder } from '../src/runtime/embedder.js'
import type { SearchMode } from '../src/storage/spi/memory-backend.js'
import { SqliteMemoryBackend } from '../src/storage/sqlite/sqlite-memory-backend.js'
import { queryMatchExpression } from '../src/storage/sqlite/sqlite-search.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { f2, type Stats as FullStats, stats } from './bench-stats.js'

const SCOPE = 'bench-search'
const DIMENSION = 384
const BATCH = 100
const LIMIT = 8
const OPEN_REPEATS = 5
const SEED = 1
const FTS_FLOOR_SQL =
  'SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts, 0.0, 1.0) LIMIT ?'
const KNN_FLOOR_SQL =
  'SELECT rowid, distance FROM memory_vec WHERE embedding MATCH ? AND k = ? AND scope_id = ?'

/** The figures this benchmark records for a latency series. */
type Stats = Pick<FullStats, 'p50' | 'p95'>

interface Options {
  sizes: number[]
  queries: number
  warmup: number
  mmap: number
  data: string | undefined
  ann: boolean
}

interface SizeResult {
  readonly size: number
  readonly fillSecs: number | null
  readonly openMs: number
  readonly firstHybridMs: number
  readonly ms: Readonly<Record<'fts' | 'vector' | 'hybrid' | 'ftsFloor' | 'knnFloor', Stats>>
  readonly modesUsed: Readonly<Record<string, number>>
  /** How vector candidates were found: the scope's HNSW graph (with its build time) or exact KNN. */
  readonly vectorPath: {
    readonly graph: boolean
    readonly loaded: boolean
    readonly buildSecs: number | null
  }
  /** Share of exact-KNN vector hits (same queries, `vectorAnn: false`) that the search returned. */
  readonly vectorRecall: number
  readonly meanHits: Readonly<Record<'fts' | 'vector' | 'hybrid', number>>
  readonly rssMb: number
}

function parseOptions(argv: readonly string[]): Options {
  const opts: Options = {
    sizes: [1_000, 10_000, 100_000],
    queries: 200,
    warmup: 30,
    mmap: 512 * 1024 * 1024,
    data: undefined,
    ann: true,
  }
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.includes('=') ? argv[i]!.split('=', 2) : [argv[i]!, undefined]
    const value = (): string => {
      const v = inline ?? argv[++i]
      if (v === undefined) throw new Error(`${flag} needs a value`)
      return v
    }
    const int = (): number => {
      const n = Number(value())
      if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer`)
      return n
    }
    if (flag === '--sizes') opts.sizes = value().split(',').map(Number)
    else if (flag === '--queries') opts.queries = Math.max(1, int())
    else if (flag === '--warmup') opts.warmup = int()
    else if (flag === '--mmap') opts.mmap = int()
    else if (flag === '--ann') opts.ann = value() !== 'false'
    else if (flag === '--data') opts.data = value()
    else throw new Error(`unknown argument ${argv[i]}`)
  }
  return opts
}

const progress = (m: string): void => void process.stderr.write(`[bench:search] ${m}\n`)

async function fill(database: string, size: number, embedder: DeterministicEmbedder) {
  const backend = await SqliteMemoryBackend.open({ database, embedder })
  const texts = memoryTexts(size, SEED)
  const started = performance.now()
  for (let i = 0; i < size; i += BATCH) {
    await backend.remember({
      scopeId: SCOPE,
      entries: texts.slice(i, i + BATCH).map((text) => ({ kind: 'fact', text })),
    })
    if ((i / BATCH) % 100 === 0) progress(`${size}: filled ${i}`)
  }
  const secs = (performance.now() - started) / 1000
  const report = await backend.verify()
  if (report.counts.heads !== size || report.counts.missingVectors !== 0) {
    throw new Error(`fill incomplete: ${JSON.stringify(report.counts)}`)
  }
  await backend.close()
  return secs
}

async function runSize(size: number, opts: Options): Promise<SizeResult> {
  const dir = opts.data ?? mkdtempSync(join(os.tmpdir(), 'powercontext-bench-search-'))
  mkdirSync(dir, { recursive: true })
  const database = join(dir, `search-${size}.db`)
  const embedder = new DeterministicEmbedder(DIMENSION, 'bench-deterministic-384')
  try {
    const fillSecs = existsSync(database) ? null : await fill(database, size, embedder)
    const open = (ann = opts.ann) =>
      SqliteMemoryBackend.open({
        database,
        embedder,
        mmapSizeBytes: opts.mmap,
        ...(ann ? {} : { vectorAnn: false as const }),
      })
    const opens: number[] = []
    for (let i = 0; i < OPEN_REPEATS; i++) {
      const t = performance.now()
      await (await open()).close()
      opens.push(performance.now() - t)
    }
    const backend = await open()
    const db = backend.rawDatabase
    const pool = candidatePoolSize(LIMIT)
    const questions = locomoQuestions(opts.queries, SEED).flatMap((q) => {
      const match = queryMatchExpression(SCOPE, q.question)
      return match === undefined ? [] : [{ text: q.question, match }]
    })
    const t0 = performance.now()
    const first = await backend.search({
      scopeId: SCOPE,
      query: questions[0]!.text,
      mode: 'hybrid',
    })
    const firstHybridMs = performance.now() - t0
    if (first.mode !== 'hybrid') throw new Error('the projection is not complete')
    // A scope large enough gets its HNSW graph in the background; measure once it is ready.
    progress(`${size}: waiting for the vector graph (if any)`)
    const ann = await backend.annStatus()
    if (ann.lastError !== null) throw new Error(`vector graph failed: ${ann.lastError}`)
    const graph = ann.scopes[SCOPE]
    const vectorPath = {
      graph: graph?.state === 'ready',
      loaded: graph?.loaded === true,
      buildSecs: graph?.buildMs == null ? null : graph.buildMs / 1000,
    }

    const ftsFloor = db.prepare(FTS_FLOOR_SQL)
    const knnFloor = db.prepare(KNN_FLOOR_SQL)
    const vectors = questions.map((q) => new Float32Array(embedder.embedSync(q.text)))
    const modesUsed: Record<string, number> = {}
    const hits = { fts: 0, vector: 0, hybrid: 0 }
    const vectorHits: string[][] = []
    const run = async (kind: string, i: number): Promise<void> => {
      const q = questions[i]!
      if (kind === 'ftsFloor') ftsFloor.all(q.match, pool)
      else if (kind === 'knnFloor') knnFloor.all(vectors[i], pool, SCOPE)
      else {
        const mode = kind as SearchMode & keyof typeof hits
        const r = await backend.search({ scopeId: SCOPE, query: q.text, mode, limit: LIMIT })
        modesUsed[`${mode}->${r.mode}`] = (modesUsed[`${mode}->${r.mode}`] ?? 0) + 1
        hits[mode] += r.hits.length
        if (mode === 'vector') vectorHits[i] = r.hits.map((h) => h.memoryRef.artifactId)
      }
    }
    const kinds = ['fts', 'vector', 'hybrid', 'ftsFloor', 'knnFloor'] as const
    progress(`${size}: warm-up ${Math.min(opts.warmup, questions.length)} queries`)
    for (let i = 0; i < Math.min(opts.warmup, questions.length); i++) {
      for (const k of kinds) await run(k, i)
    }
    hits.fts = hits.vector = hits.hybrid = 0
    for (const key of Object.keys(modesUsed)) modesUsed[key] = 0
    progress(`${size}: measuring ${questions.length} queries`)
    const samples = Object.fromEntries(kinds.map((k) => [k, [] as number[]])) as Record<
      (typeof kinds)[number],
      number[]
    >
    for (let i = 0; i < questions.length; i++) {
      // Rotate the order so that no kind always profits from the others' warm caches.
      for (let j = 0; j < kinds.length; j++) {
        const kind = kinds[(i + j) % kinds.length]!
        const t = performance.now()
        await run(kind, i)
        samples[kind].push(performance.now() - t)
      }
    }
    await backend.close()
    progress(`${size}: exact vector search for recall`)
    const exact = await open(false)
    let found = 0
    let expected = 0
    for (const [i, q] of questions.entries()) {
      const r = await exact.search({ scopeId: SCOPE, query: q.text, mode: 'vector', limit: LIMIT })
      const got = new Set(vectorHits[i])
      expected += r.hits.length
      found += r.hits.filter((h) => got.has(h.memoryRef.artifactId)).length
    }
    await exact.close()
    const n = questions.length
    return {
      size,
      fillSecs,
      openMs: stats(opens).p50,
      firstHybridMs,
      ms: {
        fts: stats(samples.fts),
        vector: stats(samples.vector),
        hybrid: stats(samples.hybrid),
        ftsFloor: stats(samples.ftsFloor),
        knnFloor: stats(samples.knnFloor),
      },
      modesUsed,
      vectorPath,
      vectorRecall: expected === 0 ? 1 : found / expected,
      meanHits: { fts: hits.fts / n, vector: hits.vector / n, hybrid: hits.hybrid / n },
      rssMb: process.memoryUsage().rss / 2 ** 20,
    }
  } finally {
    if (opts.data === undefined) rmSync(dir, { recursive: true, force: true })
  }
}

function runChild(size: number, opts: Options): Promise<SizeResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify({ size, opts })])
    let result: SizeResult | undefined
    child.on('message', (m) => (result = m as SizeResult))
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0 && result !== undefined
        ? resolve(result)
        : reject(new Error(`bench child for ${size} exited with code ${code}`)),
    )
  })
}

const pair = (s: Stats): string => `${f2(s.p50)} / ${f2(s.p95)}`
const ratio = (a: Stats, b: Stats): string => `${f2(a.p50 / b.p50)} / ${f2(a.p95 / b.p95)}`
const sum = (a: Stats, b: Stats): Stats => ({ p50: a.p50 + b.p50, p95: a.p95 + b.p95 })

function table(results: readonly SizeResult[]): string {
  const rows: [string, (r: SizeResult) => string][] = [
    [
      'fill through remember ×100 (s)',
      (r) => (r.fillSecs === null ? 'reused' : r.fillSecs.toFixed(1)),
    ],
    ['open-to-ready (ms, median of 5)', (r) => f2(r.openMs)],
    ['first hybrid search after open (ms)', (r) => f2(r.firstHybridMs)],
    [
      'vector candidates from',
      (r) =>
        !r.vectorPath.graph
          ? 'exact KNN'
          : r.vectorPath.loaded
            ? 'HNSW graph, loaded (saved earlier)'
            : `HNSW graph, built in ${r.vectorPath.buildSecs?.toFixed(1) ?? '?'} s`,
    ],
    ['vector hits also found by exact KNN', (r) => `${(r.vectorRecall * 100).toFixed(1)} %`],
    ['search fts: p50 / p95 (ms)', (r) => pair(r.ms.fts)],
    ['search vector: p50 / p95 (ms)', (r) => pair(r.ms.vector)],
    ['search hybrid: p50 / p95 (ms)', (r) => pair(r.ms.hybrid)],
    ['floor raw FTS5: p50 / p95 (ms)', (r) => pair(r.ms.ftsFloor)],
    ['floor raw sqlite-vec KNN: p50 / p95 (ms)', (r) => pair(r.ms.knnFloor)],
    ['fts / FTS floor: p50 / p95', (r) => ratio(r.ms.fts, r.ms.ftsFloor)],
    ['vector / KNN floor: p50 / p95', (r) => ratio(r.ms.vector, r.ms.knnFloor)],
    [
      'hybrid / (FTS + KNN floors): p50 / p95',
      (r) => ratio(r.ms.hybrid, sum(r.ms.ftsFloor, r.ms.knnFloor)),
    ],
    [
      'hits per search fts / vector / hybrid',
      (r) => `${f2(r.meanHits.fts)} / ${f2(r.meanHits.vector)} / ${f2(r.meanHits.hybrid)}`,
    ],
    ['RSS after run (MB)', (r) => r.rssMb.toFixed(1)],
  ]
  const header = ['', ...results.map((r) => `${r.size.toLocaleString('en')} memories`)]
  const body = rows.map(([label, cell]) => [label, ...results.map(cell)])
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)))
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((x, c) => (c === 0 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!))).join(' | ')} |`
  const rule = `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`
  return [line(header), rule, ...body.map(line)].join('\n')
}

function scaling(results: readonly SizeResult[]): string {
  const at = (n: number) => results.find((r) => r.size === n)
  const big = at(100_000)
  const mid = at(10_000)
  if (big === undefined || mid === undefined) return ''
  const parts = (['fts', 'vector', 'hybrid'] as const).map(
    (m) => `${m} ${f2(big.ms[m].p95 / mid.ms[m].p95)}×`,
  )
  return `p95 at 100k / p95 at 10k: ${parts.join(', ')}`
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
  const load = [os.loadavg()[0]!]
  const results: SizeResult[] = []
  for (const size of opts.sizes) results.push(await runChild(size, opts))
  load.push(os.loadavg()[0]!)
  const machine = `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`
  console.log(
    `\nSearch benchmark: SQLite + sqlite-vec, one scope, file database, limit ${LIMIT}, ` +
      `${DIMENSION}-dim deterministic vectors, mmap_size ${opts.mmap}\n` +
      `machine: ${machine}; load average ${f2(load[0]!)} before, ${f2(load[1]!)} after; ` +
      `${opts.queries} LoCoMo questions, warm-up ${opts.warmup}\n`,
  )
  console.log(table(results))
  console.log(`\n${scaling(results)}\n`)
  console.log(JSON.stringify({ bench: 'search', options: opts, machine, load, results }))
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
