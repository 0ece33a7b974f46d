/*
 * Damage served as data: bytes flipped in a real SQLite file — a version row's JSON and text,
 * and the key columns (`memory_id`) of versions, memories and the change feed. Each damaged row
 * is a typed `storage_unavailable` (`corrupt`) naming the row; `admin verify` (default) lists
 * every problem and never crashes; the background damage check finds key damage the open-time
 * check passes; readiness reports it and writes are refused; `admin export` refuses; `admin
 * salvage` copies every row that still verifies into a new database and lists the rest.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { runDamageCheck } from '../../src/storage/sqlite/sqlite-damage-check.js'
import { expectCode } from '../conformance/harness.case.js'
import { flipByte } from '../support/sqlite-damage.js'

const root = mkdtempSync(join(tmpdir(), 'pc-sqlite-damage-'))
const pristine = join(root, 'pristine.db')
afterAll(() => rmSync(root, { recursive: true, force: true }))

const scopeId = 'damage'
const ids: Record<string, string> = {}
let mergeId = ''

beforeAll(async () => {
  const b = await openSqliteBackend({ database: pristine, vectorAnn: false })
  const texts = ['plain alpha fact', 'updated bravo fact', 'merge input one', 'merge input two']
  const { results } = await b.remember({
    scopeId,
    entries: texts.map((text) => ({ kind: 'fact', text })),
  })
  results.forEach(
    (r, i) =>
      (ids[['plain', 'updated', 'in1', 'in2'][i] as string] = r.memory.memoryRef.artifactId),
  )
  await b.update({
    scopeId,
    memoryRef: { artifactId: ids['updated'] as string, revision: 1 },
    text: 'updated bravo fact, second version',
  })
  const merged = await b.merge({
    scopeId,
    kind: 'fact',
    text: 'merged result of inputs',
    inputs: [
      { artifactId: ids['in1'] as string, revision: 1 },
      { artifactId: ids['in2'] as string, revision: 1 },
    ],
  })
  ids['result'] = merged.memory.memoryRef.artifactId
  mergeId = merged.mergeId
  await b.remember({ scopeId, entries: [{ kind: 'fact', text: 'a later fact' }] })
  await b.close()
})

let n = 0
/** A fresh copy of the pristine file in its own data directory. */
function copy(): { dir: string; file: string } {
  n += 1
  const dir = join(root, `d${n}`)
  const file = join(dir, 'powercontext.db')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir)
  copyFileSync(pristine, file)
  return { dir, file }
}

async function cli(dir: string, ...args: string[]): Promise<{ code: number; out: string }> {
  let out = ''
  const write = (t: string): void => void (out += t.endsWith('\n') ? t : `${t}\n`)
  const code = await main(['node', 'powercontext', '--data-dir', dir, ...args], {
    out: write,
    err: write,
  })
  return { code, out }
}

/** The last letter of a ULID id: XOR 0x40 turns it into a control character. */
const lastLetter = (id: string): number =>
  id.length - 1 - [...id].reverse().findIndex((c) => /[A-Z]/.test(c))

describe('a version row with flipped bytes', () => {
  it('get and history are storage_unavailable (corrupt) naming the row; verify lists it; export refuses; writes stop', async () => {
    const { dir, file } = copy()
    // The merge result's artifacts JSON: `"artifact_id":` becomes `"artifact_id"z` (not JSON).
    flipByte(file, 'memory_versions', '"artifact_id":', 13, 0x40)
    const result = ids['result'] as string
    const rt = await MemoryRuntime.open({ dataDir: dir, vectorAnn: false })
    try {
      const err = await expectCode(rt.get({ scopeId, memoryId: result }), 'storage_unavailable')
      expect(err.details).toEqual({ reason: 'corrupt', row: `memory_versions ${result}@1` })
      expect(err.message).toContain('admin salvage')
      await expectCode(rt.history({ scopeId, memoryId: result }), 'storage_unavailable')
      // Other memories still read.
      expect((await rt.get({ scopeId, memoryId: ids['plain'] as string })).memory.text).toBe(
        'plain alpha fact',
      )
      const ready = await rt.readiness()
      expect(ready.checks['storage']).toBe('unavailable: corrupt')
      expect(ready.status).toBe('degraded')
      const write = await expectCode(
        rt.remember({ scopeId, entries: [{ kind: 'fact', text: 'not acknowledged' }] }),
        'storage_unavailable',
      )
      expect(write.details).toMatchObject({ reason: 'corrupt' })
    } finally {
      await rt.close()
    }
    const verify = await cli(dir, 'admin', 'verify')
    expect(verify.code).toBe(1)
    expect(verify.out).toMatch(/^FAILED: 6 memories/)
    expect(verify.out).toContain(`memory_versions ${result}@1`)
    expect(verify.out).not.toContain('internal_error')
    const exported = await cli(dir, 'admin', 'export', '--output', join(dir, 'out.jsonl'))
    expect(exported.code).not.toBe(0)
    expect(exported.out).toContain(`storage_unavailable: stored row memory_versions ${result}@1`)
  })

  it('admin salvage copies every row that verifies and lists the rest', async () => {
    const { dir, file } = copy()
    // The second version of `updated`: its text no longer matches its hash.
    flipByte(file, 'memory_versions', 'second version', 0, 0x20)
    const to = join(dir, 'salvaged')
    const out = await cli(dir, 'admin', 'salvage', '--to-data-dir', to)
    expect(out.out).toContain(`memory_versions ${ids['updated']}@2: content hash does not match`)
    expect(out.out).toContain(`memory ${ids['updated']}: a version is damaged or missing`)
    expect(out.out).toContain('verify of the new database: ok')
    expect(out.code).toBe(0)
    const rt = await MemoryRuntime.open({ dataDir: to, vectorAnn: false })
    try {
      const listed = await rt.list({ scopeId, limit: 50 })
      expect(listed.memories.map((m) => m.text).sort()).toEqual(
        ['a later fact', 'merged result of inputs', 'plain alpha fact'].sort(),
      )
      const changes = await rt.changes({ scopeId, since: 0, limit: 50 })
      expect(changes.changes.map((c) => c.seq)).toEqual(changes.changes.map((_, i) => i + 1))
      expect(changes.changes.some((c) => c.memoryId === ids['updated'])).toBe(false)
      expect((await rt.verify()).ok).toBe(true)
      expect(mergeId).not.toBe('')
    } finally {
      await rt.close()
    }
  })
})

describe('flipped bytes in key columns', () => {
  const cases = [
    ['memory_versions', 'plain'],
    ['memories', 'plain'],
    ['memory_changes', 'plain'],
  ] as const
  for (const [table, which] of cases) {
    it(`${table}.memory_id: open passes, default verify and the background check find it, readiness reports it, writes stop`, async () => {
      const { dir, file } = copy()
      const id = ids[which] as string
      flipByte(file, table, id, lastLetter(id))
      // The open-time quick_check passes: the damage is in a row, not in the page structure.
      const backend = await openSqliteBackend({ database: file, vectorAnn: false })
      await backend.close()
      const verify = await cli(dir, '--json', 'admin', 'verify')
      expect(verify.code).toBe(1)
      const report = JSON.parse(verify.out) as { ok: boolean; problems: string[] }
      expect(report.ok).toBe(false)
      expect(report.problems.some((p) => p.startsWith('SQLite integrity_check: '))).toBe(true)
      const background = await runDamageCheck(file)
      expect(background.length).toBeGreaterThan(0)
      const rt = await MemoryRuntime.open({ dataDir: dir, vectorAnn: false })
      try {
        expect((await rt.readiness()).checks['storage']).toBe('ready')
        const found = await new Promise<readonly string[]>((resolve) =>
          rt.startIndexMaintenance({ onDamage: resolve }),
        )
        expect(found).toEqual(background)
        const ready = await rt.readiness()
        expect(ready).toMatchObject({
          status: 'degraded',
          checks: { storage: 'unavailable: corrupt' },
        })
        await expectCode(
          rt.remember({ scopeId, entries: [{ kind: 'fact', text: 'not acknowledged' }] }),
          'storage_unavailable',
        )
        // The change feed never serves an id with a control character.
        try {
          const page = await rt.changes({ scopeId, since: 0, limit: 50 })
          for (const c of page.changes) expect(c.memoryId).toMatch(/^[\x21-\x7e]+$/)
        } catch (err) {
          expect((err as { code?: string }).code).toBe('storage_unavailable')
        }
      } finally {
        await rt.close()
      }
    })
  }
})
