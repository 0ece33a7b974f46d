/*
 * A damaged SQLite file: one index page of a real database file overwritten.
 * Opening refuses it with a clear error; `admin verify` runs SQLite's full integrity check and
 * reports it; writes that hit the damage are a typed
 * `storage_unavailable` (`corrupt`), never `internal_error`.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { PowerContextError } from '../../src/core/errors.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { expectCode } from '../conformance/harness.case.js'

const dataDir = mkdtempSync(join(tmpdir(), 'pc-sqlite-integrity-'))
const file = join(dataDir, 'powercontext.db')
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  let out = ''
  const write = (t: string): void => void (out += t.endsWith('\n') ? t : `${t}\n`)
  const code = await main(['node', 'powercontext', '--data-dir', dataDir, ...args], {
    out: write,
    err: write,
  })
  return { code, out }
}

beforeAll(async () => {
  const backend = await openSqliteBackend({ database: file, vectorAnn: false })
  for (let i = 0; i < 12; i += 1) {
    await backend.remember({
      scopeId: 'integrity',
      entries: Array.from({ length: 10 }, (_, j) => ({
        kind: 'fact',
        text: `fact number ${i * 10 + j} about the ${['api', 'cli', 'db'][j % 3]} layer`,
      })),
    })
  }
  await backend.close()
  // Overwrite the root page of the index of memories by scope (an interior page: 120 entries).
  const db = new Database(file, { readonly: true })
  const { rootpage } = db
    .prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'memories_by_scope'")
    .get() as { rootpage: number }
  const pageSize = db.pragma('page_size', { simple: true }) as number
  db.close()
  const fd = openSync(file, 'r+')
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (rootpage - 1) * pageSize)
  closeSync(fd)
})

describe('a SQLite file with an overwritten index page', () => {
  it('is refused at open with a clear error', async () => {
    const err = await expectCode(openSqliteBackend({ database: file }), 'storage_unavailable')
    expect(err.message).toMatch(
      /^cannot open SQLite database .*powercontext\.db: the database file is damaged \(SQLite quick_check: .+\); run `powercontext admin verify`, then restore a backup or `powercontext admin salvage`/,
    )
    expect(err.details).toMatchObject({ reason: 'corrupt' })
  })

  it('admin verify runs integrity_check (--full is the same check)', async () => {
    const quick = await cli('admin', 'verify')
    expect(quick.code).toBe(1)
    expect(quick.out).toMatch(/^FAILED: /)
    expect(quick.out).toMatch(/ {2}- SQLite integrity_check: /)
    const full = await cli('--json', 'admin', 'verify', '--full')
    expect(full.code).toBe(1)
    const report = JSON.parse(full.out) as { ok: boolean; problems: string[] }
    expect(report.ok).toBe(false)
    expect(report.problems.some((p) => p.startsWith('SQLite integrity_check: '))).toBe(true)
  })

  it('writes that hit the damage are storage_unavailable (corrupt), never internal_error', async () => {
    const backend = await openSqliteBackend({ database: file, integrityCheck: false })
    const codes = new Map<string, number>()
    try {
      for (let i = 0; i < 40; i += 1) {
        try {
          await backend.remember({
            scopeId: 'integrity',
            entries: [{ kind: 'fact', text: `a later fact ${i}` }],
          })
          codes.set('ok', (codes.get('ok') ?? 0) + 1)
        } catch (err) {
          expect(err).toBeInstanceOf(PowerContextError)
          const e = err as PowerContextError
          codes.set(e.code, (codes.get(e.code) ?? 0) + 1)
          expect(e.code, e.message).toBe('storage_unavailable')
          expect(e.details).toEqual({ reason: 'corrupt' })
        }
      }
      expect(codes.get('storage_unavailable') ?? 0).toBeGreaterThan(0)
      expect(backend.storageChecks()).toEqual({ storage: 'unavailable: corrupt' })
    } finally {
      await backend.close()
    }
  })
})
