/*
 * Merges and restores racing across processes on one SQLite file (docs/memory-model.md: one
 * active memory can never be absorbed by two effective merges, the state check is inside the
 * transaction). Child processes import the build (`npm run build` first; `npm test` does it),
 * stay up for every round, and run each command at one shared monotonic instant.
 */
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, afterEach, describe, expect, it } from 'vitest'

import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'

const DIST_ENTRY = fileURLToPath(new URL('../../dist/storage/sqlite/index.js', import.meta.url))
const CHILD = fileURLToPath(new URL('../fixtures/merge-race-child.mjs', import.meta.url))
const SCOPE = 'proj_merge_race'
const LOSER_CODES = ['state_conflict', 'revision_conflict']

type Line = Record<string, unknown>

/** One long-lived child: send a command, await its result line. */
interface Racer {
  readonly proc: ChildProcess
  readonly ready: Promise<Line>
  send(cmd: Record<string, unknown>): void
  result(round: number, ms: number): Promise<Line>
  stderr(): string
}

const live = new Set<ChildProcess>()
const dirs: string[] = []

afterEach(() => {
  for (const proc of live) proc.kill('SIGKILL')
})

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function spawnRacer(database: string): Racer {
  const proc = spawn(process.execPath, [CHILD, database, SCOPE], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  live.add(proc)
  proc.on('close', () => live.delete(proc))
  const lines: Line[] = []
  const waiters = new Set<() => void>()
  let partial = ''
  let stderr = ''
  let exited = false
  proc.stdout!.setEncoding('utf8')
  proc.stdout!.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n')
    partial = parts.pop() ?? ''
    for (const raw of parts) lines.push(JSON.parse(raw) as Line)
    for (const w of waiters) w()
  })
  proc.stderr!.setEncoding('utf8')
  proc.stderr!.on('data', (chunk: string) => {
    stderr += chunk
  })
  proc.on('close', () => {
    exited = true
    for (const w of waiters) w()
  })
  proc.stdin!.on('error', () => undefined)
  const waitFor = (test: (l: Line) => boolean, what: string, ms: number): Promise<Line> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new Error(`timed out waiting for ${what}: ${stderr}`)),
        ms,
      )
      const finish = (err?: Error, line?: Line) => {
        clearTimeout(timer)
        waiters.delete(check)
        if (err === undefined) resolve(line!)
        else reject(err)
      }
      const check = () => {
        const line = lines.find(test)
        if (line !== undefined) finish(undefined, line)
        else if (exited) finish(new Error(`child exited before ${what}: ${stderr}`))
      }
      waiters.add(check)
      check()
    })
  const racer: Racer = {
    proc,
    send: (cmd) => proc.stdin!.write(`${JSON.stringify(cmd)}\n`),
    result: (round, ms) =>
      waitFor((l) => l.t === 'result' && l.round === round, `round ${round}`, ms),
    stderr: () => stderr,
    ready: waitFor((l) => l.t === 'ready', 'ready', 15_000),
  }
  return racer
}

async function startRacers(database: string, n: number): Promise<Racer[]> {
  if (!existsSync(DIST_ENTRY)) {
    throw new Error(`${DIST_ENTRY} is missing: run npm run build first (npm test does it)`)
  }
  const racers = Array.from({ length: n }, () => spawnRacer(database))
  await Promise.all(racers.map((r) => r.ready))
  return racers
}

async function stopRacers(racers: readonly Racer[]): Promise<void> {
  await Promise.all(
    racers.map(
      (r) =>
        new Promise<void>((resolve) => {
          if (r.proc.exitCode !== null) return resolve()
          r.proc.on('close', () => resolve())
          r.proc.stdin!.end()
        }),
    ),
  )
  for (const r of racers) {
    expect(r.proc.exitCode, r.stderr()).toBe(0)
    expect(r.stderr()).not.toMatch(/internal_error|SQLITE_BUSY/)
  }
}

/** Runs one command per racer at one shared instant and returns their results in racer order. */
async function race(
  racers: readonly Racer[],
  round: number,
  commands: readonly Record<string, unknown>[],
): Promise<Line[]> {
  const at = Number(process.hrtime.bigint()) / 1e6 + 60
  // Rotate who is told first, so the order of the lines cannot decide every round.
  racers.forEach((_, i) => {
    const k = (i + round) % racers.length
    racers[k]!.send({ ...commands[k], round, at })
  })
  return Promise.all(racers.map((r) => r.result(round, 30_000)))
}

async function expectVerified(backend: SqliteMemoryBackend): Promise<void> {
  const report = await backend.verify()
  expect(report.problems).toEqual([])
  expect(report.ok).toBe(true)
}

async function remember(backend: SqliteMemoryBackend, texts: readonly string[]): Promise<string[]> {
  const { results } = await backend.remember({
    scopeId: SCOPE,
    entries: texts.map((text) => ({ kind: 'fact', text })),
  })
  return results.map((r) => r.memory.memoryRef.artifactId)
}

/** A, B → C; C, D → E (all at version 1), and an active F. */
async function chain(backend: SqliteMemoryBackend, label: string): Promise<Record<string, string>> {
  const [a, b, d, f] = await remember(
    backend,
    ['a', 'b', 'd', 'f'].map((x) => `${label} ${x}`),
  )
  const merge = async (inputs: string[], text: string) =>
    (
      await backend.merge({
        scopeId: SCOPE,
        inputs: inputs.map((artifactId) => ({ artifactId, revision: 1 })),
        kind: 'fact',
        text,
      })
    ).memory.memoryRef.artifactId
  const c = await merge([a!, b!], `${label} c`)
  const e = await merge([c, d!], `${label} e`)
  return { a: a!, b: b!, c, d: d!, e, f: f! }
}

function database(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return join(dir, 'memory.db')
}

describe('SQLite backend: merges and restores racing across processes', () => {
  it('4 processes merging overlapping pairs: no memory is absorbed twice', async () => {
    const file = database('pc-merge-race-')
    const backend = await openSqliteBackend({ database: file })
    const racers = await startRacers(file, 4)
    const rounds = 8
    const winners: string[] = []
    let overlapping = 0
    try {
      for (let round = 0; round < rounds; round += 1) {
        const ids = await remember(
          backend,
          [1, 2, 3, 4, 5].map((i) => `round ${round} memory m${i}`),
        )
        const head = (await backend.changes({ scopeId: SCOPE, since: 0, limit: 1 })).headSeq
        // Process i merges (M_i, M_i+1): neighbours share one input.
        const commands = racers.map((_, i) => ({
          op: 'merge',
          inputs: [ids[i], ids[i + 1]].map((artifactId) => ({ artifactId, revision: 1 })),
          text: `round ${round} merged by ${i}`,
        }))
        const results = await race(racers, round, commands)
        const won = results.flatMap((r, i) => (r.ok === true ? [i] : []))
        for (const r of results.filter((x) => x.ok !== true)) {
          expect(r, JSON.stringify(r)).toMatchObject({ powerContextError: true })
          expect(LOSER_CODES, JSON.stringify(r)).toContain(r.code)
        }
        expect(won.length, JSON.stringify(results)).toBeGreaterThanOrEqual(1)
        winners.push(won.join('+'))
        const end = Math.min(
          ...won.map((i) => (results[i]!.startedAt as number) + (results[i]!.ms as number)),
        )
        if (results.some((r) => r.ok !== true && (r.startedAt as number) < end)) overlapping += 1
        // Winners never share an input: no two neighbours both won.
        for (const i of won) expect(won, JSON.stringify(results)).not.toContain(i + 1)
        const absorbedBy = new Map<string, string>()
        for (const i of won) {
          for (const id of [ids[i]!, ids[i + 1]!])
            absorbedBy.set(id, results[i]!.resultId as string)
        }
        for (const memoryId of ids) {
          const got = await backend.get({ scopeId: SCOPE, memoryId })
          const into = absorbedBy.get(memoryId)
          expect(got.state).toBe(into === undefined ? 'active' : 'merged')
          expect(got.memory.mergedInto).toBe(into ?? null)
          const { merges } = await backend.history({ scopeId: SCOPE, memoryId })
          expect(merges.filter((m) => m.state === 'effective').map((m) => m.resultId)).toEqual(
            into === undefined ? [] : [into],
          )
        }
        // Losers wrote nothing: one `merge` row per result and per input of each winner.
        const after = (await backend.changes({ scopeId: SCOPE, since: 0, limit: 1 })).headSeq
        expect(after - head).toBe(3 * won.length)
        await expectVerified(backend)
      }
    } finally {
      await stopRacers(racers)
      await backend.close()
    }
    console.info(
      `merge race: ${rounds} rounds, winning racers ${winners.join(' ')}; ` +
        `${overlapping} rounds where a loser started before the first winner returned`,
    )
  })

  it('4 processes restoring inputs of the same merge chain: exactly one undoes it', async () => {
    const file = database('pc-restore-race-')
    const backend = await openSqliteBackend({ database: file })
    const racers = await startRacers(file, 4)
    const rounds = 8
    const outcomes: string[] = []
    try {
      for (let round = 0; round < rounds; round += 1) {
        const { a, b, c, d, e } = await chain(backend, `restore ${round}`)
        const head = (await backend.changes({ scopeId: SCOPE, since: 0, limit: 1 })).headSeq
        // Two racers restore B, two restore A; in odd rounds half of them hold a preview token.
        const commands = racers.map((_, i) => ({
          op: 'restore',
          memoryId: i < 2 ? b : a,
          preview: round % 2 === 1 && i % 2 === 0,
        }))
        const results = await race(racers, round, commands)
        const undid = results.filter((r) => r.ok === true && r.status === 'restored')
        expect(undid, JSON.stringify(results)).toHaveLength(1)
        expect(undid[0]).toMatchObject({ retired: [c, e].sort(), restored: [a, b, d].sort() })
        for (const r of results.filter((x) => x !== undid[0])) {
          if (r.ok === true) expect(r).toMatchObject({ status: 'unchanged', retired: [] })
          else expect([...LOSER_CODES, 'preview_stale'], JSON.stringify(r)).toContain(r.code)
        }
        outcomes.push(results.map((r) => (r.ok === true ? r.status : r.code)).join(','))
        for (const [id, state] of [
          [a, 'active'],
          [b, 'active'],
          [d, 'active'],
          [c, 'retired'],
          [e, 'retired'],
        ] as const) {
          expect((await backend.get({ scopeId: SCOPE, memoryId: id! })).state).toBe(state)
        }
        // One operation: retire C and E, unmerge A, B, C, D (C passes through active).
        const { changes } = await backend.changes({ scopeId: SCOPE, since: head })
        expect(new Set(changes.map((x) => x.operationId)).size).toBe(1)
        expect(
          changes
            .filter((x) => x.op === 'retire')
            .map((x) => x.memoryId)
            .sort(),
        ).toEqual([c, e].sort())
        await expectVerified(backend)
      }
    } finally {
      await stopRacers(racers)
      await backend.close()
    }
    console.info(`restore race: ${rounds} rounds: ${outcomes.join(' | ')}`)
  })

  it('a restore racing a merge, an update and a forget of the chain end stays consistent', async () => {
    const file = database('pc-restore-mixed-race-')
    const backend = await openSqliteBackend({ database: file })
    const racers = await startRacers(file, 4)
    const rounds = 8
    const outcomes: string[] = []
    try {
      for (let round = 0; round < rounds; round += 1) {
        const { a, b, c, d, e, f } = await chain(backend, `mixed ${round}`)
        const at1 = (artifactId: string) => ({ artifactId, revision: 1 })
        const commands = [
          { op: 'restore', memoryId: b, preview: round % 2 === 1 },
          { op: 'merge', inputs: [at1(e!), at1(f!)], text: `mixed ${round} g` },
          { op: 'update', memoryRef: at1(e!), text: `mixed ${round} e2` },
          { op: 'forget', memoryId: e, expectedRevision: 1 },
        ]
        const results = await race(racers, round, commands)
        outcomes.push(
          results.map((r) => (r.ok === true ? (r.status ?? 'merged') : r.code)).join(','),
        )
        const [restore, merge] = results as [Line, Line]
        for (const r of results.slice(1)) {
          if (r.ok !== true) expect(LOSER_CODES, JSON.stringify(r)).toContain(r.code)
        }
        // The restore may only lose to a move of the plan it previewed.
        if (restore.ok !== true) {
          expect(restore.code, JSON.stringify(results)).toBe('preview_stale')
          const again = await backend.restore({ scopeId: SCOPE, memoryId: b! })
          expect(again.status).toBe('restored')
        }
        // If the merge committed first, the restore undid it too: G retired, F back.
        const g = merge.ok === true ? (merge.resultId as string) : undefined
        const expected: [string, string][] = [
          [a!, 'active'],
          [b!, 'active'],
          [d!, 'active'],
          [f!, 'active'],
          [c!, 'retired'],
          [e!, 'retired'],
          ...(g === undefined ? [] : ([[g, 'retired']] as [string, string][])),
        ]
        for (const [memoryId, state] of expected) {
          const got = await backend.get({ scopeId: SCOPE, memoryId })
          expect(got.state, JSON.stringify(results)).toBe(state)
        }
        for (const text of [`mixed ${round} e`, `mixed ${round} e2`, `mixed ${round} g`]) {
          const { hits } = await backend.search({ scopeId: SCOPE, query: text })
          const ids = hits.map((h) => h.memoryRef.artifactId)
          for (const id of [c!, e!, g]) expect(ids).not.toContain(id)
        }
        await expectVerified(backend)
      }
    } finally {
      await stopRacers(racers)
      await backend.close()
    }
    console.info(
      `mixed race: ${rounds} rounds (restore,merge,update,forget): ${outcomes.join(' | ')}`,
    )
  })
})
