/**
 * MCP benchmark (issue 11): `search_memory` against the official MCP memory server's
 * `search_nodes`, as an agent host calls them.
 *
 * For each of `--sizes` (default 1,000 and 10,000), a fresh file database (temp dir) holds that
 * many LoCoMo-derived memories in one scope, and `@modelcontextprotocol/server-memory` gets the
 * same texts in its JSONL file, one entity (`memory-<n>`, type `memory`) with one observation per
 * memory.
 *
 * 1. Server side, in-process on that database (`buildApp` with `/mcp`, `app.inject`, no socket):
 *    `POST /v1/memory/search` beside the same search as a `tools/call search_memory` POST to
 *    `/mcp`, interleaved, after `--warmup`; `/mcp` minus REST is what the MCP surface adds.
 * 2. Clients, one MCP SDK `Client` each, every question through all four in rotating order:
 *    ours over Streamable HTTP (`/mcp` of the real server in a child process, log level
 *    `--log-level`), ours through the stdio proxy (`powercontext mcp --server-url …`, the built
 *    binary), ours embedded (`powercontext mcp --data-dir …` on the same data directory, no
 *    server between), and `server-memory` spawned over stdio. `--queries` LoCoMo questions after
 *    `--warmup`, limit 8; p50/p95, the share of queries with at least one result, the ratios to
 *    `search_nodes`, and each process's RSS afterwards.
 * Then the starts, on the first size's database: `--starts` rounds of spawn → `initialize`
 * answered for the proxy and the embedded form (beside `node -e 0`, the floor of starting Node
 * at all), and their RSS right after.
 *
 * Usage: `npm run build && npm run bench:mcp [-- --sizes 1000,10000 --queries 300 --warmup 30
 * --starts 20 --log-level info]`. Prints tables, then one JSON line with every figure.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

import { initializeRequest } from '../harness/mcp-messages.js'
import { buildApp } from '../src/http/app.js'
import { mcpPlugin } from '../src/mcp/mcp-plugin.js'
import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { parseFlags, positiveInt } from './bench-args.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { type ServerChild, startServerChild } from './bench-server.js'
import { f1, f2, ownCpuMs, type Stats, stats, timed, type Timing } from './bench-stats.js'

const SCOPE = 'bench-mcp'
const LIMIT = 8
const BATCH = 100
const SEED = 1
const BIN = fileURLToPath(new URL('../bin/powercontext.js', import.meta.url))
const MCP_ACCEPT = 'application/json, text/event-stream'
/** The client row the ratios are taken against. */
const THEIRS = 'server-memory search_nodes'

interface Options {
  sizes: number[]
  queries: number
  warmup: number
  starts: number
  logLevel: string
}

function parseOptions(argv: readonly string[]): Options {
  const opts: Options = {
    sizes: [1000, 10_000],
    queries: 300,
    warmup: 30,
    starts: 20,
    logLevel: 'info',
  }
  parseFlags(argv, {
    '--sizes': (v, flag) => (opts.sizes = (v ?? '').split(',').map((s) => positiveInt(flag, s))),
    '--queries': (v, flag) => (opts.queries = positiveInt(flag, v)),
    '--warmup': (v, flag) => (opts.warmup = positiveInt(flag, v)),
    '--starts': (v, flag) => (opts.starts = positiveInt(flag, v)),
    '--log-level': (v) => (opts.logLevel = v ?? 'info'),
  })
  return opts
}

const progress = (message: string): void => void process.stderr.write(`[bench:mcp] ${message}\n`)

/** Where the official memory server's entry point is (its package `bin`). */
function serverMemoryEntry(): string {
  const require = createRequire(import.meta.url)
  const pkgPath = require.resolve('@modelcontextprotocol/server-memory/package.json')
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: Record<string, string> }
  return join(dirname(pkgPath), pkg.bin['mcp-server-memory']!)
}

/** Resident set size of a process, MB (Linux `/proc`). */
function rssMbOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m === null ? Number.NaN : Number(m[1]) / 1024
}

/** CPU time (user + system) a process has used so far, ms, from `/proc` (10 ms clock ticks). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

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
async function serverSide(dataDir: string, questions: readonly string[], warmup: number) {
  const runtime = await MemoryRuntime.open({ dataDir })
  await afterIndexUpkeep(runtime)
  const app = buildApp({ slot: { current: runtime }, plugins: [mcpPlugin], console: false })
  await app.ready()
  const rest: Timing = { ms: [], cpu: [] }
  const mcp: Timing = { ms: [], cpu: [] }
  try {
    for (const [i, query] of questions.entries()) {
      const args = { scope_id: SCOPE, query, limit: LIMIT }
      const viaRest = async () => {
        const r = await timed(rest, i >= warmup, () =>
          app.inject({ method: 'POST', url: '/v1/memory/search', payload: args }),
        )
        if (r.statusCode !== 200) throw new Error(`REST search answered ${r.statusCode}`)
      }
      const viaMcp = async () => {
        const r = await timed(mcp, i >= warmup, () =>
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
  return {
    rest: stats(rest.ms),
    mcp: stats(mcp.ms),
    restCpu: stats(rest.cpu),
    mcpCpu: stats(mcp.cpu),
  }
}

interface Target {
  readonly name: string
  readonly client: Client
  /** Its own process (RSS), if it has one. */
  readonly pid: () => number | undefined
  /** The processes besides this one that work on its calls (CPU time). */
  readonly pids: () => number[]
  call(query: string): Promise<boolean>
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: 'bench-mcp', version: '0.0.0' })
  await client.connect(transport)
  await client.listTools() // as a host does; the client then checks results against the schemas
  return client
}

/** One result list's length out of a tool result, or an error when the call failed. */
function count(result: Awaited<ReturnType<Client['callTool']>>, key: string): number {
  const body = result.structuredContent as Record<string, unknown[]> | undefined
  if (result.isError === true || !Array.isArray(body?.[key]))
    throw new Error(`tool call failed: ${JSON.stringify(result).slice(0, 200)}`)
  return body[key].length
}

async function targets(server: ServerChild, dataDir: string, jsonl: string): Promise<Target[]> {
  const search = (client: Client) => async (query: string) => {
    const args = { scope_id: SCOPE, query, limit: LIMIT }
    return count(await client.callTool({ name: 'search_memory', arguments: args }), 'hits') > 0
  }
  const stdio = (args: string[], env: Record<string, string> = {}) =>
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...getDefaultEnvironment(), ...env },
      stderr: 'ignore',
    })
  const http = await connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url)))
  const proxyTransport = stdio([BIN, 'mcp', '--server-url', server.url.href])
  const proxy = await connect(proxyTransport)
  const embeddedTransport = stdio([BIN, 'mcp', '--data-dir', dataDir])
  const embedded = await connect(embeddedTransport)
  const memoryTransport = stdio([serverMemoryEntry()], { MEMORY_FILE_PATH: jsonl })
  const memory = await connect(memoryTransport)
  const proxyPid = () => proxyTransport.pid ?? undefined
  const embeddedPid = () => embeddedTransport.pid ?? undefined
  const memoryPid = () => memoryTransport.pid ?? undefined
  return [
    {
      name: 'search_memory over /mcp (HTTP)',
      client: http,
      pid: () => undefined,
      pids: () => [server.pid],
      call: search(http),
    },
    {
      name: 'search_memory via stdio proxy',
      client: proxy,
      pid: proxyPid,
      pids: () => [proxyPid()!, server.pid],
      call: search(proxy),
    },
    {
      name: 'search_memory, embedded stdio',
      client: embedded,
      pid: embeddedPid,
      pids: () => [embeddedPid()!],
      call: search(embedded),
    },
    {
      name: THEIRS,
      client: memory,
      pid: memoryPid,
      pids: () => [memoryPid()!],
      call: async (query) =>
        count(await memory.callTool({ name: 'search_nodes', arguments: { query } }), 'entities') >
        0,
    },
  ]
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

/** Every question through every target, in rotating order; wall time and CPU time per call. */
async function clientSide(
  server: ServerChild,
  dataDir: string,
  jsonl: string,
  questions: string[],
  warmup: number,
) {
  const all = await targets(server, dataDir, jsonl)
  const samples = all.map(() => [] as number[])
  const cpu = all.map(() => 0)
  const clientCpu = all.map(() => 0)
  const withResult = all.map(() => 0)
  const cpuOf = (t: Target) => t.pids().reduce((sum, pid) => sum + cpuMsOf(pid), 0)
  try {
    for (const [i, query] of questions.entries()) {
      for (let k = 0; k < all.length; k++) {
        const n = (i + k) % all.length
        const target = all[n]!
        const others = cpuOf(target)
        const [started, own] = [performance.now(), ownCpuMs()]
        const found = await target.call(query)
        const [ms, ownMs] = [performance.now() - started, ownCpuMs() - own]
        if (i < warmup) continue
        samples[n]!.push(ms)
        cpu[n]! += ownMs + cpuOf(target) - others
        clientCpu[n]! += ownMs
        if (found) withResult[n]!++
      }
    }
    const measured = questions.length - warmup
    return all.map((t, k): ClientFigures => ({
      name: t.name,
      ms: stats(samples[k]!),
      cpuMs: cpu[k]! / measured,
      clientCpuMs: clientCpu[k]! / measured,
      resultShare: withResult[k]! / measured,
      rssMb: rssMbOf(t.pid()),
    }))
  } finally {
    for (const t of all) await t.client.close()
  }
}

/** Spawn → first line on stdout after writing `input` (or exit, for `node -e 0`); then RSS. */
function timeStart(args: readonly string[], input: string | undefined) {
  return new Promise<{ ms: number; rssMb: number; cpuMs: number }>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] })
    let ms = Number.NaN
    let rssMb = Number.NaN
    let cpuMs = Number.NaN
    child.on('error', reject)
    child.stdout.once('data', () => {
      ms = performance.now() - started
      rssMb = rssMbOf(child.pid)
      cpuMs = cpuMsOf(child.pid!)
      child.stdin.end()
    })
    child.on('close', () =>
      resolve({ ms: input === undefined ? performance.now() - started : ms, rssMb, cpuMs }),
    )
    child.stdin.on('error', () => undefined)
    if (input === undefined) child.stdin.end()
    else child.stdin.write(input)
  })
}

interface StartFigures {
  readonly ms: Stats
  readonly rssMb: Stats
  readonly cpuMs: Stats
}

/**
 * Start of the stdio proxy and of the embedded form (spawn → `initialize` answered) beside
 * `node -e 0`, in rotating order; two rounds of warm-up.
 */
async function stdioStarts(serverUrl: URL, dataDir: string, rounds: number) {
  const initialize = `${JSON.stringify(initializeRequest('bench-mcp'))}\n`
  const kinds = [
    { args: [BIN, 'mcp', '--server-url', serverUrl.href], input: initialize },
    { args: [BIN, 'mcp', '--data-dir', dataDir], input: initialize },
    { args: ['-e', '0'], input: undefined },
  ]
  const samples = kinds.map(() => ({
    ms: [] as number[],
    rss: [] as number[],
    cpu: [] as number[],
  }))
  for (let i = 0; i < rounds + 2; i++) {
    for (let k = 0; k < kinds.length; k++) {
      const n = (i + k) % kinds.length
      const r = await timeStart(kinds[n]!.args, kinds[n]!.input)
      if (i < 2) continue
      samples[n]!.ms.push(r.ms)
      samples[n]!.rss.push(r.rssMb)
      samples[n]!.cpu.push(r.cpuMs)
    }
  }
  const figures = samples.map((s): StartFigures => ({
    ms: stats(s.ms),
    rssMb: stats(s.rss),
    cpuMs: stats(s.cpu),
  }))
  return { proxy: figures[0]!, embedded: figures[1]!, floor: figures[2]!.ms }
}

const serverCells = (ms: Stats, cpu: Stats) => [f2(ms.p50), f2(ms.p95), f2(cpu.p50)]

const row = (name: string, ...cells: string[]) =>
  `${name.padEnd(36)} ${cells.map((c) => c.padStart(9)).join(' ')}`

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2))
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
      const questions = locomoQuestions(opts.warmup + opts.queries, SEED).map((q) => q.question)
      progress(`${size}: server side, REST beside /mcp`)
      const server = await serverSide(dataDir, questions, opts.warmup)
      const child = await startServerChild(dataDir, opts.logLevel)
      try {
        progress(`${size}: clients (HTTP, stdio proxy, embedded stdio, server-memory), interleaved`)
        const clients = await clientSide(child, dataDir, jsonl, questions, opts.warmup)
        const serverRssMb = await child.rssMb()
        if (starts === undefined) {
          progress(`stdio starts: ${opts.starts} rounds beside node -e 0`)
          starts = await stdioStarts(child.url, dataDir, opts.starts)
        }
        const theirs = clients.find((c) => c.name === THEIRS)!
        sizes.push({ size, server, clients, serverRssMb })
        out.push(
          `\n${size.toLocaleString('en')} memories`,
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
          `/mcp − REST: p50 ${f2(server.mcp.p50 - server.rest.p50)} ms, CPU p50 ` +
            `${f2(server.mcpCpu.p50 - server.restCpu.p50)} ms (target ≤ 0.3); server RSS ${f1(serverRssMb)} MB`,
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
  const header = `node ${process.version}, ${os.cpus().length} cores, load average ${load.map(f2).join(' → ')}; limit ${LIMIT}, ${opts.queries} questions after ${opts.warmup} warm-up`
  process.stdout.write(`${header}\n${out.join('\n')}\n`)
  const round = (_k: string, v: unknown): unknown =>
    typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(4)) : v
  process.stdout.write(
    `${JSON.stringify({ bench: 'mcp', options: opts, node: process.version, load, sizes, starts }, round)}\n`,
  )
}

await main()
