/*
 * Startup failures and readiness under real conditions: a data directory on a small tmpfs filled
 * to the last byte, the same filesystem remounted read-only, and a schema version bumped in the
 * file. `server run` says which and what to do (`storage_unavailable` with its reason, never
 * `internal_error`), and readiness reports a full disk before any write fails. Mounting needs
 * root: without it the filesystem tests are skipped with that reason.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { MIN_FREE_BYTES } from '../../src/storage/sqlite/sqlite-disk.js'

const root = mkdtempSync(join(tmpdir(), 'pc-startup-'))
const mounts: string[] = []
afterAll(() => {
  for (const m of mounts.reverse()) execFileSync('umount', ['-l', m])
  rmSync(root, { recursive: true, force: true })
})

/** A fresh tmpfs of `size` at a new directory, or the reason it cannot be mounted. */
function tmpfs(size: string): string | { skip: string } {
  const dir = join(root, `fs${mounts.length}`)
  mkdirSync(dir)
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (err) {
    return { skip: `mounting a tmpfs needs root (${(err as Error).message.split('\n')[0]})` }
  }
  mounts.push(dir)
  return dir
}

async function serverRun(dataDir: string): Promise<{ code: number; out: string }> {
  let out = ''
  const write = (t: string): void => void (out += t.endsWith('\n') ? t : `${t}\n`)
  const code = await main(
    ['node', 'powercontext', 'server', 'run', '--port', '0', '--data-dir', dataDir],
    {
      out: write,
      err: write,
    },
  )
  return { code, out }
}

async function seed(dataDir: string): Promise<void> {
  const b = await openSqliteBackend({
    database: join(dataDir, 'powercontext.db'),
    vectorAnn: false,
  })
  await b.remember({ scopeId: 'startup', entries: [{ kind: 'fact', text: 'written before' }] })
  await b.close()
}

/** Fills the filesystem of `dir` to its last block. */
function fill(dir: string): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=4096'], { stdio: 'pipe' })
  } catch {
    // dd ends with "No space left on device": the point
  }
}

describe('startup failures say which and what to do', () => {
  it('a full disk: storage_unavailable disk_full', async (ctx) => {
    const fs = tmpfs('2m')
    if (typeof fs !== 'string') return ctx.skip(fs.skip)
    const dataDir = join(fs, 'data')
    await seed(dataDir)
    fill(fs)
    const { code, out } = await serverRun(dataDir)
    expect(code).not.toBe(0)
    expect(out).toMatch(
      /^error: storage_unavailable: cannot open SQLite database .*: the disk is full .*; free space there, then start again/m,
    )
    expect(out).not.toContain('internal_error')
  })

  it('a read-only data directory: storage_unavailable read_only', async (ctx) => {
    const fs = tmpfs('4m')
    if (typeof fs !== 'string') return ctx.skip(fs.skip)
    const dataDir = join(fs, 'data')
    await seed(dataDir)
    execFileSync('mount', ['-o', 'remount,ro', fs])
    const { code, out } = await serverRun(dataDir)
    expect(code).not.toBe(0)
    expect(out).toMatch(
      /^error: storage_unavailable: cannot open SQLite database .*: the data directory .* is read-only; make it writable/m,
    )
  })

  it('a newer schema: storage_unavailable schema_newer, upgrade PowerContext', async () => {
    const dataDir = join(root, 'newer')
    await seed(dataDir)
    const db = new Database(join(dataDir, 'powercontext.db'))
    db.prepare('UPDATE schema_version SET version = version + 5 WHERE id = 1').run()
    db.close()
    const { code, out } = await serverRun(dataDir)
    expect(code).not.toBe(0)
    expect(out).toMatch(
      /^error: storage_unavailable: cannot open SQLite database .*: database schema \d+ is newer than this version of PowerContext \(\d+\); upgrade PowerContext to open it/m,
    )
  })
})

describe('readiness on a full disk', () => {
  it('reports disk_full before any write fails, and ready again once space is freed', async (ctx) => {
    const fs = tmpfs('4m')
    if (typeof fs !== 'string') return ctx.skip(fs.skip)
    const dataDir = join(fs, 'data')
    await seed(dataDir)
    const rt = await MemoryRuntime.open({ dataDir, vectorAnn: false })
    try {
      expect((await rt.readiness()).checks['disk']).toBe('ready')
      fill(fs)
      const ready = await rt.readiness()
      expect(ready).toMatchObject({
        status: 'degraded',
        checks: { disk: 'unavailable: disk_full' },
      })
      rmSync(join(fs, 'filler'))
      writeFileSync(join(fs, 'small'), Buffer.alloc(MIN_FREE_BYTES / 4))
      expect((await rt.readiness()).status).toBe('ready')
    } finally {
      await rt.close()
    }
  })
})
