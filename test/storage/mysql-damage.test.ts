/*
 * Damage on MariaDB, written with the row verbs on the test's own connections (no operation would
 * write such rows): a version whose JSON is cut off and whose hash matches nothing, and a memory
 * and change row whose id holds a control character. Each is `storage_unavailable` (`corrupt`)
 * naming the row, never served; `verify` lists them and does not throw; export refuses; writes
 * stop once damage was found.
 */
import { afterAll, expect, it } from 'vitest'

import type { MysqlMemoryBackend } from '../../src/storage/mysql/index.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import { expectCode } from '../conformance/memory-backend.case.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'
import { mysqlRowTransactions } from '../support/mysql-row-transactions.js'

const databases = new TestDatabases(MARIADB_TEST_URL)
const closing: { close(): Promise<void> }[] = []
afterAll(async () => {
  for (const c of closing) await c.close()
  await databases.dropAll()
})

const scopeId = 'damage'
const at = '2026-12-06T00:00:00.000Z'

describeWithMariadb('damaged rows on MariaDB', () => {
  it('are storage_unavailable (corrupt) naming the row; verify lists them; export refuses; writes stop', async () => {
    const url = await databases.create('damage')
    const backend: MysqlMemoryBackend = await openMysqlBackend({ url })
    closing.push(backend)
    await backend.remember({ scopeId, entries: [{ kind: 'fact', text: 'a sound fact' }] })
    const rows = mysqlRowTransactions(url)
    closing.push(rows)
    const cut = 'mem_01DAMAGEDJSON0000000000000'
    const control = 'mem_01DAMAGED\u0001KEY000000000000'
    await rows.run('write', async (tx) => {
      for (const memoryId of [cut, control]) {
        await tx.insertMemory({
          memoryId,
          scopeId,
          currentVersion: 1,
          state: 'active',
          stateVersion: 1,
          mergedInto: null,
          kind: 'fact',
          createdAt: at,
          updatedAt: at,
        })
        await tx.insertVersion({
          memoryId,
          scopeId,
          version: 1,
          previousVersion: null,
          kind: 'fact',
          text: 'a damaged fact',
          sourcesJson: memoryId === cut ? '[{"name":"con' : '[]',
          artifactsJson: '[]',
          observedAt: null,
          contentHash: 'a'.repeat(64),
          createdAt: at,
          operation: 'add',
          operationId: 'op_01DAMAGE00000000000000000',
          reason: null,
        })
        await tx.appendChanges(scopeId, [
          {
            op: 'add',
            memoryId,
            fromRevision: null,
            toRevision: 1,
            fromState: null,
            toState: 'active',
            reason: null,
            operationId: 'op_01DAMAGE00000000000000000',
            at,
          },
        ])
      }
    })
    const err = await expectCode(backend.get({ scopeId, memoryId: cut }), 'storage_unavailable')
    expect(err.details).toEqual({ reason: 'corrupt', row: `memory_versions ${cut}@1` })
    const feed = await expectCode(
      backend.changes({ scopeId, since: 0, limit: 10 }),
      'storage_unavailable',
    )
    expect(feed.details).toEqual({ reason: 'corrupt', row: `memory_changes ${scopeId}#3` })
    expect(backend.storageChecks()).toMatchObject({ storage: 'unavailable: corrupt' })
    await expectCode(
      backend.remember({ scopeId, entries: [{ kind: 'fact', text: 'not acknowledged' }] }),
      'storage_unavailable',
    )
    const report = await backend.verify()
    expect(report.ok, JSON.stringify(report.problems)).toBe(false)
    expect(report.problems).toEqual(
      expect.arrayContaining([
        `version ${cut}@1: sources or artifacts are not valid JSON`,
        `version mem_01DAMAGED\\u0001KEY000000000000@1: memory_id is not a well-formed id`,
        `memories mem_01DAMAGED\\u0001KEY000000000000: memory_id is not a well-formed id`,
      ]),
    )
    await expectCode(
      backend.exportRows(() => {}),
      'storage_unavailable',
    )
  })
})
