/*
 * Crash safety on a real SQLite file: a child process (plain node ESM, importing the built `dist/`)
 * writes in a loop and is killed with SIGKILL at a random moment; the next child continues on the
 * same file. After every kill the test opens the database itself and checks that it verifies and
 * that every acknowledged write is there. Needs `npm run build` first (`npm test` does it).
 *
 * The child prints an `intent` line before each call and an `ack` line after it resolved, so at
 * most one write (the last intent without an ack) may have committed without being acknowledged;
 * every other memory must be exactly as last acknowledged. Only complete stdout lines count.
 */
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

import { afterAll, afterEach, describe, expect, it } from 'vitest'

import type { Memory, MemoryState } from '../../src/core/memory-model.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'

const DIST_ENTRY = fileURLToPath(new URL('../../dist/storage/sqlite/index.js', import.meta.url))
const CHILD = fileURLToPath(new URL('../fixtures/crash-writer-child.mjs', import.meta.url))
const SCOPE = 'proj_crash'
const KILLS = 8

interface Line {
  readonly t: string
  readonly [key: string]: unknown
}

interface Written {
  readonly id: string
  readonly revision: number
  readonly state: MemoryState
  readonly text: string
}

interface Ack extends Line {
  readonly op: string
  readonly changes: number
  readonly memories: readonly Written[]
}

interface Intent extends Line {
  readonly op: 'remember' | 'update' | 'forget' | 'restore'
  readonly ids?: readonly string[]
  readonly count?: number
}

/** A child whose complete stdout lines are parsed as they arrive; a partial last line is not. */
interface Child {
  readonly proc: ChildProcess
  readonly lines: Line[]
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Bytes after the last newline when the child went away (a line cut short, never counted). */
  partial: () => string
  stderr: () => string
}

const live = new Set<ChildProcess>()

function spawnChild(args: readonly string[], onLine: () => void): Child {
  const proc = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  live.add(proc)
  const lines: Line[] = []
  let partial = ''
  let stderr = ''
  proc.stdout!.setEncoding('utf8')
  proc.stdout!.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n')
    partial = parts.pop() ?? ''
    for (const raw of parts) {
      try {
        lines.push(JSON.parse(raw) as Line)
      } catch {
        lines.push({ t: 'unparsable', raw })
      }
    }
    onLine()
  })
  proc.stderr!.setEncoding('utf8')
  proc.stderr!.on('data', (chunk: string) => {
    stderr += chunk
  })
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('close', (code, signal) => {
      live.delete(proc)
      onLine()
      resolve({ code, signal })
    })
  })
  return { proc, lines, closed, partial: () => partial, stderr: () => stderr }
}

/** mulberry32: a seeded generator, so a failing kill schedule can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0
}

let dir: string | undefined

/** Children import the build; fail each test (not just the file) with a clear message without it. */
function requireDist(): void {
  if (!existsSync(DIST_ENTRY)) {
    throw new Error(`${DIST_ENTRY} is missing: run npm run build first (npm test does it)`)
  }
}

afterEach(() => {
  for (const proc of live) proc.kill('SIGKILL')
})

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

describe('SQLite backend: crash safety', () => {
  it('SIGKILL at random moments loses no acknowledged write and leaves a valid database', async () => {
    requireDist()
    dir = mkdtempSync(join(tmpdir(), 'pc-sqlite-crash-'))
    const database = join(dir, 'memory.db')
    const seed = Number(process.env.PC_CRASH_SEED ?? Date.now() % 2 ** 31)
    const rand = random(seed)
    const where = `(seed ${seed}; replay with PC_CRASH_SEED=${seed})`
    /** Every memory as last acknowledged (or, after a check, as the database holds it). */
    const model = new Map<string, Written>()
    let ackedChanges = 0
    const report: string[] = []
    const started = Date.now()
    const budget = started + 45_000 // under the 60 s test timeout, with room for the last check

    for (let kill = 1; kill <= KILLS; kill += 1) {
      expect(Date.now(), `time budget spent before kill ${kill} ${where}`).toBeLessThan(budget)
      const threshold = 10 + Math.floor(rand() * 140)
      const extraMs = Math.floor(rand() * 12)
      let wake: () => void = () => undefined
      const child = spawnChild([database, SCOPE, '100000', '20000'], () => wake())
      const acks = () => child.lines.filter((l) => l.t === 'ack').length
      const running = () => child.proc.exitCode === null && child.proc.signalCode === null
      const deadline = Math.min(Date.now() + 15_000, budget)
      while (acks() < threshold && running() && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 250)
        })
      }
      expect(acks(), `child ${kill} stopped early: ${child.stderr()} ${where}`).toBeGreaterThan(0)
      expect(running(), `child ${kill} exited: ${child.stderr()} ${where}`).toBe(true)
      if (extraMs > 0) await sleep(extraMs)
      const walAtKill = fileSize(`${database}-wal`)
      child.proc.kill('SIGKILL')
      const exit = await child.closed
      expect(exit, `${child.stderr()} ${where}`).toEqual({ code: null, signal: 'SIGKILL' })
      expect(child.lines.filter((l) => l.t === 'unparsable')).toEqual([])
      expect(child.lines.filter((l) => l.t === 'done')).toEqual([])

      // Replay what was acknowledged; the last intent without an ack is the one write in flight.
      let pending: Intent | undefined
      const ackLines: Ack[] = []
      for (const line of child.lines) {
        if (line.t === 'intent') pending = line as Intent
        if (line.t !== 'ack') continue
        const ack = line as Ack
        ackLines.push(ack)
        pending = undefined
        ackedChanges += ack.changes
        for (const m of ack.memories) model.set(m.id, m)
      }
      const pendingIds = new Set(pending?.ids ?? [])

      const backend = await openSqliteBackend({ database })
      try {
        const verified = await backend.verify()
        expect(verified.problems, `after kill ${kill} ${where}`).toEqual([])
        expect(verified.ok).toBe(true)

        // Every acknowledged version is stored with the text it was acknowledged with.
        for (const ack of ackLines) {
          for (const m of ack.memories) {
            const got = await backend.get({ scopeId: SCOPE, memoryId: m.id, revision: m.revision })
            expect(got.memory.text, `${m.id}@${m.revision} ${where}`).toBe(m.text)
            expect(got.currentRevision).toBeGreaterThanOrEqual(m.revision)
          }
        }

        // Each memory is exactly as last acknowledged, unless the write in flight touched it.
        const stored = new Map<string, Memory>()
        for (let after: string | undefined; ;) {
          const page = await backend.list({
            scopeId: SCOPE,
            states: ['active', 'forgotten', 'merged', 'retired'],
            limit: 500,
            ...(after === undefined ? {} : { after }),
          })
          for (const m of page.memories) stored.set(m.memoryRef.artifactId, m)
          if (page.nextAfter === null) break
          after = page.nextAfter
        }
        expect(stored.size).toBe(verified.counts.memories)
        const diverged: string[] = []
        for (const [id, last] of model) {
          const now = stored.get(id)
          expect(now, `acknowledged memory ${id} is missing ${where}`).toBeDefined()
          const same =
            now!.memoryRef.revision === last.revision &&
            now!.state === last.state &&
            now!.text === last.text
          if (same) continue
          expect(pendingIds.has(id), `${id}: ${JSON.stringify(last)} → ${now!.state}`).toBe(true)
          expect(now!.memoryRef.revision).toBeGreaterThanOrEqual(last.revision)
          diverged.push(id)
        }
        const unknown = [...stored.values()].filter((m) => !model.has(m.memoryRef.artifactId))
        if (unknown.length > 0) {
          // Only an unacknowledged remember may have created memories nobody was told about.
          expect(pending?.op, `unexpected memories ${where}`).toBe('remember')
          expect(unknown.length).toBe(pending!.count)
          for (const m of unknown) expect(m.memoryRef.revision).toBe(1)
        }

        // The change log holds the acknowledged rows, plus those of the write in flight if it
        // committed: all of them or none.
        const { headSeq } = await backend.changes({ scopeId: SCOPE, since: 0, limit: 1 })
        const extra = headSeq - ackedChanges
        const maxExtra =
          pending === undefined
            ? 0
            : pending.op === 'remember'
              ? pending.count!
              : pending.op === 'restore'
                ? 2
                : 1
        expect(
          extra,
          `head seq ${headSeq}, acknowledged ${ackedChanges} ${where}`,
        ).toBeGreaterThanOrEqual(0)
        expect(extra).toBeLessThanOrEqual(maxExtra)
        const inFlightCommitted = extra > 0
        expect(diverged.length + unknown.length > 0, where).toBe(inFlightCommitted)
        if (pending?.op === 'remember') expect(extra).toBe(unknown.length)

        // The database is the truth from here on: adopt the write in flight if it committed.
        for (const id of [...diverged, ...unknown.map((m) => m.memoryRef.artifactId)]) {
          const m = stored.get(id)!
          model.set(id, { id, revision: m.memoryRef.revision, state: m.state, text: m.text })
        }
        ackedChanges = headSeq
        report.push(
          `kill ${kill}: ${ackLines.length} acks (target ${threshold}+${extraMs} ms), ` +
            `in flight ${pending?.op ?? 'none'}${inFlightCommitted ? ' (committed)' : ''}, ` +
            `wal ${walAtKill} B, partial line ${child.partial().length} B, ` +
            `${verified.counts.memories} memories / ${verified.counts.changes} changes`,
        )
      } finally {
        await backend.close()
      }
    }
    console.info(`crash test ${where}, ${Date.now() - started} ms:\n  ${report.join('\n  ')}`)
  })
})
