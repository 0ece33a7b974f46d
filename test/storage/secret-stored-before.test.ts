/**
 * A version stored before the secret gate (written here as an older build would have: a raw row
 * with its own correct hash) is never written again: `restore --to-revision` of it is refused
 * with `secret_detected`, and the memory is left as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

import { contentHash } from '../../src/core/content-hash.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-secret-before-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
// Built at run time so that no scanner mistakes this file for a leak.
const OLD_TEXT = `The deploy token is ${['ghp_', 'q7Lm2Xv9Rt4Kp8Wn3Zb6Yc1Hd5Jf0Gs2Ae7U'].join('')}`

describe('data stored before the gate', () => {
  it('restore to a version holding a credential is refused and writes nothing', async () => {
    const file = join(dir, 'before.sqlite')
    const scopeId = 'before:restore'
    let backend = await openSqliteBackend({ database: file })
    const { results } = await backend.remember({
      scopeId,
      entries: [{ kind: 'fact', text: 'placeholder' }],
    })
    const ref = results[0]!.memory.memoryRef
    await backend.update({ scopeId, memoryRef: ref, text: 'the token now lives in the vault' })
    await backend.close()
    const db = new Database(file)
    const hash = contentHash({
      kind: 'fact',
      text: OLD_TEXT,
      sources: [],
      artifacts: [],
      observedAt: null,
    })
    db.prepare(
      'UPDATE memory_versions SET text = ?, content_hash = ? WHERE memory_id = ? AND version = 1',
    ).run(OLD_TEXT, hash, ref.artifactId)
    db.close()
    backend = await openSqliteBackend({ database: file })
    try {
      const before = await backend.history({ scopeId, memoryId: ref.artifactId })
      await expect(
        backend.restore({ scopeId, memoryId: ref.artifactId, toRevision: 1 }),
      ).rejects.toMatchObject({
        code: 'secret_detected',
        details: { field: 'to_revision text', rule: 'github_token' },
      })
      expect(await backend.history({ scopeId, memoryId: ref.artifactId })).toEqual(before)
    } finally {
      await backend.close()
    }
  })
})
