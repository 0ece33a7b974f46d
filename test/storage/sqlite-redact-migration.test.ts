/*
 * Schema 9 on SQLite: a database written by the previous schema (8), whose `redactions` table
 * accepts only `source` and `version` targets, is upgraded at open — the table rebuilt with its
 * rows and `record_id` — and can then erase decision records (docs/storage.md "Redaction").
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

import { REDACTED_TEXT } from '../../src/core/redaction.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from '../../src/storage/sqlite/sqlite-schema.js'
import { expectRecordErased, flushWindow } from '../support/flush-window.js'

const dir = mkdtempSync(join(tmpdir(), 'powercontext-redact-migration-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const OLD_COLUMNS = `scope_id, seq, target, source_type, source_id, memory_id, version, rule, reason,
  redacted_at, operation_id`

/** Puts the file back the way schema 8 made it (redactions rows kept; later tables dropped). */
function downgradeToSchema8(file: string): void {
  const db = new Database(file)
  try {
    db.exec(`BEGIN;
      DROP INDEX redactions_by_version; DROP INDEX redactions_by_source;
      DROP INDEX redactions_by_record;
      ALTER TABLE redactions RENAME TO redactions_9;
      ${SQLITE_MIGRATIONS[7]}
      INSERT INTO redactions (${OLD_COLUMNS}) SELECT ${OLD_COLUMNS} FROM redactions_9;
      DROP TABLE redactions_9;
      DROP TABLE receipt_items; DROP TABLE receipts; DROP TABLE source_paths;
      DROP TABLE freshness_checks;
      UPDATE schema_version SET version = 8;
      COMMIT;`)
  } finally {
    db.close()
  }
}

describe('SQLite schema 9: decision records as a redaction target', () => {
  it('an old file keeps its redactions and can then erase a decision record', async () => {
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(9)
    const file = join(dir, 'old.sqlite')
    const scopeId = 'project:acme/api'
    const before = await openSqliteBackend({ database: file })
    await before.captureSource({ scopeId, sourceId: 'first', content: 'deploys go through CI' })
    await before.captureSource({ scopeId, sourceId: 'later', content: 'ports are 80 and 443' })
    await flushWindow(before, scopeId, 1)
    const res = await flushWindow(before, scopeId, 2, {
      candidates: [{ text: 'ports are 80 and 443' }],
    })
    const { results } = await before.remember({
      scopeId,
      entries: [{ kind: 'fact', text: 'Dana lives at 12 Elm Street' }],
    })
    const ref = results[0]!.memory.memoryRef
    // Not flushed yet: no decision record quotes it.
    await before.captureSource({ scopeId, sourceId: 'card', content: 'Dana +1 415 555 0123' })
    await before.redact({ scopeId, target: { sourceId: 'card' }, reason: 'pii' })
    await before.redact({ scopeId, target: { memoryRef: ref }, reason: 'pii' })
    const feed = await before.changes({ scopeId, since: 0 })
    expect(feed.redactions?.map((r) => r.target)).toEqual(['source', 'version'])
    await before.close()
    downgradeToSchema8(file)
    const old = new Database(file)
    try {
      expect(old.prepare('SELECT version FROM schema_version').get()).toEqual({ version: 8 })
      // The check is real: schema 8 refuses the new target.
      expect(() =>
        old
          .prepare(
            `INSERT INTO redactions (scope_id, seq, target, reason, redacted_at, operation_id)
             VALUES (?, 99, 'record', 'x', 'x', 'x')`,
          )
          .run(scopeId),
      ).toThrow(/CHECK constraint failed/)
      expect(old.prepare('SELECT count(*) AS n FROM redactions').get()).toEqual({ n: 2 })
    } finally {
      old.close()
    }

    const after = await openSqliteBackend({ database: file })
    try {
      expect(after.rawDatabase.prepare('SELECT version FROM schema_version').get()).toEqual({
        version: SQLITE_SCHEMA_VERSION,
      })
      const kept = await after.changes({ scopeId, since: 0 })
      expect(kept.redactions).toEqual(feed.redactions)
      const [source] = (await after.getSources({ scopeId, sourceIds: ['card'] })).sources
      expect(source?.redaction).toMatchObject({ reason: 'pii' })
      expect((await after.get({ scopeId, memoryId: ref.artifactId })).memory.text).toBe(
        REDACTED_TEXT,
      )
      await expectRecordErased(after, scopeId, res.recordId, 'ports are 80')
    } finally {
      await after.close()
    }
  })
})
