/*
 * A source read shows the redaction record only for a source an administrator erased
 * (docs/storage.md "Redaction"): a source whose own content is the marker, or begins with it,
 * reads as captured, with no record, on a real SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { REDACTED_TEXT } from '../../src/core/redaction.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-source-redaction-read-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('source reads and the redaction marker', () => {
  it('a captured marker is content; only an erased source carries the record', async () => {
    const backend = await openSqliteBackend({ database: join(dir, 'db.sqlite') })
    try {
      const scopeId = 'project:marker'
      const contents = {
        exact: REDACTED_TEXT,
        begins: `${REDACTED_TEXT} by hand`,
        plain: 'the deploy key is rotated monthly',
      }
      for (const [sourceId, content] of Object.entries(contents))
        await backend.captureSource({ scopeId, sourceId, content })
      const ids = Object.keys(contents)
      const read = async () =>
        (await backend.getSources({ scopeId, sourceIds: ids })).sources.map((s) => [
          s.source.sourceId,
          s.content,
          s.redaction?.reason ?? null,
        ])
      expect(await read()).toEqual([
        ['exact', REDACTED_TEXT, null],
        ['begins', `${REDACTED_TEXT} by hand`, null],
        ['plain', 'the deploy key is rotated monthly', null],
      ])
      await backend.redact({ scopeId, target: { sourceId: 'plain' }, reason: 'pasted a key' })
      expect(await read()).toEqual([
        ['exact', REDACTED_TEXT, null],
        ['begins', `${REDACTED_TEXT} by hand`, null],
        ['plain', REDACTED_TEXT, 'pasted a key'],
      ])
    } finally {
      await backend.close()
    }
  })
})
