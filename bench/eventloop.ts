/**
 * Event-loop benchmark: how long one flush of a maximum-size window blocks the
 * event loop. For each window shape, a fresh SQLite file runtime in a temp dir is filled by
 * `captureSource`, then one `flush` (limit 1000, the maximum) runs in-process while
 * `perf_hooks.monitorEventLoopDelay` (1 ms resolution) samples and a 1 ms interval timer records
 * the longest gap between its ticks and the most CPU time this process used within one gap (a
 * gap longer than that CPU time was spent descheduled: other processes on a loaded machine).
 * Prints max / p99 event-loop delay, the longest gap, its CPU figure and the flush duration.
 *
 * Windows (each the largest the limits allow: 1000 sources, ≤ 8 MB of payload, ≤ 1000 decisions):
 * - `normal`: 1000 structured sources, one ≈ 8 KB prose entry each (distinct texts);
 * - `entries`: 10 structured sources of 100 ≈ 8 KB entries each (1000 candidates);
 * - `adversarial`: 1000 structured sources, one 8 KB entry each cycling through the secret rules'
 *   adversarial inputs (test/support/secret-adversaries.ts) that are not secrets.
 *
 * Part 2 (bench/eventloop-ops.ts): a real server process, polled on `/health/live` every 10 ms,
 * during `prepare` over 8 scopes, captures with 100,000 and 49,990 metadata keys (over the body's
 * and the metadata's value limits) and one with 10,000 (at the metadata's limit), `remember` of 100 × 8 KB, and `sources/get` / `sources/list` of
 * 100 sources of ≈ 1 MB (one call, and four readers reading all of them at once, with the
 * server's peak RSS). A probe inside the server reports its own longest stall and the most its
 * main thread ran within one (the figure other processes on a loaded machine barely move), and
 * its longest garbage-collection pause.
 *
 * Usage: `npm run bench:eventloop [-- --windows normal,entries,adversarial] [--parts flush,ops]
 * [--bin /path/to/bin/powercontext.js]`; `--parts ops,no-sources` skips the sources (and their
 * 100 MB of seeding) (`--bin` runs part 2 against another build, e.g. the main
 * checkout for "before" figures; build first). Prints tables, then one JSON line per part.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'

import { MEMORY_MEDIA_TYPE } from '../src/core/extraction-rules.js'
import { MAX_TEXT_BYTES } from '../src/core/text-rules.js'
import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { FLUSH_LIMIT_MAX } from '../src/storage/spi/flush-types.js'
import { ADVERSARIES } from '../test/support/secret-adversaries.js'
import { memoryTexts } from './bench-data.js'
import { f1, int } from './bench-stats.js'
import { runOperations } from './eventloop-ops.js'

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : process.argv[i + 1]!
}
const WINDOWS = arg('windows', 'normal,entries,adversarial').split(',')
const PARTS = arg('parts', 'flush,ops').split(',')
const BIN = arg('bin', '')
const ENTRY_BYTES = MAX_TEXT_BYTES - 64

/** A prose text of about `ENTRY_BYTES` bytes, distinct for each `i`. */
function prose(texts: readonly string[], i: number): string {
  let out = `Note ${i}:`
  for (let k = i; out.length < ENTRY_BYTES; k += 7) out += ` ${texts[k % texts.length]}`
  return out.slice(0, ENTRY_BYTES)
}

const harmless = ADVERSARIES.filter((a) => !a.matches)

/** The sources of a window shape: each is the content of one structured source. */
function windowOf(name: string): string[] {
  const texts = memoryTexts(2000, 1)
  const entry = (text: string) => ({ kind: 'working_note', text })
  const one = (text: string) => JSON.stringify({ entries: [entry(text)] })
  if (name === 'normal')
    return Array.from({ length: FLUSH_LIMIT_MAX }, (_, i) => one(prose(texts, i)))
  if (name === 'entries')
    return Array.from({ length: 10 }, (_, s) =>
      JSON.stringify({
        entries: Array.from({ length: 100 }, (_, e) => entry(prose(texts, s * 100 + e))),
      }),
    )
  if (name === 'adversarial')
    return Array.from({ length: FLUSH_LIMIT_MAX }, (_, i) =>
      // A distinct prefix keeps each text its own memory; the rest is the adversarial run.
      one(`${i} ${harmless[i % harmless.length]!.make(ENTRY_BYTES - 8)}`.slice(0, ENTRY_BYTES)),
    )
  throw new Error(`unknown window ${name}`)
}

async function run(name: string) {
  const dir = mkdtempSync(join(os.tmpdir(), 'pc-bench-eventloop-'))
  const rt = await MemoryRuntime.open({ dataDir: dir })
  try {
    const scopeId = `bench:eventloop:${name}`
    const contents = windowOf(name)
    for (const [i, content] of contents.entries())
      await rt.captureSource({ scopeId, sourceId: `s-${i}`, mediaType: MEMORY_MEDIA_TYPE, content })
    const payloadBytes = contents.reduce((s, c) => s + Buffer.byteLength(c), 0)
    const histogram = monitorEventLoopDelay({ resolution: 1 })
    let last = performance.now()
    let lastCpu = process.cpuUsage()
    let longestGap = 0
    let longestCpu = 0
    const ticker = setInterval(() => {
      const now = performance.now()
      const cpu = process.cpuUsage(lastCpu)
      longestGap = Math.max(longestGap, now - last)
      longestCpu = Math.max(longestCpu, (cpu.user + cpu.system) / 1000)
      last = now
      lastCpu = process.cpuUsage()
    }, 1)
    histogram.enable()
    const start = performance.now()
    const result = await rt.flush({ scopeId, limit: FLUSH_LIMIT_MAX })
    const flushMs = performance.now() - start
    // The histogram records a delay only when its timer fires: let it fire once more.
    await new Promise((resolve) => setTimeout(resolve, 20))
    histogram.disable()
    clearInterval(ticker)
    return {
      window: name,
      sources: contents.length,
      payloadBytes,
      processed: result.processedSourceCount,
      changes: result.changes.length,
      flushMs,
      delayMaxMs: histogram.max / 1e6,
      delayP99Ms: histogram.percentile(99) / 1e6,
      longestGapMs: longestGap,
      longestGapCpuMs: longestCpu,
    }
  } finally {
    await rt.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (PARTS.includes('flush')) {
  const rows = []
  for (const name of WINDOWS) rows.push(await run(name))
  console.log(
    `flush of a maximum-size window, event-loop delay, load ${os.loadavg()[0]!.toFixed(2)}`,
  )
  console.log(
    '| window | sources | payload bytes | processed | changes | flush ms | delay max ms | delay p99 ms | longest gap ms | most CPU in a gap ms |',
  )
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const r of rows)
    console.log(
      `| ${r.window} | ${r.sources} | ${int(r.payloadBytes)} | ${r.processed} | ${r.changes} | ${f1(r.flushMs)} | ${f1(r.delayMaxMs)} | ${f1(r.delayP99Ms)} | ${f1(r.longestGapMs)} | ${f1(r.longestGapCpuMs)} |`,
    )
  console.log(JSON.stringify({ bench: 'eventloop', load: os.loadavg()[0], rows }))
}
if (PARTS.includes('ops')) {
  const { rows, pollerNiced } = await runOperations(
    BIN === '' ? undefined : BIN,
    !PARTS.includes('no-sources'),
  )
  const priority = pollerNiced ? 'poller at nice -10' : 'poller at normal priority (not permitted)'
  console.log(
    `server process, /health/live every 10 ms during each operation${BIN === '' ? '' : ` (${BIN})`}, ${priority}, load ${os.loadavg()[0]!.toFixed(2)}`,
  )
  console.log(
    '| operation | ms | longest liveness gap ms | server stall ms | main thread ran in one stall ms | longest GC pause ms | server RSS before MB | server RSS peak MB | non-2xx |',
  )
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
  for (const r of rows)
    console.log(
      `| ${r.op} | ${f1(r.ms)} | ${f1(r.longestGapMs)} | ${f1(r.serverStallMs)} | ${f1(r.mainThreadRanMs)} | ${f1(r.gcPauseMs)} | ${int(r.rssBeforeMb)} | ${int(r.rssPeakMb)} | ${r.failures || 'none'} |`,
    )
  console.log(
    JSON.stringify({
      bench: 'eventloop-ops',
      bin: BIN || null,
      pollerNiced,
      load: os.loadavg()[0],
      rows,
    }),
  )
}
