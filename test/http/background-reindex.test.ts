/*
 * Background reindex and completeness across processes: `powercontext server
 * run` starts filling missing vectors when it starts and logs its progress; a process that found
 * a scope incomplete sees another process's reindex fill it, even one that died before its epoch
 * bump. Uses the build (`npm test` runs it first) and the loopback embeddings server.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { EmbeddingsServer } from '../support/embeddings-server.js'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const DIST = new URL('../../dist/', import.meta.url)
const DIMENSION = 32
const dir = mkdtempSync(join(tmpdir(), 'pc-background-reindex-'))
const embeddings = new EmbeddingsServer(DIMENSION)
let embeddingsUrl = ''

beforeAll(async () => {
  embeddingsUrl = await embeddings.listen()
})
afterAll(async () => {
  await embeddings.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Writes `count` memories into `scopeId` of the file without any model (no vectors). */
async function seedWithoutVectors(database: string, scopeId: string, count: number) {
  const backend = await openSqliteBackend({ database })
  await backend.remember({
    scopeId,
    entries: Array.from({ length: count }, (_, i) => ({ kind: 'fact', text: `heron note ${i}` })),
  })
  await backend.close()
}

describe('background reindex', () => {
  it('starts when the server starts and logs its start, progress and end', async () => {
    const dataDir = join(dir, 'server')
    await seedWithoutVectors(join(dataDir, 'powercontext.db'), 'bg:s', 3)
    const env: NodeJS.ProcessEnv = { ...process.env, POWERCONTEXT_SERVER_LOG_LEVEL: 'info' }
    delete env['POWERCONTEXT_SERVER_AUTH_TOKEN']
    const proc = spawn(
      process.execPath,
      [
        BIN,
        'server',
        'run',
        '--data-dir',
        dataDir,
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--embedding-url',
        embeddingsUrl,
        '--embedding-model',
        'bg-model',
        '--embedding-dimension',
        String(DIMENSION),
        '--embedding-profile-id',
        'bg-profile',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env },
    )
    let stdout = ''
    proc.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    const started = Date.now()
    try {
      // The old loop waited 30 s before its first pass; this one starts at once.
      const finished = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no finished pass: ${stdout}`)), 20_000)
        proc.stdout.on('data', () => {
          const line = stdout.split('\n').find((l) => l.includes('"background reindex finished"'))
          if (line === undefined) return
          clearTimeout(timer)
          resolve(JSON.parse(line) as Record<string, unknown>)
        })
        proc.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stdout}`)))
      })
      expect(Date.now() - started).toBeLessThan(20_000)
      expect(finished).toMatchObject({ scanned: 3, embedded: 3, remaining: 0 })
      expect(stdout).toContain('"background reindex started"')
      // No memory text in the log lines.
      expect(stdout).not.toContain('heron note')
    } finally {
      proc.kill('SIGTERM')
      await new Promise((r) => (proc.exitCode === null ? proc.once('exit', r) : r(null)))
    }
  }, 60_000)

  it('another process filling a scope is seen, even when it dies before its epoch bump', async () => {
    const database = join(dir, 'two-processes.db')
    const scopeId = 'bg:two'
    await seedWithoutVectors(database, scopeId, 40)
    const embedder = new DeterministicEmbedder(DIMENSION, 'two-processes')
    const backend = await openSqliteBackend({ database, embedder })
    try {
      const mode = async () =>
        (await backend.search({ scopeId, query: 'heron', mode: 'auto' })).mode
      expect(await mode()).toBe('fts') // cached: incomplete
      // The other process fills the scope, then exits after its first page of heads: its
      // vectors are committed, its epoch bump never happens.
      const script = `
        import { openSqliteBackend } from ${JSON.stringify(new URL('storage/sqlite/index.js', DIST).href)}
        import { DeterministicEmbedder } from ${JSON.stringify(new URL('runtime/embedder.js', DIST).href)}
        const b = await openSqliteBackend({
          database: ${JSON.stringify(database)},
          embedder: new DeterministicEmbedder(${DIMENSION}, 'two-processes'),
        })
        await b.reindex({ batchSize: 8, onProgress: (p) => { console.log(JSON.stringify(p)); process.exit(0) } })
      `
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        cwd: fileURLToPath(pathToFileURL(dir)),
      })
      expect(child.stderr).toBe('')
      expect(JSON.parse(child.stdout)).toMatchObject({ scanned: 40, embedded: 40, remaining: 0 })
      expect(await mode()).toBe('hybrid')
      const vector = await backend.search({ scopeId, query: 'heron note 7', mode: 'vector' })
      expect(vector.hits.length).toBeGreaterThan(0)
    } finally {
      await backend.close()
    }
  }, 60_000)
})
