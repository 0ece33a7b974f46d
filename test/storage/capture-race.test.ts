/*
 * Capture and flush racing across processes on one SQLite file (docs/sources-and-flush.md): distinct
 * captures get contiguous positions without gaps, identical captures one position, and flushes
 * of one scope from several processes never process a source twice (cursor compare-and-set).
 * Children import the build (`npm run build` first; `npm test` does it).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, describe, expect, it } from 'vitest'

import { MEMORY_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'

const CHILD = fileURLToPath(new URL('../fixtures/capture-child.mjs', import.meta.url))
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-capture-race-'))
  dirs.push(dir)
  return dir
}

type Done = { t: string; positions?: number[]; windows?: [number, number][]; message?: string }

/** Starts children, waits until all are ready, releases them at once, collects their results. */
async function race(dataDir: string, jobs: string[][]): Promise<Done[]> {
  const procs: ChildProcess[] = []
  const results = jobs.map((args) => {
    const proc = spawn(process.execPath, [CHILD, dataDir, ...args], { stdio: 'pipe' })
    procs.push(proc)
    let out = ''
    let err = ''
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    const ready = new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (out.includes('"ready"')) resolve()
      }
      proc.stdout!.on('data', check)
      proc.on('exit', () => reject(new Error(`child exited early: ${err}`)))
    })
    const done = new Promise<Done>((resolve, reject) => {
      proc.on('exit', () => {
        const last = out.trim().split('\n').at(-1) ?? ''
        try {
          resolve(JSON.parse(last) as Done)
        } catch {
          reject(new Error(`no result from child: ${out} ${err}`))
        }
      })
    })
    return { proc, ready, done }
  })
  await Promise.all(results.map((r) => r.ready))
  for (const r of results) r.proc.stdin!.end('go\n')
  return Promise.all(results.map((r) => r.done))
}

describe('capture and flush across processes on one SQLite file', () => {
  it('distinct captures get positions 1..n, identical ones a single position', async () => {
    const dataDir = tempDir()
    const writers = [0, 1, 2, 3]
    const done = await race(
      dataDir,
      writers.map((w) => ['capture', 'race:distinct', '16', String(w)]),
    )
    expect(done.map((d) => d.t)).toEqual(writers.map(() => 'done'))
    const positions = done.flatMap((d) => d.positions ?? []).sort((a, b) => a - b)
    expect(positions).toEqual(Array.from({ length: 64 }, (_, i) => i + 1))

    const same = await race(
      dataDir,
      [0, 1, 2, 3, 4, 5, 6, 7].map(() => ['same', 'race:same', '8']),
    )
    const samePositions = new Set(same.flatMap((d) => d.positions ?? []))
    expect(samePositions).toEqual(new Set([1]))
    const rt = await MemoryRuntime.open({ dataDir })
    try {
      const next = await rt.captureSource({ scopeId: 'race:same', content: 'next one' })
      expect(next.position).toBe(2)
      expect((await rt.list({ scopeId: 'race:distinct' })).memories).toEqual([])
    } finally {
      await rt.close()
    }
  })

  it('concurrent flushes of one scope from several processes never process a source twice', async () => {
    const dataDir = tempDir()
    const scopeId = 'race:flush'
    const rt = await MemoryRuntime.open({ dataDir })
    try {
      for (let i = 0; i < 30; i += 1)
        await rt.captureSource({
          scopeId,
          sourceId: `s${i}`,
          mediaType: MEMORY_MEDIA_TYPE,
          content: JSON.stringify({
            entries: [{ kind: 'fact', text: `Fact number ${i} of the race.` }],
          }),
        })
    } finally {
      await rt.close()
    }
    const done = await race(
      dataDir,
      [0, 1, 2, 3].map(() => ['flush', scopeId, '30']),
    )
    expect(
      done.map((d) => d.t),
      JSON.stringify(done),
    ).toEqual(['done', 'done', 'done', 'done'])
    const windows = done.flatMap((d) => d.windows ?? []).sort((a, b) => a[0] - b[0])
    let end = 0
    for (const [from, to] of windows) {
      expect(from).toBe(end)
      end = to
    }
    expect(end).toBe(30)
    const after = await MemoryRuntime.open({ dataDir })
    try {
      const { memories } = await after.list({ scopeId, limit: 500 })
      expect(memories).toHaveLength(30)
      expect(new Set(memories.map((m) => m.text)).size).toBe(30)
      const { records } = await after.flushRecords({ scopeId, limit: 100 })
      expect(records.map((r) => [r.fromPosition, r.toPosition])).toEqual(windows)
      expect((await after.verify()).problems).toEqual([])
    } finally {
      await after.close()
    }
  })
})
