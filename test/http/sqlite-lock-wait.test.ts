/*
 * Another process holds the SQLite file's write lock (a child running `BEGIN IMMEDIATE` and
 * sleeping, as an `admin import` or a second server's flush would): the server keeps answering
 * `/health/live` (polled every 10 ms) the whole time, a write waits for the lock without blocking
 * the event loop and commits once it is released, and a lock held past the wait budget is
 * `storage_unavailable` (503, `details.reason` `busy`) with `Retry-After` — never a 500.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, afterEach, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { databasePath } from '../../src/runtime/data-dir.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'pc-lock-wait-'))
const children = new Set<ChildProcess>()
afterEach(() => {
  for (const c of children) c.kill('SIGKILL')
  children.clear()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A child process holding the write lock for `ms`; resolves once it holds it. */
async function holdLock(file: string, ms: number): Promise<ChildProcess> {
  const script = `
    const Database = require('better-sqlite3')
    const db = new Database(${JSON.stringify(file)})
    db.exec('BEGIN IMMEDIATE')
    process.stdout.write('locked\\n')
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0) }, ${ms})`
  const child = spawn(process.execPath, ['-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.add(child)
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => b.toString().includes('locked') && resolve())
    child.on('exit', (code) => reject(new Error(`lock holder exited early (${code})`)))
  })
  return child
}

/** Resolves once `child` has exited (at once when it already has). */
const exited = (child: ChildProcess): Promise<unknown> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', resolve))

/** Polls `/health/live` every 10 ms until stopped; reports the longest gap between answers. */
function pollLiveness(url: string): { stop: () => Promise<number> } {
  let running = true
  let last = performance.now()
  let longest = 0
  const loop = (async () => {
    while (running) {
      const res = await fetch(`${url}/health/live`)
      await res.arrayBuffer()
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return longest
    },
  }
}

const remember = (url: string, text: string): Promise<Response> =>
  fetch(`${url}/v1/memory/remember`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scope_id: 'lock:wait', entries: [{ kind: 'fact', text }] }),
  })

describe('a second process holding the SQLite write lock', () => {
  it('never stalls the event loop; a write waits for the lock, or answers 503 busy with Retry-After', async () => {
    const dataDir = join(dir, 'data')
    const server: RunningServer = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      logLevel: 'silent',
      vectorAnn: false,
      lockWaitMs: 2_500,
    })
    const url = server.url
    try {
      expect((await remember(url, 'written before any lock')).status).toBe(200)
      const file = databasePath(dataDir)

      // Held for less than the wait budget: the write waits, then commits.
      const short = await holdLock(file, 1_500)
      let probe = pollLiveness(url)
      const waited = await remember(url, 'written once the lock is released')
      let gap = await probe.stop()
      expect(waited.status).toBe(200)
      // SQLite's own busy wait blocked the loop for the whole hold (≥ 1.5 s here).
      expect(gap, 'longest /health/live gap (ms) while the write waited').toBeLessThan(1_000)
      await exited(short)

      // Held past the budget: a typed 503 with Retry-After; reads are served meanwhile.
      const long = await holdLock(file, 6_000)
      probe = pollLiveness(url)
      const read = await fetch(`${url}/v1/memory/list`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ scope_id: 'lock:wait' }),
      })
      expect(read.status).toBe(200)
      const refused = await remember(url, 'refused while the lock is held')
      gap = await probe.stop()
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBe('1')
      const body = (await refused.json()) as {
        error: { code: string; details: Record<string, unknown> }
      }
      expect(body.error.code).toBe('storage_unavailable')
      expect(body.error.details).toMatchObject({ reason: 'busy', retry_after_seconds: 1 })
      expect(gap, 'longest /health/live gap (ms) while the write waited').toBeLessThan(1_000)
      // Lock contention is not a failing database: readiness stays ready.
      const ready = (await (await fetch(`${url}/health/ready`)).json()) as { status: string }
      expect(ready.status).toBe('ready')
      await exited(long)
      expect((await remember(url, 'refused while the lock is held')).status).toBe(200)
    } finally {
      await server.stop()
    }
  }, 60_000)
})
