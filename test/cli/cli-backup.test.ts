/**
 * `admin backup --to FILE` on a running server's WAL database: SQLite's online backup API copies
 * one consistent snapshot while the server keeps writing; the copy opens, verifies ok and holds
 * every memory acknowledged before the backup began.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { runCli } from '../support/cli-run.js'
import { tempDirs } from '../support/temp-git.js'

const temp = tempDirs('pc-cli-backup-')
const SCOPE = 'cli:backup'
let dataDir = ''
let server: RunningServer
beforeAll(async () => {
  dataDir = temp.make()
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
})
afterAll(async () => {
  await server?.stop()
  temp.removeAll()
})

/** Remembers `n` memories in one request; returns their ids once acknowledged. */
async function remember(prefix: string, n: number): Promise<string[]> {
  const res = await fetch(`${server.url}/v1/memory/remember`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      scope_id: SCOPE,
      entries: Array.from({ length: n }, (_, i) => ({ kind: 'fact', text: `${prefix} fact ${i}` })),
    }),
  })
  expect(res.status).toBe(200)
  const body = (await res.json()) as {
    results: { memory: { memory_ref: { artifact_id: string } } }[]
  }
  return body.results.map((r) => r.memory.memory_ref.artifact_id)
}

describe('admin backup', () => {
  it('copies a live WAL database while the server writes; the copy verifies and holds every acknowledged memory', async () => {
    const before: string[] = []
    for (let round = 0; round < 40; round++) before.push(...(await remember(`before ${round}`, 5)))
    // Committed but not yet checkpointed: a plain copy of the main file would miss some of it.
    expect(existsSync(join(dataDir, 'powercontext.db-wal'))).toBe(true)
    let writing = true
    let during = 0
    const writer = (async () => {
      for (let round = 0; writing; round++) during += (await remember(`during ${round}`, 3)).length
    })()
    await remember('last before the backup', 1).then((ids) => before.push(...ids))
    const copyDir = temp.make()
    const target = join(copyDir, 'powercontext.db')
    const backup = await runCli('--data-dir', dataDir, 'admin', 'backup', '--to', target)
    writing = false
    await writer
    expect(backup).toMatchObject({ code: 0, err: '' })
    expect(backup.out).toMatch(
      new RegExp(
        `^backed up ${dataDir}/powercontext\\.db to ${target}: \\d+ pages, \\d+ bytes, quick_check ok\\n$`,
      ),
    )
    expect(during).toBeGreaterThan(0)
    // Only the copy is left: no partial file beside it.
    expect(readdirSync(copyDir)).toEqual(['powercontext.db'])
    const verify = await runCli('--data-dir', copyDir, 'admin', 'verify', '--full')
    expect(verify.out).toMatch(/^ok: /)
    expect(verify.code).toBe(0)
    const copy = await MemoryRuntime.open({ dataDir: copyDir })
    try {
      const missing: string[] = []
      for (const memoryId of before) {
        try {
          await copy.get({ scopeId: SCOPE, memoryId })
        } catch {
          missing.push(memoryId)
        }
      }
      expect(missing).toEqual([])
    } finally {
      await copy.close()
    }
  })

  it('refuses an existing target, a missing database, --database and --server-url', async () => {
    const dir = temp.make()
    const target = join(dir, 'powercontext.db')
    expect((await runCli('--data-dir', dataDir, 'admin', 'backup', '--to', target)).code).toBe(0)
    const again = await runCli('--data-dir', dataDir, 'admin', 'backup', '--to', target)
    expect(again.code).toBe(1)
    expect(again.err).toBe(`error: invalid_request: ${target} exists; back up to a new file\n`)
    const empty = temp.make()
    const none = await runCli('--data-dir', empty, 'admin', 'backup', '--to', join(dir, 'x.db'))
    expect(none.code).toBe(1)
    expect(none.err).toBe(`error: invalid_request: no database at ${empty}/powercontext.db\n`)
    const noDir = await runCli(
      '--data-dir',
      dataDir,
      'admin',
      'backup',
      '--to',
      join(dir, 'a', 'b.db'),
    )
    expect(noDir.err).toBe(
      `error: invalid_request: the directory of ${join(dir, 'a', 'b.db')} does not exist\n`,
    )
    const db = await runCli(
      '--database',
      'mysql://u@127.0.0.1:1/x',
      'admin',
      'backup',
      '--to',
      target,
    )
    expect(db.code).toBe(2)
    const remote = await runCli('--server-url', server.url, 'admin', 'backup', '--to', target)
    expect(remote.code).toBe(2)
    expect(remote.err).toContain('drop --server-url')
  })
})
