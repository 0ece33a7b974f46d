/*
 * Real multi-process concurrency on one SQLite file: child processes (plain node ESM, importing the
 * built `dist/`) write to the same database as the test. Needs `npm run build` first (`npm test`
 * does it). Children print one JSON object per line on stdout; only complete lines are counted.
 */
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, afterEach, describe, expect, it } from 'vitest'

import type { MemoryChange } from '../../src/core/memory-model.js'
import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'

const DIST_ENTRY = fileURLToPath(new URL('../../dist/storage/sqlite/index.js', import.meta.url))
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url))
const SCOPE = 'proj_concurrency'

/** Lines a child printed, parsed, plus completion handles. */
interface Child {
  readonly proc: ChildProcess
  readonly lines: Record<string, unknown>[]
  /**
   * Resolves when the process has exited and its stdio is closed (every line is in `lines`); a
   * child still running after `ms` is killed and the promise rejects.
   */
  exit: (ms: number) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr: () => string
  /** Resolves once `test(lines)` holds; rejects on exit or after `ms`. */
  waitFor: (
    what: string,
    test: (lines: Record<string, unknown>[]) => boolean,
    ms: number,
  ) => Promise<void>
}

const live = new Set<ChildProcess>()

function spawnChild(script: string, args: readonly string[]): Child {
  const proc = spawn(process.execPath, [join(FIXTURES, script), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  live.add(proc)
  const lines: Record<string, unknown>[] = []
  const listeners = new Set<() => void>()
  let partial = ''
  let stderr = ''
  proc.stdout!.setEncoding('utf8')
  proc.stdout!.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n')
    partial = parts.pop() ?? '' // an incomplete last line waits for the rest (or is dropped)
    for (const raw of parts) {
      try {
        lines.push(JSON.parse(raw) as Record<string, unknown>)
      } catch {
        lines.push({ t: 'unparsable', raw })
      }
    }
    for (const l of listeners) l()
  })
  proc.stderr!.setEncoding('utf8')
  proc.stderr!.on('data', (chunk: string) => {
    stderr += chunk
  })
  proc.stdin!.on('error', () => undefined) // a child that died must not crash the test process
  let exited = false
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('close', (code, signal) => {
      exited = true
      live.delete(proc)
      for (const l of listeners) l()
      resolve({ code, signal })
    })
  })
  const waitFor = (
    what: string,
    test: (lines: Record<string, unknown>[]) => boolean,
    ms: number,
  ): Promise<void> =>
    new Promise((resolve, reject) => {
      const done = (err?: Error) => {
        clearTimeout(timer)
        listeners.delete(check)
        if (err === undefined) resolve()
        else reject(err)
      }
      const check = () => {
        if (test(lines)) done()
        else if (exited) {
          done(
            new Error(
              `child ${script} exited before ${what}: ${JSON.stringify(lines.at(-1))} ${stderr}`,
            ),
          )
        }
      }
      const timer = setTimeout(
        () => done(new Error(`child ${script} timed out waiting for ${what}: ${stderr}`)),
        ms,
      )
      listeners.add(check)
      check()
    })
  const exit = async (ms: number) => {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        proc.kill('SIGKILL')
        reject(new Error(`child ${script} still running after ${ms} ms: ${stderr}`))
      }, ms)
    })
    try {
      return await Promise.race([closed, timeout])
    } finally {
      clearTimeout(timer)
    }
  }
  return { proc, lines, exit, stderr: () => stderr, waitFor }
}

function ofType(lines: readonly Record<string, unknown>[], t: string): Record<string, unknown>[] {
  return lines.filter((l) => l.t === t)
}

/** Every change-log row of the scope, paging through `changes`. */
async function allChanges(backend: SqliteMemoryBackend): Promise<{
  changes: MemoryChange[]
  headSeq: number
}> {
  const changes: MemoryChange[] = []
  let headSeq = 0
  for (let since = 0; ;) {
    const page = await backend.changes({ scopeId: SCOPE, since, limit: 10_000 })
    headSeq = page.headSeq
    changes.push(...page.changes)
    if (page.changes.length === 0 || changes.length >= headSeq) break
    since = page.changes.at(-1)!.seq
  }
  return { changes, headSeq }
}

const dirs: string[] = []
function tempDatabase(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return join(dir, 'memory.db')
}

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
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('SQLite backend: concurrent processes on one file', () => {
  it('two processes updating the same memory from revision 1: exactly one wins', async () => {
    requireDist()
    const database = tempDatabase('pc-sqlite-race-')
    const rounds = 10
    const wins = [0, 0]
    const skews: number[] = []
    let overlapping = 0
    const started = Date.now()
    for (let round = 0; round < rounds; round += 1) {
      expect(Date.now() - started, `time budget spent before round ${round}`).toBeLessThan(40_000)
      const backend = await openSqliteBackend({ database })
      const created = await backend.remember({
        scopeId: SCOPE,
        entries: [{ kind: 'fact', text: `race round ${round} base` }],
      })
      const memoryId = created.results[0]!.memory.memoryRef.artifactId
      await backend.close()

      const texts = [`race round ${round} from child A`, `race round ${round} from child B`]
      const racers = texts.map((text) =>
        spawnChild('update-race-child.mjs', [database, SCOPE, memoryId, text]),
      )
      await Promise.all(
        racers.map((c) => c.waitFor('ready', (l) => ofType(l, 'ready').length === 1, 15_000)),
      )
      const at = Number(process.hrtime.bigint()) / 1e6 + 40
      // Alternate who is told first, so the order of the go lines cannot decide every round.
      const order = round % 2 === 0 ? racers : [...racers].reverse()
      for (const c of order) c.proc.stdin!.end(`go ${at}\n`)
      const exits = await Promise.all(racers.map((c) => c.exit(15_000)))
      const results = racers.map((c, i) => {
        expect(exits[i], c.stderr()).toEqual({ code: 0, signal: null })
        const r = ofType(c.lines, 'result')
        expect(r, c.stderr()).toHaveLength(1)
        return r[0]!
      })
      skews.push(Math.abs((results[0]!.startedAt as number) - (results[1]!.startedAt as number)))

      const winners = results.flatMap((r, i) => (r.ok === true ? [i] : []))
      expect(winners, JSON.stringify(results)).toHaveLength(1)
      const w = winners[0]!
      const loser = results[1 - w]!
      wins[w]! += 1
      // Overlap: the loser started before the winner's update had returned.
      if (
        (loser.startedAt as number) <
        (results[w]!.startedAt as number) + (results[w]!.ms as number)
      )
        overlapping += 1
      expect(results[w]).toMatchObject({ status: 'updated', revision: 2, text: texts[w] })
      expect(loser).toMatchObject({ ok: false, powerContextError: true, code: 'revision_conflict' })

      const check = await openSqliteBackend({ database })
      try {
        const got = await check.get({ scopeId: SCOPE, memoryId })
        expect(got.currentRevision).toBe(2)
        expect(got.state).toBe('active')
        expect(got.memory.text).toBe(texts[w])
        const history = await check.history({ scopeId: SCOPE, memoryId })
        expect(history.versions.map((v) => v.memoryRef.revision)).toEqual([1, 2])
        expect(history.versions.map((v) => v.text)).toEqual([`race round ${round} base`, texts[w]])
        expect(history.transitions.map((t) => t.op)).toEqual(['add', 'update'])
        const report = await check.verify()
        expect(report.problems).toEqual([])
        expect(report.ok).toBe(true)
      } finally {
        await check.close()
      }
    }
    skews.sort((a, b) => a - b)
    console.info(
      `update race: ${rounds} rounds in ${Date.now() - started} ms, wins A/B ${wins.join('/')}, ` +
        `start skew median ${skews[rounds >> 1]!.toFixed(2)} ms, max ${skews.at(-1)!.toFixed(2)} ms, ` +
        `${overlapping} rounds with overlapping calls`,
    )
  })

  it('8 writer processes: every acknowledged write is stored, the change log is contiguous', async () => {
    requireDist()
    const database = tempDatabase('pc-sqlite-writers-')
    const writers = 8
    const entriesPerWriter = 100
    const started = Date.now()
    // The file does not exist yet: all writers race to create it. Writers 6 and 7 wait at most 1 ms
    // inside SQLite, so the backend's own busy retries run too (at open as well as on every write).
    const children = Array.from({ length: writers }, (_, i) =>
      spawnChild('writer-child.mjs', [
        database,
        SCOPE,
        String(i),
        String(entriesPerWriter),
        '20000',
        ...(i >= 6 ? ['1'] : []),
      ]),
    )
    await Promise.all(
      children.map((c) =>
        c.waitFor('ready', (l) => l.some((x) => x.t === 'ready' || x.t === 'error'), 15_000),
      ),
    )
    for (const c of children) c.proc.stdin!.end('go\n')
    const exits = await Promise.all(children.map((c) => c.exit(30_000)))
    const elapsed = Date.now() - started

    const acks: { id: string; revision: number; text: string }[] = []
    const stats: Record<string, unknown>[] = []
    children.forEach((c, i) => {
      expect(ofType(c.lines, 'unparsable')).toEqual([])
      const errors = ofType(c.lines, 'error')
      expect(errors, `writer ${i}: ${c.stderr()}`).toEqual([])
      expect(c.stderr()).not.toMatch(/SQLITE_BUSY|internal_error/)
      expect(exits[i], c.stderr()).toEqual({ code: 0, signal: null })
      const done = ofType(c.lines, 'done')
      expect(done).toHaveLength(1)
      expect(done[0]).toMatchObject({ complete: true, entries: entriesPerWriter })
      stats.push(done[0]!)
      for (const a of ofType(c.lines, 'ack')) {
        acks.push({ id: a.id as string, revision: a.revision as number, text: a.text as string })
      }
    })

    const backend = await openSqliteBackend({ database })
    try {
      const latest = new Map<string, number>()
      for (const a of acks) {
        const got = await backend.get({ scopeId: SCOPE, memoryId: a.id, revision: a.revision })
        expect(got.memory.text).toBe(a.text)
        expect(got.state).toBe('active')
        latest.set(a.id, Math.max(latest.get(a.id) ?? 0, a.revision))
      }
      expect(latest.size).toBe(writers * entriesPerWriter)
      for (const [memoryId, revision] of latest) {
        const got = await backend.get({ scopeId: SCOPE, memoryId })
        expect(got.currentRevision).toBe(revision)
      }

      const { changes, headSeq } = await allChanges(backend)
      expect(headSeq).toBe(acks.length)
      expect(changes.map((c) => c.seq)).toEqual(Array.from({ length: headSeq }, (_, i) => i + 1))
      const written = new Set(acks.map((a) => `${a.id}@${a.revision}`))
      expect(new Set(changes.map((c) => `${c.memoryId}@${c.toRevision}`))).toEqual(written)

      const report = await backend.verify()
      expect(report.problems).toEqual([])
      expect(report.ok).toBe(true)
      expect(report.counts).toMatchObject({
        memories: writers * entriesPerWriter,
        versions: acks.length,
        heads: writers * entriesPerWriter,
        changes: acks.length,
      })
    } finally {
      await backend.close()
    }
    const sum = (k: string) => stats.reduce((n, s) => n + (s[k] as number), 0)
    console.info(
      `${writers} writers: ${acks.length} acknowledged versions (${sum('updates')} updates) in ` +
        `${sum('calls')} calls, ${elapsed} ms wall; busy retries per writer ` +
        `${stats.map((s) => s.busyRetries).join('/')}; slowest call per writer ` +
        `${stats.map((s) => s.maxCallMs).join('/')} ms`,
    )
  })
})
