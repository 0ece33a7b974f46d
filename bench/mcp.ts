/**
 * MCP benchmark: `search_memory` against the official MCP memory server's
 * `search_nodes`, as an agent host calls them.
 *
 * For each of `--sizes` (default 1,000 and 10,000), a fresh file database (temp dir) holds that
 * many LoCoMo-derived memories in one scope, and `@modelcontextprotocol/server-memory` gets the
 * same texts in its JSONL file, one entity (`memory-<n>`, type `memory`) with one observation per
 * memory.
 *
 * 1. Server side, in-process on that database (`buildApp` with `/mcp`, `app.inject`, no socket):
 *    `POST /v1/memory/search` beside the same search as a `tools/call search_memory` POST to
 *    `/mcp`, interleaved; `/mcp` minus REST, per question, is what the MCP surface adds.
 * 2. Clients, one MCP SDK `Client` each, every question through all four in rotating order:
 *    ours over Streamable HTTP (`/mcp` of the real server in a child process, log level
 *    `--log-level`), ours through the stdio proxy (`powercontext mcp --server-url …`, the built
 *    binary), ours embedded (`powercontext mcp --data-dir …` on the same data directory, no
 *    server between), and `server-memory` spawned over stdio. Limit 8; p50/p95, the share of
 *    queries with at least one result, the ratios to `search_nodes`, and each process's RSS
 *    afterwards.
 * Both are measured in two windows of `--queries` LoCoMo questions each: the first calls (after
 * `--warmup`), as a freshly started process answers them, and the steady state (from call
 * `--steady-after` on, 0 for none), as a long-running server answers them once V8 has optimised
 * its code — a search runs through far more code than `search_nodes`, and its first few hundred
 * calls are up to twice as slow. Every target gets the same calls in both windows.
 * Then the starts, on the first size's database: `--starts` rounds of spawn → `initialize`
 * answered for the proxy and the embedded form (beside `node -e 0`, the floor of starting Node
 * at all), and their RSS right after.
 *
 * Usage: `npm run build && npm run bench:mcp [-- --sizes 1000,10000 --queries 300 --warmup 30
 * --steady-after 1000 --starts 20 --log-level info]`. Prints tables, then one JSON line with every figure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

import { buildApp } from '../src/http/app.js'
import { mcpPlugin } from '../src/mcp/mcp-plugin.js'
import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { parseFlags, positiveInt } from './bench-args.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { type ServerChild, startServerChild } from './bench-server.js'
import { f1, f2, ownCpuMs, type Stats, stats, timed, type Timing } from './bench-stats.js'
import { cpuMsOf, rssMbOf, stdioStarts } from './mcp-starts.js'
import { LIMIT, SCOPE, type Target, targets, THEIRS } from './mcp-targets.js'

const BATCH = 100
const SEED = 1
const MCP_ACCEPT = 'application/json, text/event-stream'

interface Options {
  sizes: number[]
  queries: number
  warmup: number
  steadyAfter: number
  starts: number
  logLevel: string
}

/** A measured window of calls: `[from, from + count)` of each target's call sequence. */
interface Window {
  readonly name: 'first' | 'steady'
  readonly from: number
  readonly title: string
}

function windowsOf(opts: Options): Window[] {
  const first: Window = {
    name: 'first',
    from: opts.warmup,
    title: `first calls: ${opts.queries} after ${opts.warmup} warm-up`,
  }
  if (opts.steadyAfter === 0) return [first]
  const title = `steady state: ${opts.queries} after ${opts.steadyAfter.toLocaleString('en')}`
  return [first, { name: 'steady', from: opts.steadyAfter, title }]
}

/** The window call `i` is measured in, if any. */
const windowAt = (windows: readonly Window[], queries: number, i: number) =>
  windows.findIndex((w) => i >= w.from && i < w.from + queries)

function parseOptions(argv: readonly string[]): Options {
  const opts: Options = {
    sizes: [1000, 10_000],
    queries: 300,
    warmup: 30,
    steadyAfter: 1000,
    starts: 20,
    logLevel: 'info',
  }
  parseFlags(argv, {
    '--sizes': (v, flag) => (opts.sizes = (v ?? '').split(',').map((s) => positiveInt(flag, s))),
    '--queries': (v, flag) => (opts.queries = positiveInt(flag, v)),
    '--warmup': (v, flag) => (opts.warmup = positiveInt(flag, v)),
    '--steady-after': (v, flag) => (opts.steadyAfter = v === '0' ? 0 : positiveInt(flag, v)),
    '--starts': (v, flag) => (opts.starts = positiveInt(flag, v)),
    '--log-level': (v) => (opts.logLevel = v ?? 'info'),
  })
  if (opts.steadyAfter !== 0 && opts.steadyAfter < opts.warmup + opts.queries)
    throw new Error('--steady-after must be 0 or at least --warmup + --queries')
  return opts
}

const progress = (message: string): void => void process.stderr.write(`[bench:mcp] ${message}\n`)

/** Fills the database and the JSONL file with the same `size` texts. */
async function fill(dataDir: string, jsonl: string, size: number): Promise<void> {
  const texts = memoryTexts(size, SEED)
  const runtime = await MemoryRuntime.open({ dataDir })
  try {
    for (let i = 0; i < texts.length; i += BATCH) {
      await runtime.remember({
        scopeId: SCOPE,
        entries: texts.slice(i, i + BATCH).map((text) => ({ kind: 'fact', text })),
      })
    }
  } finally {
    await runtime.close()
  }
  const entity = (text: string, n: number) =>
    JSON.stringify({
      type: 'entity',
      name: `memory-${n}`,
      entityType: 'memory',
      observations: [text],
    })
  writeFileSync(jsonl, `${texts.map(entity).join('\n')}\n`)
}

/**
 * The index upkeep a running server does within seconds of starting (full-text compaction,
 * `startIndexMaintenance`): measured as a server serves, not as a file freshly written.
 */
async function afterIndexUpkeep(runtime: MemoryRuntime): Promise<void> {
  let guard: NodeJS.Timeout | undefined
  await new Promise<void>((resolve, reject) => {
    // The upkeep's own timer does not hold the process open; this one does (and bounds the wait).
    guard = setTimeout(() => reject(new Error('no index upkeep within 30 s')), 30_000)
    runtime.startIndexMaintenance({ onDone: () => resolve(), onError: reject })
  }).finally(() => clearTimeout(guard))
}

/** REST search and the same search over `/mcp`, in-process (`inject`), interleaved. */
async function serverSide(
  dataDir: string,
  questions: readonly string[],
  windows: readonly Window[],
  queries: number,
) {
  const runtime = await MemoryRuntime.open({ dataDir })
  await afterIndexUpkeep(runtime)
  const app = buildApp({ slot: { current: runtime }, plugins: [mcpPlugin], console: false })
  await app.ready()
  const rest: Timing[] = windows.map(() => ({ ms: [], cpu: [] }))
  const mcp: Timing[] = windows.map(() => ({ ms: [], cpu: [] }))
  const unused: Timing = { ms: [], cpu: [] }
  try {
    for (const [i, query] of questions.entries()) {
      const w = windowAt(windows, queries, i)
      const args = { scope_id: SCOPE, query, limit: LIMIT }
      const viaRest = async () => {
        const r = await timed(rest[w] ?? unused, w >= 0, () =>
          app.inject({ method: 'POST', url: '/v1/memory/search', payload: args }),
        )
        if (r.statusCode !== 200) throw new Error(`REST search answered ${r.statusCode}`)
      }
      const viaMcp = async () => {
        const r = await timed(mcp[w] ?? unused, w >= 0, () =>
          app.inject({
            method: 'POST',
            url: '/mcp',
            headers: { accept: MCP_ACCEPT },
            payload: {
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'search_memory', arguments: args },
            },
          }),
        )
        if (r.statusCode !== 200 || r.json<{ result?: { isError?: boolean } }>().result?.isError)
          throw new Error(`/mcp search failed: ${r.body.slice(0, 200)}`)
      }
      if (i % 2 === 0) await viaRest().then(viaMcp)
      else await viaMcp().then(viaRest)
    }
  } finally {
    await app.close()
    await runtime.close()
  }
  // Both lists of a window are in question order: the per-question difference leaves out how
  // much the questions' own costs differ, which the difference of two p50s does not.
  const minus = (a: readonly number[], b: readonly number[]) => a.map((x, j) => x - b[j]!)
  return windows.map((_w, k) => ({
    rest: stats(rest[k]!.ms),
    mcp: stats(mcp[k]!.ms),
    restCpu: stats(rest[k]!.cpu),
    mcpCpu: stats(mcp[k]!.cpu),
    added: stats(minus(mcp[k]!.ms, rest[k]!.ms)),
    addedCpu: stats(minus(mcp[k]!.cpu, rest[k]!.cpu)),
  }))
}

interface ClientFigures {
  readonly name: string
  readonly ms: Stats
  /** Mean CPU time per query, ms: this process (the client) and the ones in `pids`. */
  readonly cpuMs: number
  /** The part of `cpuMs` spent in this process (the MCP SDK client, and fetch over HTTP). */
  readonly clientCpuMs: number
  readonly resultShare: number
  readonly rssMb: number
}

/** What one window's calls of one target add up to. */
interface Tally {
  readonly ms: number[]
  cpu: number
  clientCpu: number
  withResult: number
}

/**
 * Every question through every target, in rotating order; wall time and CPU time per call, per
 * window. Figures per window, each a list in target order.
 */
async function clientSide(
  server: ServerChild,
  dataDir: string,
  jsonl: string,
  questions: string[],
  windows: readonly Window[],
  queries: number,
) {
  const all = await targets(server, dataDir, jsonl)
  const tallies = windows.map(() =>
    all.map((): Tally => ({ ms: [], cpu: 0, clientCpu: 0, withResult: 0 })),
  )
  const cpuOf = (t: Target) => t.pids().reduce((sum, pid) => sum + cpuMsOf(pid), 0)
  try {
    for (const [i, query] of questions.entries()) {
      const w = windowAt(windows, queries, i)
      for (let k = 0; k < all.length; k++) {
        const n = (i + k) % all.length
        const target = all[n]!
        const others = cpuOf(target)
        const [started, own] = [performance.now(), ownCpuMs()]
        const found = await target.call(query)
        const [ms, ownMs] = [performance.now() - started, ownCpuMs() - own]
        if (w < 0) continue
        const tally = tallies[w]![n]!
        tally.ms.push(ms)
        tally.cpu += ownMs + cpuOf(target) - others
        tally.clientCpu += ownMs
        if (found) tally.withResult++
      }
    }
    const rss = all.map((t) => rssMbOf(t.pid()))
    return tallies.map((window) =>
      window.map((t, k): ClientFigures => ({
        name: all[k]!.name,
        ms: stats(t.ms),
        cpuMs: t.cpu / queries,
        clientCpuMs: t.clientCpu / queries,
        resultShare: t.withResult / queries,
        rssMb: rss[k]!,
      })),
    )
  } finally {
    for (const t of all) await t.client.close()
  }
}

const serverCells = (ms: Stats, cpu: Stats) => [f2(ms.p50), f2(ms.p95), f2(cpu.p50)]

const row = (name: string, ...cells: string[]) =>
  `${name.padEnd(36)} ${cells.map((c) => c.padStart(9)).join(' ')}`

type ServerFigures = Awaited<ReturnType<typeof serverSide>>[number]

/** One window's table of one size. */
function windowTable(
  title: string,
  clients: readonly ClientFigures[],
  server: ServerFigures,
): string[] {
  const theirs = clients.find((c) => c.name === THEIRS)!
  return [
    title,
    row('', 'p50 ms', 'p95 ms', 'CPU ms', 'client', 'results', 'RSS MB', 'p50 ×', 'CPU ×'),
    ...clients.map((c) =>
      row(
        c.name,
        f2(c.ms.p50),
        f2(c.ms.p95),
        f2(c.cpuMs),
        f2(c.clientCpuMs),
        f2(c.resultShare),
        f1(c.rssMb),
        f2(c.ms.p50 / theirs.ms.p50),
        f2(c.cpuMs / theirs.cpuMs),
      ),
    ),
    row('server side: REST search (inject)', ...serverCells(server.rest, server.restCpu)),
    row('server side: /mcp search (inject)', ...serverCells(server.mcp, server.mcpCpu)),
    `/mcp − REST per question: p50 ${f2(server.added.p50)} ms, CPU p50 ` +
      `${f2(server.addedCpu.p50)} ms (target ≤ 0.3); p50 − p50 ${f2(server.mcp.p50 - server.rest.p50)} ms`,
  ]
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2))
  const windows = windowsOf(opts)
  const calls = Math.max(...windows.map((w) => w.from)) + opts.queries
  const load = [os.loadavg()[0]!]
  const out: string[] = []
  const sizes = []
  let starts: Awaited<ReturnType<typeof stdioStarts>> | undefined
  for (const size of opts.sizes) {
    const dir = mkdtempSync(join(os.tmpdir(), 'powercontext-bench-mcp-'))
    try {
      const dataDir = join(dir, 'data')
      const jsonl = join(dir, 'memory.jsonl')
      progress(`${size}: filling the database and the JSONL file`)
      await fill(dataDir, jsonl, size)
      const questions = locomoQuestions(calls, SEED).map((q) => q.question)
      progress(`${size}: server side, REST beside /mcp, ${calls} calls each`)
      const server = await serverSide(dataDir, questions, windows, opts.queries)
      const child = await startServerChild(dataDir, opts.logLevel)
      try {
        progress(`${size}: clients (HTTP, stdio proxy, embedded stdio, server-memory), interleaved`)
        const clients = await clientSide(child, dataDir, jsonl, questions, windows, opts.queries)
        const serverRssMb = await child.rssMb()
        if (starts === undefined) {
          progress(`stdio starts: ${opts.starts} rounds beside node -e 0`)
          starts = await stdioStarts(child.url, dataDir, opts.starts)
        }
        sizes.push({
          size,
          serverRssMb,
          windows: windows.map((w, k) => ({ ...w, server: server[k]!, clients: clients[k]! })),
        })
        out.push(
          ...windows.flatMap((w, k) =>
            windowTable(
              `\n${size.toLocaleString('en')} memories, ${w.title}`,
              clients[k]!,
              server[k]!,
            ),
          ),
          `server RSS ${f1(serverRssMb)} MB`,
        )
      } finally {
        await child.stop()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  load.push(os.loadavg()[0]!)
  if (starts !== undefined)
    out.push(
      '\nstdio start (spawn → initialize answered)',
      row('', 'p50 ms', 'p95 ms', 'CPU ms', 'RSS MB'),
      ...(
        [
          ['powercontext mcp --server-url', starts.proxy],
          ['powercontext mcp --data-dir', starts.embedded],
        ] as const
      ).map(([name, s]) => row(name, f2(s.ms.p50), f2(s.ms.p95), f1(s.cpuMs.p50), f1(s.rssMb.p50))),
      row('node -e 0 (floor, spawn → exit)', f2(starts.floor.p50), f2(starts.floor.p95)),
      `proxy start p50 ${f1(starts.proxy.ms.p50)} ms (target ≤ 150), RSS then p50 ` +
        `${f1(starts.proxy.rssMb.p50)} MB (target < 60)`,
    )
  const header = `node ${process.version}, ${os.cpus().length} cores, load average ${load.map(f2).join(' → ')}; limit ${LIMIT}`
  process.stdout.write(`${header}\n${out.join('\n')}\n`)
  const round = (_k: string, v: unknown): unknown =>
    typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(4)) : v
  process.stdout.write(
    `${JSON.stringify({ bench: 'mcp', options: opts, node: process.version, load, sizes, starts }, round)}\n`,
  )
}

await main()
