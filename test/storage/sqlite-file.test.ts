/*
 * Which files the embedded backend opens: only a missing file creates a
 * database; an empty, foreign or newer file is refused with a clear message and left untouched.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { expectCode } from '../conformance/harness.case.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-sqlite-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const path = (): string => join(dir, `db-${(n += 1)}`, 'powercontext.db')

describe('opening a SQLite file', () => {
  it('a missing file creates a database, and only the database file appears', async () => {
    const file = path()
    const backend = await openSqliteBackend({ database: file, vectorAnn: false })
    await backend.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'kept' }] })
    await backend.close()
    const reopened = await openSqliteBackend({ database: file, vectorAnn: false })
    expect((await reopened.list({ scopeId: 's' })).memories).toHaveLength(1)
    await reopened.close()
    expect(readdirSync(join(file, '..')).filter((f) => f.includes('.creating-'))).toEqual([])
  })

  it('a 0-byte file is refused, not turned into a new empty store', async () => {
    const file = path()
    const backend = await openSqliteBackend({ database: file, vectorAnn: false })
    await backend.close()
    writeFileSync(file, '')
    const err = await expectCode(openSqliteBackend({ database: file }), 'storage_unavailable')
    expect(err.message).toMatch(/cannot open SQLite database .*powercontext\.db: the file is empty/)
    expect(err.message).toMatch(/restore it from a backup, or remove it/)
    expect(err.details).toEqual({ reason: 'empty_file' })
    expect(statSync(file).size).toBe(0)
  })

  it('a file that is not SQLite is refused and left as it was', async () => {
    const file = path()
    await openSqliteBackend({ database: file, vectorAnn: false }).then((b) => b.close())
    writeFileSync(file, 'these are my notes, not a database\n'.repeat(200))
    const err = await expectCode(openSqliteBackend({ database: file }), 'storage_unavailable')
    expect(err.message).toMatch(/the file is not a SQLite database/)
    expect(err.details).toEqual({ reason: 'not_a_database' })
    expect(readFileSync(file, 'utf8')).toMatch(/^these are my notes/)
  })

  it('a SQLite database of another program is refused and not migrated', async () => {
    const file = path()
    await openSqliteBackend({ database: file, vectorAnn: false }).then((b) => b.close())
    rmSync(file)
    const other = new Database(file)
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')")
    other.close()
    const err = await expectCode(openSqliteBackend({ database: file }), 'storage_unavailable')
    expect(err.message).toMatch(/a SQLite database but not a PowerContext one/)
    expect(err.details).toEqual({ reason: 'foreign_database' })
    const check = new Database(file, { readonly: true })
    const tables = check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all()
    check.close()
    expect(tables).toEqual([{ name: 'notes' }])
  })

  it('a newer schema reads the same clear message as on the MySQL family', async () => {
    const file = path()
    await openSqliteBackend({ database: file, vectorAnn: false }).then((b) => b.close())
    const raw = new Database(file)
    raw.exec('UPDATE schema_version SET version = 99')
    raw.close()
    const err = await expectCode(openSqliteBackend({ database: file }), 'storage_unavailable')
    expect(err.message).toMatch(
      /^cannot open SQLite database .*: database schema 99 is newer than this version of PowerContext \(\d+\); upgrade PowerContext to open it$/,
    )
    expect(err.message).not.toMatch(/storage failure/)
    expect(err.details).toMatchObject({ reason: 'schema_newer', stored_schema: 99 })
  })
})
