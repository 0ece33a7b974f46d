/*
 * The MySQL-protocol adapter beyond the conformance suite: startup probes and the capabilities
 * they decide, driver errors translated (duplicate key, deadlock retries, connection failures),
 * the password kept out of every message, case-variant ids, schema versions. On the machine's
 * MariaDB (shared/NOTES.md).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { afterAll, describe, expect, it } from 'vitest'

import { PowerContextError } from '../../src/core/errors.js'
import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import type { MysqlMemoryBackend } from '../../src/storage/mysql/index.js'
import {
  openMysqlBackend,
  parseDatabaseUrl,
  redactDatabaseUrl,
} from '../../src/storage/mysql/index.js'
import { toStorageError } from '../../src/storage/mysql/mysql-errors.js'
import { expectCode } from '../conformance/memory-backend.case.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'
import type { RowTransactions } from '../support/mysql-row-transactions.js'
import { mysqlRowTransactions } from '../support/mysql-row-transactions.js'
import { emulateOceanBase, installL2Distance } from '../support/oceanbase-emulation.js'

const SECRET = 'Sup3r-Secret_pw'
const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const databases = new TestDatabases(MARIADB_TEST_URL)
const opened: MysqlMemoryBackend[] = []
const rawOpened: RowTransactions[] = []
afterAll(async () => {
  for (const b of opened) await b.close()
  for (const r of rawOpened) await r.close()
  await databases.dropAll()
})

async function fresh(label: string, options: Partial<Parameters<typeof openMysqlBackend>[0]> = {}) {
  const url = await databases.create(label)
  const backend = await openMysqlBackend({ url, ...options })
  opened.push(backend)
  return { url, backend }
}

/** Row-verb transactions on the test's own raw connections to the database of `url`. */
function rawRows(url: string, options: { maxAttempts?: number } = {}): RowTransactions {
  const rows = mysqlRowTransactions(url, options)
  rawOpened.push(rows)
  return rows
}

/** `url` with user and password replaced. */
function withCredentials(url: string, user: string, password: string): string {
  const u = new URL(url)
  u.username = user
  u.password = password
  return u.toString()
}

function expectNoSecret(value: unknown): void {
  const seen = new Set<unknown>()
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return undefined
      seen.add(v)
      if (v instanceof Error) {
        return { ...v, message: v.message, stack: v.stack, cause: (v as { cause?: unknown }).cause }
      }
    }
    return v
  })
  expect(text).not.toContain(SECRET)
  expect(text).not.toContain(encodeURIComponent(SECRET))
}

/** The settings error `parseDatabaseUrl` throws for `url`, checked to be one. */
function urlError(url: string): PowerContextError {
  let caught: unknown
  try {
    parseDatabaseUrl(url)
  } catch (err) {
    caught = err
  }
  expect(caught).toBeInstanceOf(PowerContextError)
  expect((caught as PowerContextError).code).toBe('invalid_request')
  return caught as PowerContextError
}

describe('database URL', () => {
  it('parses options and never echoes the password', () => {
    const s = parseDatabaseUrl(
      `mysql://app:${SECRET}@db.example:2881/pc?dialect=oceanbase&hnsw_m=32`,
    )
    expect(s).toMatchObject({ host: 'db.example', port: 2881, user: 'app', database: 'pc' })
    expect(s.dialect).toBe('oceanbase')
    expect(s.hnsw.m).toBe(32)
    expect(redactDatabaseUrl(`mysql://app:${SECRET}@h/pc`)).toBe('mysql://app:***@h/pc')
    for (const bad of [
      `mysql://app:${SECRET}@h/pc?unknown=1`,
      `postgres://app:${SECRET}@h/pc`,
      `mysql://app:${SECRET}@h/`,
      `mysql://app:${SECRET}@h/pc?dialect=oracle`,
    ]) {
      const caught = urlError(bad)
      expectNoSecret(caught)
    }
  })

  it('a malformed percent-escape in the user, password or database is a settings error', () => {
    for (const [bad, part] of [
      [`mysql://app:${SECRET}%zz@h/pc`, 'password'],
      [`mysql://ap%p:${SECRET}@h/pc`, 'user'],
      [`mysql://app:${SECRET}@h/p%E0%A4%A`, 'database name'],
    ] as const) {
      const caught = urlError(bad)
      expect(caught.message).toMatch(
        new RegExp(`^invalid database URL .*: the ${part} holds a malformed percent-escape`),
      )
      expectNoSecret(caught)
    }
    // The server refuses it at startup with the same message (never `URI malformed`).
    const server = spawnSync(process.execPath, [BIN, 'server', 'run', '--port', '0'], {
      encoding: 'utf8',
      env: { ...process.env, POWERCONTEXT_SERVER_DATABASE_URL: `mysql://root:${SECRET}%zz@h/t` },
      timeout: 20_000,
    })
    expect(server.status).toBe(1)
    expect(server.stderr).toMatch(
      /^error: invalid_request: invalid database URL mysql:\/\/root:\*\*\*@h\/t: the password holds a malformed percent-escape/,
    )
    expect(server.stderr + server.stdout).not.toContain(SECRET)
  })

  it('a refused connection or a denied login is internal_error without the password', async () => {
    for (const url of [
      `mysql://root:${SECRET}@127.0.0.1:1/test`,
      withCredentials(MARIADB_TEST_URL, 'pc_nobody', SECRET),
    ]) {
      const err = await expectCode(openMysqlBackend({ url }), 'internal_error')
      expect(err.message).toMatch(/cannot open database mysql:\/\/[^ ]*:\*\*\*@/)
      expectNoSecret(err)
    }
  })

  it('the CLI and the server print no password when the database is unreachable', () => {
    if (!existsSync(MAIN)) {
      throw new Error('run npm run build first')
    }
    const url = `mysql://root:${SECRET}@127.0.0.1:1/test`
    const cli = spawnSync(process.execPath, [BIN, '--database', url, 'list', '--scope', 's'], {
      encoding: 'utf8',
    })
    expect(cli.status).toBe(1)
    expect(cli.stderr).toContain('internal_error')
    const server = spawnSync(process.execPath, [BIN, 'server', 'run', '--port', '0'], {
      encoding: 'utf8',
      env: { ...process.env, POWERCONTEXT_SERVER_DATABASE_URL: url },
      timeout: 20_000,
    })
    expect(server.status).toBe(1)
    for (const out of [cli.stdout, cli.stderr, server.stdout, server.stderr]) {
      expect(out).not.toContain(SECRET)
    }
  })

  it('the SQLite path never loads the adapter or mysql2; --database loads them lazily', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-lazy-'))
    try {
      writeFileSync(
        join(dir, 'hooks.mjs'),
        `export async function resolve(specifier, context, next) {
          const r = await next(specifier, context)
          if (/mysql2|storage\\/oceanbase/.test(r.url)) process.stderr.write('LOADED ' + r.url + '\\n')
          return r
        }`,
      )
      const run = (args: string[]) =>
        spawnSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `import { register } from 'node:module'
             register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})
             const { main } = await import(${JSON.stringify(pathToFileURL(MAIN).href)})
             process.exitCode = await main(['node', 'pc', ...${JSON.stringify(args)}])`,
          ],
          { encoding: 'utf8' },
        )
      const sqlite = run(['--data-dir', join(dir, 'data'), 'list', '--scope', 's'])
      expect(sqlite.status, sqlite.stderr).toBe(0)
      expect(sqlite.stderr).not.toContain('LOADED')
      const mysql = run(['--database', 'mysql://root@127.0.0.1:1/x', 'list', '--scope', 's'])
      expect(mysql.stderr).toContain('node_modules/mysql2/')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a driver error carrying the password is cleaned before it leaves the adapter', () => {
    const raw = Object.assign(new Error(`bad handshake for ${SECRET}`), {
      code: 'ECONNRESET',
      sql: 'SELECT secret text',
    })
    const err = toStorageError(raw, SECRET)
    expect(err.code).toBe('storage_unavailable')
    expect(err.details).toEqual({ reason: 'unavailable', retry_after_seconds: 1 })
    expectNoSecret(err)
    expect(JSON.stringify((err as { cause?: unknown }).cause)).not.toContain('secret text')
    const dup = toStorageError(Object.assign(new Error('Duplicate entry'), { errno: 1062 }), SECRET)
    expect(dup.code).toBe('revision_conflict')
  })
})

describeWithMariadb('startup probes and capabilities', () => {
  it('MariaDB: full-text ready, vectors unavailable with a reason, never an empty result', async () => {
    const { backend } = await fresh('probe', {
      embedder: new DeterministicEmbedder(8, 'probe-test'),
    })
    expect(backend.name).toBe('mariadb')
    expect(backend.storageStatus.server.product).toBe('MariaDB')
    expect(backend.storageStatus.ftsProblem).toBeNull()
    expect(backend.storageStatus.vectorProblem).toBe('MariaDB has no VECTOR type')
    expect(backend.capabilities).toMatchObject({ fts: true, vector: false })
    expect(backend.vectorStatus()).toMatchObject({
      state: 'unavailable',
      reason: 'MariaDB has no VECTOR type',
    })
    expect(backend.storageChecks()).toEqual({ storage: 'ready', full_text: 'ready' })
    await backend.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'probe me' }] })
    await expectCode(
      backend.search({ scopeId: 's', query: 'probe', mode: 'vector' }),
      'capability_not_supported',
    )
    const runtime = await MemoryRuntime.open({
      backend,
      embedder: new DeterministicEmbedder(8, 'probe-test'),
    })
    const ready = await runtime.readiness()
    expect(ready.checks['full_text']).toBe('ready')
    expect(ready.checks['vector_index']).toBe('unavailable: MariaDB has no VECTOR type')
  })

  it('a full-text probe that finds nothing makes fts unavailable: search fails, it is not empty', async () => {
    // Simulates a server whose FULLTEXT drops short tokens: the probe's searches find nothing.
    const { backend } = await fresh('nofts', {
      rewriteSql: (sql) => sql.replace('AND probe_id = ?', "AND probe_id = CONCAT(?, '-')"),
    })
    expect(backend.capabilities.fts).toBe(false)
    expect(backend.storageChecks()['full_text']).toMatch(/^unavailable: full-text probe: "a"/)
    await backend.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'still written' }] })
    const err = await expectCode(
      backend.search({ scopeId: 's', query: 'written' }),
      'capability_not_supported',
    )
    expect(err.details).toEqual({ capability: 'fts' })
    expect((await backend.verify()).problems).toEqual([])
  })

  it('a failed full-text probe lists no fts/auto mode and refuses every mode it cannot run', async () => {
    const { backend } = await fresh('nofts-modes', {
      rewriteSql: (sql) => sql.replace('AND probe_id = ?', "AND probe_id = CONCAT(?, '-')"),
    })
    expect(backend.capabilities).toMatchObject({ fts: false, vector: false, searchModes: [] })
    const runtime = await MemoryRuntime.open({ backend })
    expect(runtime.capabilities().searchModes).toEqual([])
    await backend.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'still written' }] })
    for (const mode of ['auto', 'fts', 'hybrid'] as const) {
      const err = await expectCode(
        backend.search({ scopeId: 's', query: 'written', mode }),
        'capability_not_supported',
      )
      expect(err.details).toEqual({ capability: 'fts' })
      expect(err.message).toMatch(
        /full-text search is unavailable on this backend: full-text probe/,
      )
    }
    await expectCode(
      backend.search({ scopeId: 's', query: 'written', mode: 'vector' }),
      'capability_not_supported',
    )
  })

  it('without full text but with vectors (OceanBase emulated), auto is vector and fts/hybrid are refused', async () => {
    const url = await databases.create('nofts-vec')
    const database = new URL(url).pathname.slice(1)
    await databases.admin((conn) => installL2Distance(conn, database))
    const embedder = new DeterministicEmbedder(8, 'nofts-vec')
    const backend = await openMysqlBackend({
      url: `${url}?dialect=oceanbase`,
      embedder,
      rewriteSql: (sql) =>
        emulateOceanBase(sql).replace('AND probe_id = ?', "AND probe_id = CONCAT(?, '-')"),
    })
    opened.push(backend)
    expect(backend.capabilities).toMatchObject({
      fts: false,
      vector: true,
      searchModes: ['auto', 'vector'],
    })
    const { results } = await backend.remember({
      scopeId: 's',
      entries: [{ kind: 'fact', text: 'otter river' }],
    })
    const auto = await backend.search({ scopeId: 's', query: 'otter river', mode: 'auto' })
    expect(auto.mode).toBe('vector')
    expect(auto.hits.map((h) => h.memoryRef.artifactId)).toEqual([
      results[0]!.memory.memoryRef.artifactId,
    ])
    for (const mode of ['fts', 'hybrid'] as const) {
      const err = await expectCode(
        backend.search({ scopeId: 's', query: 'otter', mode }),
        'capability_not_supported',
      )
      expect(err.details).toEqual({ capability: 'fts' })
    }
  })

  it('a database with a newer schema is refused', async () => {
    const { url, backend } = await fresh('newer')
    await backend.close()
    const name = new URL(url).pathname.slice(1)
    await databases.admin((c) => c.query(`UPDATE \`${name}\`.schema_version SET version = 99`))
    const err = await expectCode(openMysqlBackend({ url }), 'storage_unavailable')
    expect(err.message).toContain('newer than this version')
    expect(err.message).toMatch(/upgrade PowerContext to open it$/)
    expect(err.details).toMatchObject({ reason: 'schema_newer', stored_schema: 99 })
  })
})

describeWithMariadb('transactions', () => {
  it('case-variant scope and source ids stay distinct (ASCII, binary collation)', async () => {
    const { backend } = await fresh('case')
    await backend.captureSource({ scopeId: 'Proj', sourceId: 'Src', content: 'a' })
    await backend.captureSource({ scopeId: 'Proj', sourceId: 'src', content: 'b' })
    await backend.remember({ scopeId: 'Proj', entries: [{ kind: 'fact', text: 'upper' }] })
    await backend.remember({ scopeId: 'proj', entries: [{ kind: 'fact', text: 'lower' }] })
    expect((await backend.list({ scopeId: 'Proj' })).memories.map((m) => m.text)).toEqual(['upper'])
    expect((await backend.list({ scopeId: 'proj' })).memories.map((m) => m.text)).toEqual(['lower'])
    expect((await backend.journal.window({ scopeId: 'Proj' })).highWatermark).toBe(2)
  })

  it('a duplicate version insert is revision_conflict and rolls the whole write back', async () => {
    const { url, backend } = await fresh('dup')
    const { results } = await backend.remember({
      scopeId: 's',
      entries: [{ kind: 'fact', text: 'x' }],
    })
    const id = results[0]!.memory.memoryRef.artifactId
    await expectCode(
      rawRows(url).run('write', async (tx) => {
        const v = await tx.getVersion(id, 1)
        await tx.appendChanges('s', [
          {
            op: 'update',
            memoryId: id,
            fromRevision: 1,
            toRevision: 1,
            fromState: 'active',
            toState: 'active',
            reason: null,
            operationId: 'op_x',
            at: v!.createdAt,
          },
        ])
        await tx.insertVersion(v!)
      }),
      'revision_conflict',
    )
    expect((await backend.changes({ scopeId: 's', since: 0 })).headSeq).toBe(1)
  })

  it('deadlocks are retried: two crossing writers both commit', async () => {
    const { url, backend: a } = await fresh('deadlock')
    const b = rawRows(url)
    for (const id of ['x', 'y']) await a.captureSource({ scopeId: id, sourceId: 's', content: id })
    let attempts = 0
    const cross = (first: string, second: string) => (rows: RowTransactions) =>
      rows.run('write', async (tx) => {
        attempts += 1
        await tx.nextSourcePosition(first)
        await new Promise((r) => setTimeout(r, 100))
        await tx.nextSourcePosition(second)
      })
    await Promise.all([cross('x', 'y')(rawRows(url)), cross('y', 'x')(b)])
    expect(attempts).toBeGreaterThan(2)
    // Each writer took one position in each scope; the failed attempt gave its numbers back.
    expect(await b.run('read', (tx) => tx.journal.highWatermark('x'))).toBe(3)
    const once = [rawRows(url, { maxAttempts: 1 }), rawRows(url, { maxAttempts: 1 })]
    const results = await Promise.allSettled([cross('x', 'y')(once[0]!), cross('y', 'x')(once[1]!)])
    const failed = results.filter((r) => r.status === 'rejected')
    expect(failed).toHaveLength(1)
    const err = (failed[0] as PromiseRejectedResult).reason as PowerContextError
    expect(err.code).toBe('storage_unavailable')
    expect(err.details).toMatchObject({ reason: 'busy', retry_after_seconds: 1 })
    expect(err.message).toContain('kept reporting conflicts')
  })
})
