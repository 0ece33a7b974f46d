/**
 * HTTP benchmark: the server over loopback on one scope of 10,000 memories.
 *
 * - Fills a fresh file database (temp dir) with `--size` LoCoMo-derived memories in batches of 100.
 * - Starts the real server (`startServer`, what `powercontext server run` calls) in a child process
 *   on 127.0.0.1, port 0, at its default log level (`info`, one JSON line per request, written to
 *   /dev/null here), so client and server do not share an event loop.
 * - search: `--queries` LoCoMo questions, limit 8, default mode (`auto`, which is fts here; every
 *   response is checked to say so), one keep-alive connection, after `--warmup` queries. For each
 *   question, in rotating order: POST /v1/memory/search, `runtime.search` in this process on the
 *   same database file, and the raw FTS5 floor with the MATCH expression the backend builds
 *   (`queryMatchExpression`: the planned terms). The HTTP and in-process hits are compared.
 * - remember: `--writes` single-entry requests each with 1 client and with 8 concurrent clients
 *   (8 keep-alive connections), new distinct texts; plus the same number of single-entry
 *   `runtime.remember` calls in-process as the baseline. The three run interleaved (8 rounds,
 *   rotating order). Memories/s (calls over the time spent in that mode) and per-call latency.
 *
 * Usage: `npm run bench:http [-- --size 10000 --queries 500 --warmup 50 --writes 2000]`.
 * Prints a table, then one JSON line with every figure.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

import { candidatePoolSize } from '../src/core/search-rules.js'
import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { SqliteMemoryBackend } from '../src/storage/sqlite/index.js'
import { queryMatchExpression } from '../src/storage/sqlite/sqlite-search.js'
import { parseFlags, positiveInt } from './bench-args.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { type ServerChild, startServerChild } from './bench-server.js'
import { f2, int, type Stats, stats } from './bench-stats.js'

const SCOPE = 'bench-http'
const BATCH = 100
const SEARCH_LIMIT = 8
const SEED = 1
const CLIENTS = [1, 8] as const
/** Write runs are interleaved in this many rounds (rotating order). */
const WRITE_ROUNDS = 8
/** The FTS5 floor: the backend's MATCH expression, bm25 order, no join, no re-check. */
const FLOOR_SQL =
  'SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts, 0.0, 1.0) LIMIT ?'

interface Options {
  readonly size: number
  readonly queries: number
  readonly warmup: number
  readonly writes: number
  readonly logLevel: string
}

interface WriteRun {
  readonly clients: number
  readonly calls: number
  readonly perSec: number
  readonly ms: Stats
}

function parseOptions(argv: readonly string[]): Options {
  const opts = { size: 10_000, queries: 500, warmup: 50, writes: 2000, logLevel: 'info' }
  parseFlags(argv, {
    '--size': (v, flag) => (opts.size = positiveInt(flag, v)),
    '--queries': (v, flag) => (opts.queries = positiveInt(flag, v)),
    '--warmup': (v, flag) => (opts.warmup = positiveInt(flag, v)),
    '--writes': (v, flag) => (opts.writes = positiveInt(flag, v)),
    '--log-level': (v) => (opts.logLevel = v ?? 'info'),
  })
  return opts
}

function progress(message: string): void {
  process.stderr.write(`[bench:http] ${message}\n`)
}

// ---------------------------------------------------------------------------------------------
// HTTP client
// ---------------------------------------------------------------------------------------------

function postJson(
  agent: http.Agent,
  url: URL,
  path: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const payload = Buffer.from(JSON.stringify(body))
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

interface WireSearch {
  readonly mode: string
  readonly hits: readonly { memory_ref: { artifact_id: string; revision: number } }[]
}

interface WireRemember {
  readonly results: readonly { status: string }[]
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

async function run(opts: Options) {
  const dir = mkdtempSync(join(os.tmpdir(), 'powercontext-bench-http-'))
  let server: ServerChild | undefined
  let runtime: MemoryRuntime | undefined
  try {
    const texts = memoryTexts(opts.size + 3 * opts.writes, SEED)
    runtime = await MemoryRuntime.open({ dataDir: dir })
    progress(`filling ${opts.size} memories in batches of ${BATCH}`)
    let created = 0
    for (let i = 0; i < opts.size; i += BATCH) {
      const r = await runtime.remember({
        scopeId: SCOPE,
        entries: texts
          .slice(i, Math.min(i + BATCH, opts.size))
          .map((text) => ({ kind: 'fact', text })),
      })
      created += r.results.filter((x) => x.status === 'created').length
    }
    if (created !== opts.size) throw new Error(`expected ${opts.size} memories, got ${created}`)

    const backend = runtime.backend
    if (!(backend instanceof SqliteMemoryBackend)) throw new Error('expected the SQLite backend')
    const db = backend.rawDatabase
    const sqliteVersion = db.prepare('SELECT sqlite_version()').pluck().get() as string
    const floorStmt = db.prepare(FLOOR_SQL)
    const candidateLimit = candidatePoolSize(SEARCH_LIMIT)

    progress(`starting the server (log level ${opts.logLevel})`)
    server = await startServerChild(dir, opts.logLevel)
    const url = server.url
    const searchAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })

    // Questions that plan to no term never reach FTS5 (the backend answers no hits); the floor
    // runs the very MATCH expression the backend plans.
    const questions = locomoQuestions(opts.queries + opts.warmup, SEED).flatMap((q) => {
      const match = queryMatchExpression(SCOPE, q.question)
      return match === undefined ? [] : [{ text: q.question, match }]
    })
    const warm = questions.slice(0, opts.warmup)
    const measured = questions.slice(opts.warmup)

    const rt = runtime
    const overHttp = async (query: string) => {
      const r = await postJson(searchAgent, url, '/v1/memory/search', {
        scope_id: SCOPE,
        query,
        limit: SEARCH_LIMIT,
      })
      const body = r.json as WireSearch
      if (r.status !== 200 || body.mode !== 'fts') throw new Error(`search answered ${r.status}`)
      return body.hits.map((h) => `${h.memory_ref.artifact_id}@${h.memory_ref.revision}`)
    }
    const inProcess = async (query: string) =>
      (await rt.search({ scopeId: SCOPE, query, limit: SEARCH_LIMIT })).hits.map(
        (h) => `${h.memoryRef.artifactId}@${h.memoryRef.revision}`,
      )
    const floor = (match: string): number => floorStmt.all(match, candidateLimit).length

    progress(`warm-up (${warm.length} queries)`)
    for (const q of warm) {
      await overHttp(q.text)
      await inProcess(q.text)
      floor(q.match)
    }

    progress(`measuring ${measured.length} queries`)
    const httpMs: number[] = []
    const runtimeMs: number[] = []
    const floorMs: number[] = []
    let hits = 0
    let sameHits = 0
    for (const [i, q] of measured.entries()) {
      let viaHttp: string[] = []
      let viaRuntime: string[] = []
      // Rotate the order of the three runs so none always profits from the others' cache.
      for (let k = 0; k < 3; k++) {
        const which = (i + k) % 3
        const t = performance.now()
        if (which === 0) viaHttp = await overHttp(q.text)
        else if (which === 1) viaRuntime = await inProcess(q.text)
        else floor(q.match)
        const ms = performance.now() - t
        ;(which === 0 ? httpMs : which === 1 ? runtimeMs : floorMs).push(ms)
      }
      hits += viaHttp.length
      if (viaHttp.join() === viaRuntime.join()) sameHits += 1
    }
    searchAgent.destroy()

    // Writes: new distinct texts, single-entry calls. The three modes run interleaved, in
    // WRITE_ROUNDS rounds of rotating order, so they share the machine's conditions (single-entry
    // writes wait for an fsync each, which other work on the machine slows down).
    let cursor = opts.size
    const nextText = (): string => texts[cursor++]!
    const modes = [
      { clients: 0, agent: undefined },
      ...CLIENTS.map((clients) => ({
        clients,
        agent: new http.Agent({ keepAlive: true, maxSockets: clients }),
      })),
    ]
    const spent = modes.map(() => 0)
    const latencies = modes.map((): number[] => [])
    const calls = modes.map(() => 0)
    progress(
      `remember: ${opts.writes} single-entry calls each in-process and over HTTP with ` +
        `${CLIENTS.join(' and ')} client(s), ${WRITE_ROUNDS} interleaved rounds`,
    )
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      const share =
        Math.floor(opts.writes / WRITE_ROUNDS) + (round < opts.writes % WRITE_ROUNDS ? 1 : 0)
      for (let k = 0; k < modes.length; k++) {
        const m = (round + k) % modes.length
        const { clients, agent } = modes[m]!
        let remaining = share
        const start = performance.now()
        await Promise.all(
          Array.from({ length: Math.max(1, clients) }, async () => {
            while (remaining > 0) {
              remaining -= 1
              const text = nextText()
              const t = performance.now()
              if (agent === undefined) {
                const r = await rt.remember({ scopeId: SCOPE, entries: [{ kind: 'fact', text }] })
                if (r.results[0]?.status !== 'created') throw new Error('remember did not create')
              } else {
                const r = await postJson(agent, url, '/v1/memory/remember', {
                  scope_id: SCOPE,
                  entries: [{ kind: 'fact', text }],
                })
                if (r.status !== 200 || (r.json as WireRemember).results[0]?.status !== 'created')
                  throw new Error(`remember answered ${r.status}: ${JSON.stringify(r.json)}`)
              }
              latencies[m]!.push(performance.now() - t)
            }
          }),
        )
        spent[m]! += performance.now() - start
        calls[m]! += share
      }
    }
    for (const { agent } of modes) agent?.destroy()
    const writeRun = (m: number): WriteRun => ({
      clients: Math.max(1, modes[m]!.clients),
      calls: calls[m]!,
      perSec: (calls[m]! * 1000) / spent[m]!,
      ms: stats(latencies[m]!),
    })
    const inProcessRun = writeRun(0)
    const httpRuns = CLIENTS.map((_, i) => writeRun(i + 1))

    const serverRssMb = await server.rssMb()
    const search = { http: stats(httpMs), runtime: stats(runtimeMs), floor: stats(floorMs) }
    return {
      sqliteVersion,
      search: {
        queries: measured.length,
        warmup: warm.length,
        limit: SEARCH_LIMIT,
        candidateLimit,
        httpMs: search.http,
        runtimeMs: search.runtime,
        floorMs: search.floor,
        httpOverRuntimeP50: search.http.p50 / search.runtime.p50,
        httpOverRuntimeP95: search.http.p95 / search.runtime.p95,
        httpMinusRuntimeP50Ms: search.http.p50 - search.runtime.p50,
        runtimeOverFloorP50: search.runtime.p50 / search.floor.p50,
        meanHits: hits / measured.length,
        sameHitsShare: sameHits / measured.length,
      },
      remember: { inProcess: inProcessRun, http: httpRuns },
      serverRssMb,
      clientRssMb: process.memoryUsage().rss / 2 ** 20,
    }
  } finally {
    await server?.stop()
    await runtime?.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

function table(r: Awaited<ReturnType<typeof run>>): string {
  const s = r.search
  const rows: [string, string, string][] = [
    ['search over HTTP (POST /v1/memory/search, keep-alive)', f2(s.httpMs.p50), f2(s.httpMs.p95)],
    ['runtime.search in-process', f2(s.runtimeMs.p50), f2(s.runtimeMs.p95)],
    ['raw FTS5 floor (same MATCH expression)', f2(s.floorMs.p50), f2(s.floorMs.p95)],
    ['HTTP / in-process', f2(s.httpOverRuntimeP50), f2(s.httpOverRuntimeP95)],
    ['in-process / floor', f2(s.runtimeOverFloorP50), f2(s.runtimeMs.p95 / s.floorMs.p95)],
  ]
  const writes: [string, string, string, string][] = [
    [
      'remember in-process, 1 caller',
      int(r.remember.inProcess.perSec),
      f2(r.remember.inProcess.ms.p50),
      f2(r.remember.inProcess.ms.p95),
    ],
    ...r.remember.http.map((w): [string, string, string, string] => [
      `remember over HTTP, ${w.clients} client${w.clients === 1 ? '' : 's'}`,
      int(w.perSec),
      f2(w.ms.p50),
      f2(w.ms.p95),
    ]),
  ]
  const render = (header: readonly string[], body: readonly (readonly string[])[]): string => {
    const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)))
    const line = (cells: readonly string[]): string =>
      `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`
    const rule = `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`
    return [line(header), rule, ...body.map(line)].join('\n')
  }
  return [
    render(['search, limit 8', 'p50 (ms)', 'p95 (ms)'], rows),
    '',
    render(['remember, single-entry calls', 'memories/s', 'p50 (ms)', 'p95 (ms)'], writes),
  ].join('\n')
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  const opts = parseOptions(argv)
  const started = performance.now()
  const loadBefore = os.loadavg()[0]!
  const result = await run(opts)
  const machine = {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sqlite: result.sqliteVersion,
    /** 1-minute load average before and after the run: other work on the machine skews figures. */
    load1: [loadBefore, os.loadavg()[0]!],
  }
  const totalSecs = (performance.now() - started) / 1000
  const s = result.search
  console.log(
    `\nHTTP benchmark: ${int(opts.size)} memories in one scope, server on 127.0.0.1 in a child ` +
      `process (log level ${opts.logLevel})\n` +
      `machine: ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGb} GB, ` +
      `Node ${machine.node}, SQLite ${machine.sqlite}; ` +
      `load average ${f2(machine.load1[0]!)} before, ${f2(machine.load1[1]!)} after\n` +
      `search: ${s.queries} LoCoMo questions after ${s.warmup} warm-up, mode auto (= fts), ` +
      `${f2(s.meanHits)} hits on average, HTTP and in-process hits identical for ` +
      `${f2(s.sameHitsShare * 100)} % of them; writes: ${opts.writes} per run; ` +
      `server RSS ${int(result.serverRssMb)} MB; total ${totalSecs.toFixed(0)} s\n`,
  )
  console.log(table(result))
  console.log()
  console.log(
    JSON.stringify({ bench: 'http', machine, options: opts, totalSecs, ...result }, (_k, v) =>
      typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(4)) : v,
    ),
  )
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
