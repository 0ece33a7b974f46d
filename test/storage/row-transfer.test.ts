/*
 * `admin export` / `admin import` of authoritative rows: SQLite → MariaDB → SQLite keeps every
 * memory, version, change, merge, source, cursor, failure and decision record, and projections are
 * rebuilt on import (search works there); bad imports are refused and leave the database empty.
 */
import { afterAll, expect, it } from 'vitest'

import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import {
  exportRows,
  importRows,
  parseExportLine,
} from '../../src/storage/engine/maintenance/row-transfer.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import type { ExportRecord } from '../../src/storage/spi/export-types.js'
import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { expectCode } from '../conformance/memory-backend.case.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'

const databases = new TestDatabases(MARIADB_TEST_URL)
const closing: { close(): Promise<void> }[] = []
afterAll(async () => {
  for (const c of closing) await c.close()
  await databases.dropAll()
})

const SCOPES = ['proj:a', 'Proj:A']
const ALL = ['active', 'forgotten', 'merged', 'retired'] as const

async function populate(backend: MemoryBackend): Promise<void> {
  const runtime = await MemoryRuntime.open({ backend })
  for (const scopeId of SCOPES) {
    await backend.captureSource({ scopeId, sourceId: 'ev-1', content: 'evidence one' })
    const made = await backend.remember({
      scopeId,
      entries: [
        {
          kind: 'fact',
          text: `Uses pnpm in ${scopeId}`,
          sources: [{ name: 'content', sourceId: 'ev-1' }],
        },
        { kind: 'decision', text: 'Ship on Fridays 中文 café' },
        { kind: 'fact', text: 'The CI runs on two cores' },
        { kind: 'preference', text: 'Short commit messages' },
      ],
    })
    const [a, b, c, d] = made.results.map((r) => r.memory.memoryRef)
    await backend.update({ scopeId, memoryRef: a!, text: `Uses pnpm 9 in ${scopeId}` })
    await backend.forget({ scopeId, memoryId: d!.artifactId })
    const merged = await backend.merge({
      scopeId,
      inputs: [b!, c!],
      kind: 'fact',
      text: 'Ships on Fridays; CI has two cores',
    })
    await backend.restore({ scopeId, memoryId: b!.artifactId })
    await backend.merge({ scopeId, inputs: [b!, c!], kind: 'fact', text: 'Merged again' })
    expect(merged.memory.state).toBe('active')
    for (let i = 0; i < 3; i += 1) {
      await backend.captureSource({
        scopeId,
        sourceId: `s-${i}`,
        content: JSON.stringify({ entries: [{ kind: 'fact', text: `flushed ${i} ${scopeId}` }] }),
        mediaType: 'application/vnd.powercontext.memory+json',
      })
    }
    await runtime.flush({ scopeId, limit: 2 })
    await runtime.flush({ scopeId })
    await backend.captureSource({ scopeId, sourceId: 'pending', content: 'not flushed yet' })
  }
}

/** Everything readable about the scopes, to compare two databases. */
async function snapshot(backend: MemoryBackend) {
  const out: Record<string, unknown> = {}
  for (const scopeId of SCOPES) {
    const list = await backend.list({ scopeId, states: [...ALL] })
    const histories = []
    for (const m of list.memories) {
      histories.push(await backend.history({ scopeId, memoryId: m.memoryRef.artifactId }))
    }
    const search = await backend.search({ scopeId, query: 'pnpm fridays cores', mode: 'fts' })
    out[scopeId] = {
      list,
      histories,
      changes: await backend.changes({ scopeId, since: 0 }),
      window: await backend.journal.window({ scopeId }),
      records: await backend.journal.records({ scopeId }),
      hits: search.hits
        .map((h) => h.memoryRef)
        .sort((x, y) => (x.artifactId < y.artifactId ? -1 : 1)),
    }
  }
  return out
}

async function exported(backend: MemoryBackend): Promise<ExportRecord[]> {
  const records: ExportRecord[] = []
  await exportRows(backend, (r) => {
    records.push(parseExportLine(JSON.stringify(r), records.length + 1))
  })
  return records
}

/** Records without what legitimately differs: the export's time and backend. */
function comparable(records: readonly ExportRecord[]): unknown[] {
  return records.map((r) =>
    r.type === 'header' ? { type: 'header', format: r.format, version: r.version } : r,
  )
}

describeWithMariadb('admin export / import', () => {
  it('SQLite → MariaDB → SQLite keeps every authoritative row; projections are rebuilt', async () => {
    const source = await openSqliteBackend({ database: ':memory:' })
    closing.push(source)
    await populate(source)
    const first = await exported(source)
    expect(first.filter((r) => r.type === 'cursor')).toHaveLength(2)

    const url = await databases.create('transfer')
    const maria = await openMysqlBackend({ url })
    closing.push(maria)
    const report = await importRows(maria, first)
    expect(report.counts['memory']).toBe(first.filter((r) => r.type === 'memory').length)
    expect((await maria.verify()).problems).toEqual([])
    expect(await snapshot(maria)).toEqual(await snapshot(source))

    const second = await exported(maria)
    const back = await openSqliteBackend({ database: ':memory:' })
    closing.push(back)
    await importRows(back, second)
    expect((await back.verify()).problems).toEqual([])
    expect(comparable(await exported(back))).toEqual(comparable(first))
    expect(await snapshot(back)).toEqual(await snapshot(source))
  })

  it('refuses a non-empty database, a truncated export and a tampered version', async () => {
    const source = await openSqliteBackend({ database: ':memory:' })
    closing.push(source)
    await populate(source)
    const records = await exported(source)
    await expectCode(importRows(source, records), 'invalid_request')

    const url = await databases.create('refused')
    const target = await openMysqlBackend({ url })
    closing.push(target)
    await expectCode(importRows(target, records.slice(0, -1)), 'invalid_request')
    const tampered = records.map((r) =>
      r.type === 'version' && r.row.version === 1 ? { ...r, row: { ...r.row, text: 'forged' } } : r,
    )
    const err = await expectCode(importRows(target, tampered), 'invalid_request')
    expect(err.message).toMatch(/version mem_/)
    expect(() => parseExportLine('{"type":"nope"}', 3)).toThrow(/line 3/)
    expect((await target.verify()).counts.memories).toBe(0)
  })
})
