/**
 * Event-loop gaps of a real server during expensive requests (`npm run bench:eventloop`, part 2).
 * A `powercontext server run` child on a fresh data dir is seeded over HTTP; then, for each
 * operation, a poller process polls `GET /health/live` every 10 ms (a request, then a 10 ms pause)
 * and samples the server's RSS (`/proc/<pid>/status`) every 20 ms while the operation runs. The
 * longest time between two liveness answers is what a probe or any other client waited at worst
 * (timed from the poller's first answer of each operation, so its own start-up is not counted).
 * The poller runs at nice -10 where permitted (it is the measuring instrument: its own wait for a
 * core is not the server's), and the four readers read into fixed buffers (fixed-buffer-reader.ts)
 * so the bench takes little of the 2 cores; large bodies are never parsed whole (only the
 * continuation at their end).
 *
 * `--bin <path>` runs another build of the CLI (e.g. `/work/main/bin/powercontext.js` for the
 * "before" figures); its answers are read the same way (a missing continuation means done).
 */
import { type ChildProcess, fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

import { ServerProcesses } from '../harness/server-process.js'
import { FixedBufferReader } from './fixed-buffer-reader.js'

/** One measured operation: longest liveness gap, duration, server RSS before and at peak. */
export interface OpFigure {
  readonly op: string
  readonly ms: number
  readonly longestGapMs: number
  /** Longest gap between two ticks of a 1 ms timer inside the server (its event loop's stall). */
  readonly serverStallMs: number
  /**
   * Most CPU time the server's main thread ran within one such gap: the longest synchronous
   * stretch without the time the thread waited for a core (little sensitive to other processes).
   */
  readonly mainThreadRanMs: number
  /** Longest garbage-collection pause of the server's heap within the operation. */
  readonly gcPauseMs: number
  readonly rssBeforeMb: number
  readonly rssPeakMb: number
  /** Statuses other than 2xx the operation's requests got (e.g. 408 when the loop stalled). */
  readonly failures: string
}

/** Non-2xx answers of the operation being measured. */
let failures: string[] = []

const POLLER = `
const { readFileSync } = require('node:fs')
const [url, pid] = process.argv.slice(2)
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/' + pid + '/status', 'utf8'))[1]) / 1024
let running = false
process.on('disconnect', () => process.exit(0))
process.on('message', async (m) => {
  if (m !== 'start') { running = false; return }
  running = true
  const before = rss()
  let peak = before
  const sampler = setInterval(() => { try { peak = Math.max(peak, rss()) } catch {} }, 20)
  // One answer before the clock starts: a fresh process's first fetch loads its HTTP client and
  // connects (≈ 50-70 ms of the poller's own), which is not the server's to answer for.
  await fetch(url + '/health/live').then((r) => r.arrayBuffer(), () => undefined)
  let last = performance.now()
  let longest = 0
  process.send({ started: true })
  while (running) {
    // A keep-alive socket the server closed (after 1,000 requests) fails once: ask again.
    try {
      await (await fetch(url + '/health/live')).arrayBuffer()
    } catch {
      continue
    }
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
    await new Promise((r) => setTimeout(r, 10))
  }
  clearInterval(sampler)
  process.send({ longest, before, peak })
})`

/**
 * Starts the poller in a process of its own, at a raised priority where the system allows it
 * (nice -10; root or CAP_SYS_NICE), so that the gap it measures is the server's answer time and
 * not the poller's own wait for a core beside the server and the bench's readers.
 */
function startPoller(
  file: string,
  url: string,
  pid: number,
): { proc: ChildProcess; niced: boolean } {
  const proc = fork(file, [url, String(pid)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  try {
    os.setPriority(proc.pid!, -10)
    return { proc, niced: true }
  } catch {
    return { proc, niced: false }
  }
}

/**
 * Loaded into the server (`--require`): a 1 ms timer records the longest gap between its ticks and
 * the most CPU time the server's main thread ran within one gap (from the kernel's per-thread
 * `schedstat`, so time the thread waited for a core on a loaded machine does not count, nor do
 * other threads), and the longest garbage-collection pause (a `gc` performance entry); `SIGUSR2`
 * prints the three and starts over.
 */
const PROBE = `
const { readFileSync } = require('node:fs')
const { performance } = require('node:perf_hooks')
const stat = '/proc/self/task/' + process.pid + '/schedstat'
const ran = () => Number(readFileSync(stat, 'utf8').split(' ')[0]) / 1e6
let last = performance.now(), lastRan = ran(), longest = 0, mostRan = 0
setInterval(() => {
  const now = performance.now()
  const r = ran()
  longest = Math.max(longest, now - last)
  mostRan = Math.max(mostRan, r - lastRan)
  last = now
  lastRan = r
}, 1).unref()
let gcLongest = 0
new (require('node:perf_hooks').PerformanceObserver)((list) => {
  for (const e of list.getEntries()) gcLongest = Math.max(gcLongest, e.duration)
}).observe({ entryTypes: ['gc'] })
process.on('SIGUSR2', () => {
  const figures = [longest, mostRan, gcLongest].map((n) => n.toFixed(2))
  process.stderr.write('eventloop-probe ' + figures.join(' ') + '\\n')
  longest = 0
  mostRan = 0
  gcLongest = 0
})`

/**
 * Answers over this many bytes are not parsed whole: the bench reads only the continuation
 * (`remaining_source_ids`, the answer's last field) from their tail, so parsing four answers of a
 * megabyte at once does not take the bench's thread, nor a core the server could use.
 */
const PARSE_WHOLE_BYTES = 64 * 1024
const CONTINUATION = '"remaining_source_ids":'

/** The continuation at the end of a large answer (its last `PARSE_WHOLE_BYTES` or more). */
function continuationOf(tail: readonly Uint8Array[]): { remaining_source_ids?: string[] } {
  const text = Buffer.concat(tail).toString('latin1')
  const at = text.lastIndexOf(CONTINUATION)
  if (at < 0) return {}
  const from = at + CONTINUATION.length
  return { remaining_source_ids: JSON.parse(text.slice(from, text.indexOf(']', from) + 1)) }
}

/**
 * The bench's own client: `node:http` with kept-alive connections. (`fetch` read the four
 * readers' 400 MB through web streams at ≈ 3.2 s of this process's CPU per run, ≈ half a core
 * beside the server on a 2-core machine; `node:http` ≈ 1.3 s.)
 */
const agent = new http.Agent({ keepAlive: true })

/**
 * Posts JSON; returns the body's byte count and the parsed body (of a large one, only its
 * continuation: see {@link PARSE_WHOLE_BYTES}).
 */
function post(
  url: string,
  path: string,
  body: unknown,
): Promise<{ bytes: number; json?: { remaining_source_ids?: string[] } }> {
  const data = JSON.stringify(body)
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method: 'POST', agent, headers }, (res) => {
      // The body's last PARSE_WHOLE_BYTES or more (all of a small one), chunks as they came.
      const tail: Buffer[] = []
      let tailBytes = 0
      let bytes = 0
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.byteLength
        tail.push(chunk)
        tailBytes += chunk.byteLength
        while (tailBytes - tail[0]!.byteLength >= PARSE_WHOLE_BYTES)
          tailBytes -= tail.shift()!.byteLength
      })
      res.on('error', reject)
      res.on('end', () => {
        if ((res.statusCode ?? 500) >= 300) {
          failures.push(`${res.statusCode}`)
          resolve({ bytes })
          return
        }
        resolve(
          bytes <= PARSE_WHOLE_BYTES
            ? { bytes, json: JSON.parse(Buffer.concat(tail).toString()) }
            : { bytes, json: continuationOf(tail) },
        )
      })
    })
    req.on('error', reject)
    req.end(data)
  })
}

/** Words of a text of `bytes` bytes, distinct per `seed`, sharing common words for queries. */
function text(seed: number, bytes: number): string {
  let out = `Note ${seed}: the gateway retries requests and the deploy pipeline checks migrations`
  for (let k = seed; out.length < bytes; k = (k * 7919 + 13) % 1_000_003)
    out += ` w${k.toString(36)}`
  return out.slice(0, bytes)
}

const SOURCE_BYTES = 999_000
const ids = Array.from({ length: 100 }, (_, i) => `big-${i}`)

/**
 * Reads every source of `ids` by following `remaining_source_ids`, on a connection of its own
 * that reads into one fixed buffer (fixed-buffer-reader.ts); returns bytes read.
 */
async function readAllSources(url: string): Promise<number> {
  const reader = new FixedBufferReader(url, PARSE_WHOLE_BYTES)
  try {
    let remaining: string[] = ids
    let bytes = 0
    while (remaining.length > 0) {
      const r = await reader.post('/v1/sources/get', {
        scope_id: 'ops:sources',
        source_ids: remaining,
      })
      bytes += r.bytes
      if (r.status >= 300) {
        failures.push(`${r.status}`)
        break
      }
      const json =
        r.bytes <= PARSE_WHOLE_BYTES
          ? (JSON.parse(r.tail.toString()) as { remaining_source_ids?: string[] })
          : continuationOf([r.tail])
      remaining = json.remaining_source_ids ?? []
    }
    return bytes
  } finally {
    reader.close()
  }
}

/** Seeds a fresh server and measures each operation; `bin` picks the CLI build. */
export async function runOperations(
  bin: string | undefined,
  withSources = true,
): Promise<{ rows: OpFigure[]; pollerNiced: boolean }> {
  const dir = mkdtempSync(join(os.tmpdir(), 'pc-bench-eventloop-ops-'))
  const servers = new ServerProcesses()
  try {
    const probe = join(dir, 'eventloop-probe.cjs')
    writeFileSync(probe, PROBE)
    const server = await servers.startDataDir(
      join(dir, 'data'),
      { NODE_OPTIONS: `--require ${probe}` },
      ...(bin === undefined ? [] : [bin]),
    )
    const url = server.url
    /** The probe's figures since the last call (it prints them on SIGUSR2). */
    const stall = async (): Promise<[number, number, number]> => {
      const count = () => server.stderr().split('eventloop-probe ').length
      const before = count()
      server.proc.kill('SIGUSR2')
      while (count() === before) await new Promise((r) => setTimeout(r, 5))
      const line = server.stderr().split('eventloop-probe ').at(-1)!.split('\n')[0]!
      const [ms, cpu, gc] = line.split(' ').map(Number)
      return [ms!, cpu!, gc!]
    }
    const pollerFile = join(dir, 'eventloop-poller.cjs')
    writeFileSync(pollerFile, POLLER)
    const { proc: poller, niced: pollerNiced } = startPoller(pollerFile, url, server.proc.pid!)
    const measure = async (op: string, work: () => Promise<unknown>): Promise<OpFigure> => {
      failures = []
      const started = new Promise((r) => poller.once('message', r))
      poller.send('start')
      await started
      await new Promise((r) => setTimeout(r, 50))
      await stall()
      const t = performance.now()
      await work()
      const ms = performance.now() - t
      await new Promise((r) => setTimeout(r, 50))
      const [serverStallMs, mainThreadRanMs, gcPauseMs] = await stall()
      const done = new Promise<{ longest: number; before: number; peak: number }>((r) =>
        poller.once('message', r),
      )
      poller.send('stop')
      const p = await done
      const failed = [...new Set(failures)].join(' ')
      return {
        op,
        ms,
        longestGapMs: p.longest,
        serverStallMs,
        mainThreadRanMs,
        gcPauseMs,
        rssBeforeMb: p.before,
        rssPeakMb: p.peak,
        failures: failed,
      }
    }
    // Seed: 8 scopes × 400 memories of 4 KB, 100 sources of ≈ 1 MB.
    const scopes = Array.from({ length: 8 }, (_, s) => `ops:prepare:${s}`)
    for (const [s, scope] of scopes.entries())
      for (let b = 0; b < 4; b += 1)
        await post(url, '/v1/memory/remember', {
          scope_id: scope,
          entries: Array.from({ length: 100 }, (_, i) => ({
            kind: 'fact',
            text: text(s * 1000 + b * 100 + i, 4096),
          })),
        })
    for (const [i, id] of withSources ? ids.entries() : [])
      await post(url, '/v1/sources/content', {
        scope_id: 'ops:sources',
        source_id: id,
        content: `${i} ${'x'.repeat(SOURCE_BYTES - 8)}`,
      })
    const rows: OpFigure[] = []
    rows.push(
      await measure('prepare, query, 8 scopes', () =>
        post(url, '/v1/context/prepare', {
          scope_id: scopes[0],
          scope_ids: scopes.slice(1),
          query: 'gateway retries requests deploy pipeline migrations',
          max_bytes: 32768,
        }),
      ),
    )
    rows.push(
      await measure('prepare, brief, 8 scopes', () =>
        post(url, '/v1/context/prepare', {
          scope_id: scopes[0],
          scope_ids: scopes.slice(1),
          max_bytes: 32768,
        }),
      ),
    )
    const metadata = (keys: number, value: (i: number) => unknown) =>
      Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, value(i)]))
    rows.push(
      await measure('capture, 100,000 metadata keys', () =>
        post(url, '/v1/sources/content', {
          scope_id: 'ops:meta',
          content: 'metadata heavy',
          metadata: metadata(100_000, (i) => i),
        }),
      ),
    )
    // Just under the most any body may hold (50,000 values): over a capture's metadata bound
    // (10,000 values, docs/http-api.md), refused from its bytes (413); taken before the bound.
    rows.push(
      await measure('capture, 49,990 metadata keys', () =>
        post(url, '/v1/sources/content', {
          scope_id: 'ops:meta',
          source_id: 'at-the-body-limit',
          content: 'metadata heavy',
          metadata: metadata(49_990, (i) => `value ${i}`),
        }),
      ),
    )
    // The most a capture's metadata may hold: strings, which the secret rules read one by one.
    rows.push(
      await measure('capture, 10,000 metadata keys', () =>
        post(url, '/v1/sources/content', {
          scope_id: 'ops:meta',
          source_id: 'at-the-limit',
          content: 'metadata heavy',
          metadata: metadata(10_000, (i) => `value ${i}`),
        }),
      ),
    )
    rows.push(
      await measure('remember, 100 × 8 KB', () =>
        post(url, '/v1/memory/remember', {
          scope_id: 'ops:remember',
          entries: Array.from({ length: 100 }, (_, i) => ({
            kind: 'fact',
            text: text(90_000 + i, 8000),
          })),
        }),
      ),
    )
    if (!withSources) {
      poller.kill()
      return { rows, pollerNiced }
    }
    rows.push(
      await measure('sources/get, 100 × 1 MB, one call', () =>
        post(url, '/v1/sources/get', { scope_id: 'ops:sources', source_ids: ids }),
      ),
    )
    rows.push(
      await measure('sources/list, limit 100, one call', () =>
        post(url, '/v1/sources/list', { scope_id: 'ops:sources', limit: 100 }),
      ),
    )
    rows.push(
      await measure('sources/get, 100 × 1 MB, all, 4 readers at once', () =>
        Promise.all([0, 1, 2, 3].map(() => readAllSources(url))),
      ),
    )
    poller.kill()
    if (server.proc.exitCode !== null) throw new Error(`the server exited: ${server.stderr()}`)
    return { rows, pollerNiced }
  } finally {
    agent.destroy()
    await servers.stopAll()
    rmSync(dir, { recursive: true, force: true })
  }
}
