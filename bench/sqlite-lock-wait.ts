/**
 * Waiting for another process's SQLite write lock, two ways (docs/storage.md, "Waiting for a
 * lock"). A child process holds `BEGIN IMMEDIATE` on the file for `--hold` ms while this process
 * writes one memory through the runtime; a 1 ms timer records the longest event-loop gap.
 *
 * - `timer-retry` (what the backend does): `busy_timeout = 0`, the transaction runner retries
 *   `BEGIN IMMEDIATE` after timer pauses (≤ 50 ms). Reported: longest gap during the hold, CPU
 *   this process spent while waiting, and how long after the release the write committed.
 * - `worker`: the alternative, database work on a worker thread (better-sqlite3 there with
 *   `busy_timeout`); the event loop never waits, but every transaction pays a message round trip
 *   and a structured clone of its rows. Reported: round trip of a trivial statement and of
 *   100 rows × 8 KB (what `remember` of 100 × 8 KB carries), against the same work in-thread.
 *
 * Usage: `npm run bench:sqlite-lock -- [--hold 3000] [--rounds 200]`. Prints a table, then JSON.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'

import Database from 'better-sqlite3'

import { databasePath } from '../src/runtime/data-dir.js'
import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { f2, ownCpuMs, stats } from './bench-stats.js'

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const HOLD_MS = arg('hold', 3000)
const ROUNDS = arg('rounds', 200)

/** Runs a child holding the write lock; resolves with the time it released it. */
async function holdLock(file: string): Promise<{ released: Promise<number> }> {
  const script = `const db = new (require('better-sqlite3'))(${JSON.stringify(file)})
    db.exec('BEGIN IMMEDIATE'); console.log('locked')
    setTimeout(() => { db.exec('COMMIT'); console.log('released'); db.close() }, ${HOLD_MS})`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let onReleased: (t: number) => void = () => undefined
  const released = new Promise<number>((r) => (onReleased = r))
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (b: Buffer) => {
      if (b.toString().includes('locked')) resolve()
      if (b.toString().includes('released')) onReleased(performance.now())
    }),
  )
  return { released }
}

async function timerRetry() {
  const dir = mkdtempSync(join(os.tmpdir(), 'pc-bench-lock-'))
  const rt = await MemoryRuntime.open({ dataDir: dir, vectorAnn: false })
  try {
    await rt.remember({ scopeId: 'bench:lock', entries: [{ kind: 'fact', text: 'first' }] })
    const { released } = await holdLock(databasePath(dir))
    let last = performance.now()
    let longest = 0
    const ticker = setInterval(() => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
    }, 1)
    const cpu0 = ownCpuMs()
    await rt.remember({ scopeId: 'bench:lock', entries: [{ kind: 'fact', text: 'second' }] })
    const committed = performance.now()
    const cpu = ownCpuMs() - cpu0
    clearInterval(ticker)
    return {
      longestGapMs: longest,
      cpuWhileWaitingMs: cpu,
      afterReleaseMs: committed - (await released),
    }
  } finally {
    await rt.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const db = new (require(workerData.module))(workerData.file)
db.pragma('busy_timeout = 5000')
const one = db.prepare('SELECT 1 AS x')
const rows = db.prepare('SELECT id, body FROM blobs')
parentPort.on('message', (m) => parentPort.postMessage(m === 'one' ? one.get() : rows.all()))`

async function worker() {
  const dir = mkdtempSync(join(os.tmpdir(), 'pc-bench-lock-'))
  const file = join(dir, 'w.sqlite')
  const db = new Database(file)
  db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT)')
  const insert = db.prepare('INSERT INTO blobs (body) VALUES (?)')
  for (let i = 0; i < 100; i += 1) insert.run(`${i} ${'x'.repeat(8 * 1024)}`)
  const w = new Worker(WORKER, {
    eval: true,
    workerData: { file, module: createRequire(import.meta.url).resolve('better-sqlite3') },
  })
  const ask = (m: string) =>
    new Promise<unknown>((resolve) => {
      w.once('message', resolve)
      w.postMessage(m)
    })
  const time = async (f: () => unknown) => {
    const ms: number[] = []
    for (let i = 0; i < ROUNDS; i += 1) {
      const t = performance.now()
      await f()
      ms.push(performance.now() - t)
    }
    return stats(ms).p50
  }
  try {
    await ask('one')
    const one = db.prepare('SELECT 1 AS x')
    const rows = db.prepare('SELECT id, body FROM blobs')
    return {
      trivialInThreadMs: await time(() => one.get()),
      trivialWorkerMs: await time(() => ask('one')),
      rows100x8kInThreadMs: await time(() => rows.all()),
      rows100x8kWorkerMs: await time(() => ask('rows')),
    }
  } finally {
    await w.terminate()
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const retry = await timerRetry()
const work = await worker()
console.log(
  `waiting ${HOLD_MS} ms for another process's write lock, load ${os.loadavg()[0]!.toFixed(2)}`,
)
console.log('| way | figure | ms |')
console.log('| --- | --- | ---: |')
console.log(`| timer-retry | longest event-loop gap during the hold | ${f2(retry.longestGapMs)} |`)
console.log(`| timer-retry | CPU used while waiting | ${f2(retry.cpuWhileWaitingMs)} |`)
console.log(`| timer-retry | commit after the release | ${f2(retry.afterReleaseMs)} |`)
console.log(`| in-thread | trivial statement, p50 | ${f2(work.trivialInThreadMs)} |`)
console.log(`| worker | trivial statement round trip, p50 | ${f2(work.trivialWorkerMs)} |`)
console.log(`| in-thread | 100 rows × 8 KB, p50 | ${f2(work.rows100x8kInThreadMs)} |`)
console.log(`| worker | 100 rows × 8 KB round trip, p50 | ${f2(work.rows100x8kWorkerMs)} |`)
console.log(JSON.stringify({ bench: 'sqlite-lock', holdMs: HOLD_MS, retry, worker: work }))
