import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll } from 'vitest'

import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { describeMemoryBackend } from './memory-backend.case.js'

const dir = mkdtempSync(join(tmpdir(), 'powercontext-conformance-'))
let files = 0
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describeMemoryBackend({
  name: 'sqlite (file)',
  open: () => openSqliteBackend({ database: join(dir, `db-${++files}.sqlite`) }),
})
describeMemoryBackend({
  name: 'sqlite (:memory:)',
  open: () => openSqliteBackend({ database: ':memory:' }),
})
