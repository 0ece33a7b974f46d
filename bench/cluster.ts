/**
 * Cluster benchmark: PowerContext servers on one private MariaDB node alone vs on a
 * private 3-node MariaDB Galera cluster with one server per node, all on loopback (harness/).
 *
 * - write throughput: `--writes` single-entry `remember` requests, and `--batches` requests of
 *   `--batch` entries each, from `--clients` concurrent clients (on the cluster, client k talks to
 *   server k mod 3, as behind a round-robin load balancer), each on its own scope (writes to one
 *   scope serialise on its row); new distinct texts.
 * - search: `--queries` LoCoMo questions (limit 8, fts) from the same clients over a scope of
 *   `--corpus` memories loaded beforehand; p50/p95 per request and queries/s.
 * - causal reads: two backends opened in this process on two Galera nodes (`causalReads` on, then
 *   off): a write on node 1, then at once a `get` of it on node 2 (its latency; a miss counts when
 *   the node has not applied the write yet), and a search on node 2; `--causal` pairs each way.
 * - recovery: `--kills` times, node 3 is killed with SIGKILL while its server runs, the survivors
 *   write 100 memories, the node is started again: the time until the node is Synced and until its
 *   server's readiness is back (`/health/ready` not `not_ready`, `checks.cluster` ready).
 * Topologies and on/off run interleaved (`--rounds` rounds, alternating order), the figures are
 * over every round. Usage: `npm run bench:cluster [-- --writes 300 --clients 6 …]` (root, with
 * mariadb-server, galera-4 and rsync installed). Prints a table, then one JSON line.
 */
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

import { galeraUnavailable, PrivateGalera, PrivateMariadb } from '../harness/private-mariadb.js'
import { ServerProcesses } from '../harness/server-process.js'
import type { PowerContextClient } from '../src/client/index.js'
import { createPowerContextClient } from '../src/client/index.js'
import type { MysqlMemoryBackend } from '../src/storage/mysql/index.js'
import { openMysqlBackend } from '../src/storage/mysql/index.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { f1, f2, int, type Stats, stats } from './bench-stats.js'

const DATABASE = 'pc_bench'
const SEARCH_SCOPE = 'bench:search'

interface Options {
  readonly writes: number
  readonly batches: number
  readonly batch: number
  readonly clients: number
  readonly corpus: number
  readonly queries: number
  readonly causal: number
  readonly kills: number
  readonly rounds: number
}

const DEFAULTS: Options = {
  writes: 300,
  batches: 30,
  batch: 20,
  clients: 6,
  corpus: 1000,
  queries: 300,
  causal: 200,
  kills: 2,
  rounds: 3,
}

function parseOptions(argv: readonly string[]): Options {
  const out: Record<string, number> = { ...DEFAULTS }
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2)
    const key = flag!.replace(/^--/, '')
    if (!(key in DEFAULTS)) throw new Error(`unknown option ${argv[i]}`)
    const value = Number(inline ?? argv[++i])
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${flag} needs a count`)
    out[key] = value
  }
  return out as unknown as Options
}

/** One topology: its servers' clients (one per server). */
interface Topology {
  readonly name: string
  readonly servers: readonly PowerContextClient[]
}

/** Samples of one measure over every round. */
interface Measure {
  ms: number[]
  /** Items (memories, queries) done, and the wall time spent doing them. */
  items: number
  wallMs: number
}

const emptyMeasure = (): Measure => ({ ms: [], items: 0, wallMs: 0 })

let textCursor = 0
let allTexts: string[] = []
function nextTexts(n: number): string[] {
  const out = allTexts.slice(textCursor, textCursor + n)
  textCursor += n
  if (out.length < n) throw new Error('out of benchmark texts')
  return out
}

/** Runs `calls` calls of `call` from `clients` concurrent loops; client k uses server k mod n. */
async function concurrently(
  topology: Topology,
  clients: number,
  calls: number,
  call: (pc: PowerContextClient, n: number, client: number) => Promise<number>,
  into: Measure,
): Promise<void> {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async (_v, k) => {
      const pc = topology.servers[k % topology.servers.length]!
      for (let n = next++; n < calls; n = next++) {
        const t = performance.now()
        into.items += await call(pc, n, k)
        into.ms.push(performance.now() - t)
      }
    }),
  )
  into.wallMs += performance.now() - start
}

async function rememberTexts(pc: PowerContextClient, scope: string, texts: string[]) {
  const res = await pc.remember({
    scope_id: scope,
    entries: texts.map((text) => ({ kind: 'fact' as const, text })),
  })
  return res.results.length
}

interface TopologyFigures {
  single: Measure
  batched: Measure
  search: Measure
}

async function measureTopology(
  t: Topology,
  o: Options,
  round: number,
  into: TopologyFigures,
): Promise<void> {
  const perRound = (n: number) => Math.ceil(n / o.rounds)
  // Each client writes its own scope: writes to one scope serialise on its row (change_seq).
  const scope = (k: number) => `bench:write:${t.servers.length}:${round}:${k}`
  await concurrently(
    t,
    o.clients,
    perRound(o.writes),
    (pc, _n, k) => rememberTexts(pc, scope(k), nextTexts(1)),
    into.single,
  )
  await concurrently(
    t,
    o.clients,
    perRound(o.batches),
    (pc, _n, k) => rememberTexts(pc, scope(k), nextTexts(o.batch)),
    into.batched,
  )
  const questions = locomoQuestions(perRound(o.queries), round + 1)
  await concurrently(
    t,
    o.clients,
    questions.length,
    async (pc, n) => {
      await pc.search({
        scope_id: SEARCH_SCOPE,
        query: questions[n]!.question,
        mode: 'fts',
        limit: 8,
      })
      return 1
    },
    into.search,
  )
}

/** Loads the search corpus through the first server (batches of 100). */
async function loadCorpus(t: Topology, corpus: number): Promise<void> {
  for (let done = 0; done < corpus; done += 100) {
    await rememberTexts(t.servers[0]!, SEARCH_SCOPE, nextTexts(Math.min(100, corpus - done)))
  }
}

interface CausalFigures {
  write: number[]
  read: number[]
  search: number[]
  misses: number
  pairs: number
}

const emptyCausal = (): CausalFigures => ({ write: [], read: [], search: [], misses: 0, pairs: 0 })

async function measureCausal(
  pair: readonly [MysqlMemoryBackend, MysqlMemoryBackend],
  pairs: number,
  round: number,
  into: CausalFigures,
): Promise<void> {
  const [writer, reader] = pair
  const scope = `bench:causal:${round}`
  const questions = locomoQuestions(pairs, 100 + round)
  for (let i = 0; i < pairs; i++) {
    let t = performance.now()
    const made = await writer.remember({
      scopeId: scope,
      entries: [{ kind: 'fact', text: nextTexts(1)[0]! }],
    })
    into.write.push(performance.now() - t)
    const memoryId = made.results[0]!.memory.memoryRef.artifactId
    t = performance.now()
    const got = await reader.get({ scopeId: scope, memoryId }).catch(() => undefined)
    into.read.push(performance.now() - t)
    if (got === undefined) into.misses += 1
    into.pairs += 1
    t = performance.now()
    await reader.search({ scopeId: SEARCH_SCOPE, query: questions[i]!.question, mode: 'fts' })
    into.search.push(performance.now() - t)
  }
}

/** Polls `check` every 100 ms until true; its failures count as false. */
async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms`)
    await sleep(100)
  }
}

interface Recovery {
  nodeSyncedMs: number
  serverReadyMs: number
}

/** Kills node 3, lets the survivors write, restarts it; times its return (see the file comment). */
async function measureRecovery(cluster: PrivateGalera, t: Topology): Promise<Recovery> {
  const node = cluster.nodes[2]!
  const server = t.servers[2]!
  await node.kill('SIGKILL')
  await until(async () => (await server.ready()).status === 'not_ready', 30_000)
  await until(async () => (await cluster.clusterSize(0)) === 2, 60_000)
  for (let i = 0; i < 10; i++) await rememberTexts(t.servers[i % 2]!, 'bench:fault', nextTexts(10))
  const start = performance.now()
  node.spawn()
  await node.waitReady(180_000)
  const nodeSyncedMs = performance.now() - start
  await until(async () => {
    const r = await server.ready()
    return r.status !== 'not_ready' && r.checks['cluster'] === 'ready'
  }, 120_000)
  return { nodeSyncedMs, serverReadyMs: performance.now() - start }
}

function row(cells: readonly string[]): string {
  const widths = [44, 18, 18]
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' ')
}

const rate = (m: Measure) => (m.items / m.wallMs) * 1000
const lat = (s: Stats) => `${f1(s.p50)} / ${f1(s.p95)}`

function report(
  o: Options,
  topo: Record<string, TopologyFigures>,
  causal: Record<'on' | 'off', CausalFigures>,
  recoveries: readonly Recovery[],
  load: { before: number[]; after: number[] },
): void {
  const [one, three] = [topo['one node']!, topo['three nodes']!]
  const lines = [
    row(['', 'one node, 1 server', '3 nodes, 3 servers']),
    row([
      `remember, 1 entry: requests/s (${o.clients} clients)`,
      int(rate(one.single)),
      int(rate(three.single)),
    ]),
    row([
      'remember, 1 entry: p50 / p95 (ms)',
      lat(stats(one.single.ms)),
      lat(stats(three.single.ms)),
    ]),
    row([
      `remember, ${o.batch} entries: memories/s`,
      int(rate(one.batched)),
      int(rate(three.batched)),
    ]),
    row([
      `remember, ${o.batch} entries: p50 / p95 (ms)`,
      lat(stats(one.batched.ms)),
      lat(stats(three.batched.ms)),
    ]),
    row([
      `search (${o.corpus} memories): queries/s`,
      int(rate(one.search)),
      int(rate(three.search)),
    ]),
    row(['search: p50 / p95 (ms)', lat(stats(one.search.ms)), lat(stats(three.search.ms))]),
    '',
    row(['causal reads (1 client, node 1 → node 2)', 'on', 'off']),
    row([
      'remember on node 1: p50 / p95 (ms)',
      lat(stats(causal.on.write)),
      lat(stats(causal.off.write)),
    ]),
    row([
      'get on node 2 right after: p50 / p95 (ms)',
      lat(stats(causal.on.read)),
      lat(stats(causal.off.read)),
    ]),
    row([
      '  … that missed the write',
      `${causal.on.misses} / ${causal.on.pairs}`,
      `${causal.off.misses} / ${causal.off.pairs}`,
    ]),
    row([
      'search on node 2: p50 / p95 (ms)',
      lat(stats(causal.on.search)),
      lat(stats(causal.off.search)),
    ]),
    '',
    row(['recovery after SIGKILL of node 3', 'node Synced (s)', 'server ready (s)']),
    ...recoveries.map((r, i) =>
      row([`  kill ${i + 1}`, f2(r.nodeSyncedMs / 1000), f2(r.serverReadyMs / 1000)]),
    ),
    '',
    `load average before ${load.before.map(f2).join(' ')}, after ${load.after.map(f2).join(' ')} (${os.cpus().length} cores)`,
  ]
  console.log(lines.join('\n'))
  console.log(
    JSON.stringify({
      options: o,
      topologies: Object.fromEntries(
        Object.entries(topo).map(([name, f]) => [
          name,
          {
            singlePerSec: rate(f.single),
            single: stats(f.single.ms),
            batchedMemoriesPerSec: rate(f.batched),
            batched: stats(f.batched.ms),
            searchPerSec: rate(f.search),
            search: stats(f.search.ms),
          },
        ]),
      ),
      causal: Object.fromEntries(
        Object.entries(causal).map(([k, c]) => [
          k,
          {
            write: stats(c.write),
            read: stats(c.read),
            search: stats(c.search),
            misses: c.misses,
            pairs: c.pairs,
          },
        ]),
      ),
      recoveries,
      load,
    }),
  )
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2))
  const unavailable = galeraUnavailable()
  if (unavailable !== null) throw new Error(`bench:cluster cannot run here: ${unavailable}`)
  allTexts = memoryTexts(
    2 * (o.writes + o.batches * o.batch + o.corpus) + 2 * o.causal + 100 * o.kills + 100,
  )
  const load = { before: os.loadavg(), after: [] as number[] }
  const servers = new ServerProcesses()
  const single = await PrivateMariadb.create()
  let cluster: PrivateGalera | undefined
  try {
    await single.start()
    cluster = await PrivateGalera.start(3)
    await single.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`)
    await cluster.nodes[0]!.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`)
    await cluster.waitForDatabase(DATABASE)
    const client = (url: string) => createPowerContextClient({ baseUrl: url, timeoutMs: 60_000 })
    const oneServer = await servers.start(single.url(DATABASE))
    const threeServers = await Promise.all(cluster.nodes.map((n) => servers.start(n.url(DATABASE))))
    const topologies: Topology[] = [
      { name: 'one node', servers: [client(oneServer.url)] },
      { name: 'three nodes', servers: threeServers.map((s) => client(s.url)) },
    ]
    const topo: Record<string, TopologyFigures> = {}
    for (const t of topologies) {
      topo[t.name] = { single: emptyMeasure(), batched: emptyMeasure(), search: emptyMeasure() }
      await loadCorpus(t, o.corpus)
    }
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? topologies : [...topologies].reverse()
      for (const t of order) await measureTopology(t, o, round, topo[t.name]!)
    }

    const causal = { on: emptyCausal(), off: emptyCausal() }
    const url = (i: number) => cluster!.nodes[i]!.url(DATABASE)
    const pairs = {
      on: [await openMysqlBackend({ url: url(0) }), await openMysqlBackend({ url: url(1) })],
      off: [
        await openMysqlBackend({ url: url(0), causalReads: false }),
        await openMysqlBackend({ url: url(1), causalReads: false }),
      ],
    } as const
    try {
      for (let round = 0; round < o.rounds; round++) {
        const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)
        for (const k of order) {
          await measureCausal(
            pairs[k] as [MysqlMemoryBackend, MysqlMemoryBackend],
            Math.ceil(o.causal / o.rounds),
            round,
            causal[k],
          )
        }
      }
    } finally {
      await Promise.all([...pairs.on, ...pairs.off].map((b) => b.close()))
    }

    const recoveries: Recovery[] = []
    for (let k = 0; k < o.kills; k++)
      recoveries.push(await measureRecovery(cluster, topologies[1]!))
    load.after = os.loadavg()
    report(o, topo, causal, recoveries, load)
  } finally {
    await servers.stopAll()
    await cluster?.stop()
    await single.stop()
  }
}

await main()
