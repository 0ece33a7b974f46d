import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll } from 'vitest'

import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { describeMemoryBackend } from './memory-backend.case.js'
import { REOPEN_TESTS } from './memory-vector.case.js'

const dir = mkdtempSync(join(tmpdir(), 'powercontext-conformance-'))
let files = 0
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describeMemoryBackend({
  name: 'sqlite (file)',
  open: (o = {}) =>
    openSqliteBackend({
      database: join(
        dir,
        o.reuse === undefined ? `db-${++files}.sqlite` : `reuse-${o.reuse}.sqlite`,
      ),
      embedder: o.embedder,
    }),
})
describeMemoryBackend({
  name: 'sqlite (:memory:)',
  open: (o = {}) => openSqliteBackend({ database: ':memory:', embedder: o.embedder }),
  skip: [{ reason: 'a :memory: database cannot be reopened', tests: REOPEN_TESTS }],
})
