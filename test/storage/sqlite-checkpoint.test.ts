/* WAL checkpoints off the event loop (sqlite-checkpointer.ts): the server's connection never
 * checkpoints inside a COMMIT; a worker thread copies the WAL into the database file once it is
 * large, and every acknowledged write is there after a reopen. */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { openSqliteBackend } from '../../src/storage/sqlite/index.js'

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
})
