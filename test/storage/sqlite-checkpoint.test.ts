/* WAL checkpoints off the event loop (sqlite-checkpointer.ts): the server's connection never
 * checkpoints inside a COMMIT; a worker thread copies the WAL into the database file once it is
 * large, and every acknowledged write is there after a reopen. */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import {
  CHECKPOINT_PAGES,
  WAL_KEPT_BYTES,
  WalCheckpointer,
} from '../../src/storage/sqlite/sqlite-checkpointer.js'

const DIST_ENTRY = fileURLToPath(new URL('../../dist/storage/sqlite/index.js', import.meta.url))

const dir = mkdtempSync(join(tmpdir(), 'pc-checkpoint-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function text(seed: number, bytes: number): string {
  let out = `Note ${seed}: the gateway retries requests and the deploy pipeline checks migrations`
  for (let k = seed; out.length < bytes; k = (k * 7919 + 13) % 1_000_003)
    out += ` w${k.toString(36)}`
  return out.slice(0, bytes)
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return check()
}

describe('SQLite WAL checkpoints', () => {
  it('are run by a worker, not by the connection, and lose no write', async () => {
    const file = join(dir, 'db.sqlite')
    const backend = await openSqliteBackend({ database: file })
    expect(backend.rawDatabase.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    const before = statSync(file).size
    let written = 0
    for (let r = 0; r < 3; r++) {
      const res = await backend.remember({
        scopeId: 'ckpt',
        entries: Array.from({ length: 100 }, (_, i) => ({
          kind: 'fact',
          text: text(r * 1000 + i, 8000),
        })),
      })
      written += res.results.filter((x) => x.status === 'created').length
    }
    expect(written).toBe(300)
    // In WAL mode only a checkpoint writes the database file; the connection's own is off.
    expect(await until(() => statSync(file).size > before + 4 * 1024 * 1024, 10_000)).toBe(true)
    await backend.close()

    const reopened = await openSqliteBackend({ database: file })
    const count = reopened.rawDatabase
      .prepare("SELECT count(*) AS n FROM memories WHERE scope_id = 'ckpt'")
      .get() as { n: number }
    expect(count.n).toBe(300)
    const hits = await reopened.search({ scopeId: 'ckpt', query: 'gateway', limit: 5 })
    expect(hits.hits.length).toBe(5)
    await reopened.close()
  })

  /** A WAL-mode file with one table of blobs, under the checkpointer. */
  function walFile(name: string, driver?: string): { db: Database.Database; c: WalCheckpointer } {
    const db = new Database(join(dir, name))
    db.pragma('journal_mode = WAL')
    db.exec('CREATE TABLE t (b BLOB)')
    return { db, c: new WalCheckpointer(db, join(dir, name), driver) }
  }
  const insert = (db: Database.Database, n: number, bytes: number) =>
    db.transaction(() => {
      const stmt = db.prepare('INSERT INTO t VALUES (randomblob(?))')
      for (let i = 0; i < n; i++) stmt.run(bytes)
    })()
  const walSize = (name: string) => statSync(join(dir, `${name}-wal`)).size

  it('ask for no checkpoint after a small write once the WAL was copied and started over', async () => {
    const { db, c } = walFile('restart.sqlite')
    const page = db.pragma('page_size', { simple: true }) as number
    insert(db, 2 * CHECKPOINT_PAGES, page / 2)
    expect(c.due()).toBe(true)
    await c.checkpoint()
    // The next write more than the least gap later starts the WAL over and trims the file.
    await new Promise((r) => setTimeout(r, 1100))
    insert(db, 1, 100)
    expect(walSize('restart.sqlite')).toBeLessThanOrEqual(WAL_KEPT_BYTES)
    expect(c.due()).toBe(false)
    insert(db, 2 * CHECKPOINT_PAGES, page / 2)
    expect(c.due()).toBe(true)
    await c.stop()
    db.close()
  })

  it('fall back to the connection checkpointing itself when the worker cannot run', async () => {
    const { db, c } = walFile('fallback.sqlite', join(dir, 'no-such-driver.cjs'))
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    const page = db.pragma('page_size', { simple: true }) as number
    insert(db, 2 * CHECKPOINT_PAGES, page / 2)
    expect(c.due()).toBe(true)
    await c.checkpoint() // resolves, though the worker failed to start
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(CHECKPOINT_PAGES)
    expect(c.due()).toBe(false)
    // SQLite's own checkpoint now keeps the WAL bounded: a commit past 1,000 pages copies it.
    insert(db, 2 * CHECKPOINT_PAGES, page / 2)
    insert(db, 1, 100)
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[]
    expect(r!.checkpointed).toBe(r!.log)
    await c.stop()
    db.close()
  })

  it('let a process whose last step is close finish it (the worker is held while it closes)', () => {
    // A script's own process: in the test runner other handles keep the loop alive. Writes past
    // the checkpoint threshold start the worker; `close` must resolve before the process exits.
    const script = join(dir, 'close-last.mjs')
    writeFileSync(
      script,
      `import { openSqliteBackend } from ${JSON.stringify(DIST_ENTRY)}
const backend = await openSqliteBackend({ database: ${JSON.stringify(join(dir, 'close-last.sqlite'))} })
for (let r = 0; r < 3; r++)
  await backend.remember({ scopeId: 'c', entries: Array.from({ length: 100 }, (_, i) => ({ kind: 'fact', text: 'w'.repeat(7000) + r + ' ' + i })) })
await backend.close()
process.stdout.write('closed')
`,
    )
    const out = execFileSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 })
    expect(out).toBe('closed')
  })
})
