/*
 * After a redaction (docs/storage.md "Redaction"), SQLite still holds the erased bytes in places no
 * row points at: the FTS5 index keeps old segments (a deleted row's tokens stay in older segments
 * until they are merged), freed pages and the free space inside pages keep what was deleted, and
 * the WAL keeps every page image written since its last reset. This file lets go of all of them.
 */
import { setTimeout as sleep } from 'node:timers/promises'

import type Database from 'better-sqlite3'

import type { ErasureReport } from '../spi/redaction-types.js'

/** How long to wait for other connections to finish reading before the WAL can be reset. */
export const CHECKPOINT_WAIT_MS = 10_000

/**
 * Erases freed bytes from the database files, on the backend's connection outside any
 * transaction (the caller holds its serialising lock, so this process starts no other work):
 *
 * 1. `secure_delete` on, so every page freed from here on is zeroed;
 * 2. FTS5 `optimize`: every segment merged into one, the old segments (holding erased tokens)
 *    deleted;
 * 3. `VACUUM`: the database rewritten from its live rows, so no free page and no free space inside
 *    a page keeps an old row (it writes the whole database once: its cost grows with the size);
 * 4. `wal_checkpoint(TRUNCATE)`: the WAL copied back and cut to zero bytes. Another process that is
 *    reading keeps old WAL frames alive; this waits up to {@link CHECKPOINT_WAIT_MS} for it, then
 *    reports the WAL as `pending` (running the redaction again, or any later checkpoint once the
 *    reader is gone, finishes it).
 *
 * `:memory:` databases have no files: only step 2 runs.
 */
export async function eraseFreedBytes(
  db: Database.Database,
  file: boolean,
  waitMs = CHECKPOINT_WAIT_MS,
): Promise<ErasureReport> {
  const started = performance.now()
  const steps: string[] = []
  const report = (pending: string | null): ErasureReport => ({
    filesClean: pending === null,
    steps,
    pending,
    ms: Math.round(performance.now() - started),
  })
  db.pragma('secure_delete = ON')
  steps.push('secure_delete')
  db.exec("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")
  steps.push('fts_optimize')
  if (!file) return report(null)
  db.exec('VACUUM')
  steps.push('vacuum')
  const deadline = Date.now() + waitMs
  for (;;) {
    const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number }[]
    if (r !== undefined && r.busy === 0 && r.log <= 0) break
    if (Date.now() >= deadline) {
      return report(
        'another connection kept reading the database: the WAL still holds erased pages until a later checkpoint resets it (run the redaction again once it is done)',
      )
    }
    await sleep(50)
  }
  steps.push('wal_checkpoint_truncate')
  return report(null)
}
