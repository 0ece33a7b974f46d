/*
 * Redaction on SQLite leaves no byte of the erased text in the database files (docs/storage.md
 * "Redaction"): secrets stored the way an older build stored them — in versions, a reason, a
 * source, the head projection and the FTS5 index, then moved by an update and a forget so that
 * copies also sit in freed space and old index segments — are found by the scan and erased; a
 * source's secret quoted by a flush decision record leaves with the source; the raw bytes of the
 * .db, -wal and -shm files (and any saved vector graph) are then read back.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

import { REDACTED_TEXT } from '../../src/core/redaction.js'
import { findSecret } from '../../src/core/secret-rules.js'
import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { flushWindow } from '../support/flush-window.js'
import { plantSourceContent, plantVersionText } from '../support/planted-secrets.js'

/** Synthetic credentials (never real), each unique to this file. */
const AWS_KEY = 'AKIAZQXJ7WV3KM2PLRT9'
const GITHUB_TOKEN = 'ghp_Wq8ZrT5vKx2LmN7pQs4YbD9cFh3JgA6eUi1o'
const PASSWORD = 'Xy7pQ2vLm9Rt4ZkW'
/**
 * What must not be found: each secret as stored, and lower-cased tails of them (the FTS5 index
 * keeps tokens lower-cased, each term prefix-compressed against the one before it).
 */
const NEEDLES = [AWS_KEY, GITHUB_TOKEN, PASSWORD].flatMap((s) => [s, s.slice(-12).toLowerCase()])

const SOURCE_CONTENT = `export GH_TOKEN ${GITHUB_TOKEN}\nAWS ${AWS_KEY}`

const dir = mkdtempSync(join(tmpdir(), 'powercontext-redact-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Every file of the database: .db, -wal, -shm and saved vector graphs. */
function databaseFiles(file: string): string[] {
  const files = [file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f))
  const graphs = `${file}.graphs`
  if (existsSync(graphs)) files.push(...readdirSync(graphs).map((n) => join(graphs, n)))
  return files
}

/** `file: needle` for every needle found in the raw bytes of the database's files. */
function bytesFound(file: string): string[] {
  return databaseFiles(file).flatMap((f) => {
    const bytes = readFileSync(f)
    return NEEDLES.filter((n) => bytes.includes(Buffer.from(n))).map((n) => `${f}: ${n}`)
  })
}

/** A database holding the planted secrets, projected and then moved around. */
async function databaseWithSecrets(name: string) {
  const file = join(dir, `${name}.sqlite`)
  const backend = await openSqliteBackend({ database: file })
  const scopeId = 'project:acme/api'
  for (let batch = 0; batch < 3; batch += 1) {
    const entries = Array.from({ length: 100 }, (_, i) => ({
      kind: 'fact',
      text: `filler fact ${batch}-${i} about the build pipeline and its caches`,
    }))
    await backend.remember({ scopeId, entries })
  }
  await backend.captureSource({ scopeId, sourceId: 'env-paste', content: 'placeholder' })
  const { results } = await backend.remember({
    scopeId,
    entries: ['p1', 'p2', 'p3'].map((t) => ({ kind: 'fact', text: `placeholder ${t}` })),
  })
  const [key, token, password] = results.map((r) => r.memory.memoryRef)
  const raw = new Database(file)
  const exec = async (sql: string, params: readonly unknown[]) =>
    void raw.prepare(sql).run(...params)
  try {
    await plantVersionText(exec, key!.artifactId, `the CI AWS key is ${AWS_KEY}`)
    await plantVersionText(
      exec,
      token!.artifactId,
      'ci token rotates monthly',
      `was ${GITHUB_TOKEN}`,
    )
    await plantVersionText(exec, password!.artifactId, `staging db password: ${PASSWORD}`)
    await plantSourceContent(
      exec,
      scopeId,
      'env-paste',
      `export GH_TOKEN ${GITHUB_TOKEN}\nAWS ${AWS_KEY}`,
      {
        note: `password: ${PASSWORD}`,
      },
    )
  } finally {
    raw.close()
  }
  await backend.rebuild()
  // Copies in freed space and superseded index segments: the key's head is rewritten, the
  // password's head deleted.
  await backend.update({ scopeId, memoryRef: key!, text: 'the CI key was rotated' })
  await backend.forget({ scopeId, memoryId: password!.artifactId })
  expect((await backend.verify()).problems).toEqual([])
  return { file, backend, scopeId, refs: { key: key!, token: token!, password: password! } }
}

describe('admin redact on SQLite: no erased byte stays in the files', () => {
  let open: SqliteMemoryBackend | undefined
  afterAll(async () => open?.close())

  it('a secret stored by an older build is found by the scan and erased from every file', async () => {
    const { file, backend, scopeId, refs } = await databaseWithSecrets('scan')
    open = backend
    // The check can fail: before the redaction the secrets are in the files.
    expect(bytesFound(file).length).toBeGreaterThan(0)
    const dry = await backend.redact({ scopeId, target: { scan: true }, dryRun: true })
    // Each found by the rule the shared rule set names first for its text (src/core/secret-rules.ts).
    const ruleOf = async (text: string) => ((await findSecret(text)) as { rule: string }).rule
    const keyRule = await ruleOf(`the CI AWS key is ${AWS_KEY}`)
    expect(dry.items.map((i) => [i.target, i.sourceId ?? i.memoryRef?.artifactId, i.rule])).toEqual(
      [
        ['source', 'env-paste', await ruleOf(SOURCE_CONTENT)],
        ...[
          [refs.key.artifactId, keyRule],
          [refs.token.artifactId, await ruleOf(`was ${GITHUB_TOKEN}`)],
          [refs.password.artifactId, await ruleOf(`staging db password: ${PASSWORD}`)],
        ]
          .sort((a, b) => a[0]!.localeCompare(b[0]!))
          .map(([id, rule]) => ['version', id, rule]),
      ],
    )
    const r = await backend.redact({ scopeId, target: { scan: true } })
    expect(r.items.every((i) => i.status === 'redacted')).toBe(true)
    expect(r.erasure).toMatchObject({ filesClean: true, pending: null })
    expect(r.erasure?.steps).toEqual([
      'secure_delete',
      'fts_optimize',
      'vacuum',
      'wal_checkpoint_truncate',
    ])
    expect(bytesFound(file)).toEqual([])
    // History is intact, reads show the marker, and the database is sound.
    const key = await backend.history({ scopeId, memoryId: refs.key.artifactId })
    expect(key.versions.map((v) => v.text)).toEqual([REDACTED_TEXT, 'the CI key was rotated'])
    expect((await backend.verify()).problems).toEqual([])
    await backend.close()
    open = undefined
    // Still clean after the last connection closed (nothing was parked in memory to write back).
    expect(bytesFound(file)).toEqual([])
  })

  it('erasing a source erases its secret from the decision records quoting it, in every file', async () => {
    const file = join(dir, 'records.sqlite')
    const backend = await openSqliteBackend({ database: file })
    open = backend
    const scopeId = 'project:acme/api'
    const flushThrough = (through: number, text: string) =>
      flushWindow(backend, scopeId, through, { candidates: [{ text }], proposals: { raw: text } })
    await backend.captureSource({ scopeId, sourceId: 'env-paste', content: 'placeholder' })
    const quoting = await flushThrough(1, 'placeholder')
    await backend.captureSource({ scopeId, sourceId: 'notes', content: 'ports are 80 and 443' })
    const other = await flushThrough(2, 'ports are 80 and 443')
    const raw = new Database(file)
    const exec = async (sql: string, params: readonly unknown[]) =>
      void raw.prepare(sql).run(...params)
    try {
      await plantSourceContent(exec, scopeId, 'env-paste', SOURCE_CONTENT)
      // As an older build's flush wrote it (candidates and model output quote the source), then
      // rewritten once so that an older copy also sits in freed space.
      for (const note of ['first', 'second']) {
        const details = {
          candidates: [{ text: `${note}: ${SOURCE_CONTENT}` }],
          proposals: { raw: `the model saw ${GITHUB_TOKEN} and ${AWS_KEY}` },
        }
        await exec('UPDATE flush_records SET details_json = ? WHERE record_id = ?', [
          JSON.stringify(details),
          quoting.recordId,
        ])
      }
    } finally {
      raw.close()
    }
    expect(bytesFound(file).length).toBeGreaterThan(0)
    const r = await backend.redact({ scopeId, target: { sourceId: 'env-paste' } })
    expect(r.items.map((i) => [i.target, i.sourceId ?? i.recordId, i.status])).toEqual([
      ['source', 'env-paste', 'redacted'],
      ['record', quoting.recordId, 'redacted'],
    ])
    expect(r.erasure).toMatchObject({ filesClean: true, pending: null })
    expect(bytesFound(file)).toEqual([])
    const records = (await backend.journal.records({ scopeId })).records
    expect(records.map((x) => x.redaction === undefined)).toEqual([false, true])
    expect(records[1]?.details['proposals']).toEqual({ raw: 'ports are 80 and 443' })
    expect(records[1]?.recordId).toBe(other.recordId)
    expect((await backend.verify()).problems).toEqual([])
    await backend.close()
    open = undefined
    expect(bytesFound(file)).toEqual([])
  })

  it('a reader in another process keeps the WAL; the erase says so and a repeat finishes it', async () => {
    const { file, backend, scopeId, refs } = await databaseWithSecrets('reader')
    open = backend
    const reader = spawn(
      process.execPath,
      [
        '-e',
        `const D = require('better-sqlite3'); const db = new D(process.argv[1]);
         db.exec('BEGIN'); db.prepare('SELECT count(*) FROM memory_versions').get();
         process.stdout.write('reading\\n'); process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0) })`,
        file,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'], cwd: process.cwd() },
    )
    try {
      await new Promise<void>((resolve) => reader.stdout.once('data', () => resolve()))
      const r = await backend.redact({ scopeId, target: { memoryRef: refs.key } })
      expect(r.erasure?.filesClean).toBe(false)
      expect(r.erasure?.pending).toMatch(/another connection kept reading/)
      expect(r.erasure?.steps).toEqual(['secure_delete', 'fts_optimize', 'vacuum'])
    } finally {
      reader.stdin.write('done\n')
      await new Promise((resolve) => reader.once('exit', resolve))
    }
    const again = await backend.redact({ scopeId, target: { scan: true } })
    expect(again.erasure).toMatchObject({ filesClean: true, pending: null })
    expect(bytesFound(file)).toEqual([])
    expect((await backend.verify()).problems).toEqual([])
  }, 60_000)
})
