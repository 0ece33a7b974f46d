import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll } from 'vitest'

import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import type { BackendUnderTest } from './memory-backend.case.js'
import { describeMemoryBackend } from './memory-backend.case.js'
import { PLANTED_ROW_TESTS } from './memory-redact.case.js'
import { PLANTED_RECORD_TESTS } from './memory-redact-record.case.js'
import { ALTER_HASH_TESTS, REOPEN_TESTS } from './memory-vector.case.js'

const dir = mkdtempSync(join(tmpdir(), 'powercontext-conformance-'))
let files = 0
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const fileOf = new WeakMap<BackendUnderTest, string>()

describeMemoryBackend({
  name: 'sqlite (file)',
  open: async (o = {}) => {
    const file = join(
      dir,
      o.reuse === undefined ? `db-${++files}.sqlite` : `reuse-${o.reuse}.sqlite`,
    )
    const backend = await openSqliteBackend({ database: file, embedder: o.embedder })
    fileOf.set(backend, file)
    return backend
  },
  // Another connection on the same file, as a person with the sqlite3 shell would.
  alterEmbeddingHash: async (backend, memoryId) => {
    const db = new Database(fileOf.get(backend) ?? '')
    try {
      const changed = db
        .prepare('UPDATE memory_vectors SET embedding_hash = ? WHERE memory_id = ?')
        .run('0'.repeat(64), memoryId).changes
      if (changed !== 1) throw new Error(`no vector row of ${memoryId}`)
    } finally {
      db.close()
    }
  },
  plantRows: async (backend, plant) => {
    const db = new Database(fileOf.get(backend) ?? '')
    try {
      await plant(async (sql, params) => void db.prepare(sql).run(...params))
    } finally {
      db.close()
    }
  },
})
describeMemoryBackend({
  name: 'sqlite (:memory:)',
  open: (o = {}) => openSqliteBackend({ database: ':memory:', embedder: o.embedder }),
  skip: [
    {
      reason: 'a :memory: database cannot be reopened or reached by another connection',
      tests: [...REOPEN_TESTS, ...ALTER_HASH_TESTS, ...PLANTED_ROW_TESTS, ...PLANTED_RECORD_TESTS],
    },
  ],
})
