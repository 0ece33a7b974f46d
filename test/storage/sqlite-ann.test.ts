/* SQLite approximate vector search: graphs built in the background, kept in step by the log. */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import type { SearchMode } from '../../src/storage/spi/memory-backend.js'
import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { GraphLifecycle } from '../../src/storage/sqlite/sqlite-ann-lifecycle.js'
import { SqliteAnnReader } from '../../src/storage/sqlite/sqlite-ann-rows.js'
import { GraphSearch } from '../../src/storage/sqlite/sqlite-ann-search.js'
import { ANN_DEFAULTS, loadHnswlib } from '../../src/storage/sqlite/sqlite-ann-types.js'
import { SQLITE_SCHEMA_VERSION } from '../../src/storage/sqlite/sqlite-schema.js'
import { SqliteStatements } from '../../src/storage/sqlite/sqlite-session.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-sqlite-ann-'))
const opened: SqliteMemoryBackend[] = []
let files = 0
afterAll(async () => {
  for (const b of opened) await b.close()
  rmSync(dir, { recursive: true, force: true })
})

const model = () => new DeterministicEmbedder(32, 'sqlite-ann-test')
const newFile = () => join(dir, `db-${++files}.sqlite`)
// Small graphs searched with a candidate list longer than the scope: HNSW is then exact, so
// every answer can be compared with exact KNN.
const ANN = { minVectors: 40, efSearch: 500 }

async function open(
  database: string,
  vectorAnn: typeof ANN | false = ANN,
): Promise<SqliteMemoryBackend> {
  const backend = await openSqliteBackend({ database, embedder: model(), vectorAnn })
  opened.push(backend)
  return backend
}

const WORDS = 'otter heron badger kestrel willow reed marsh stream alder moss fern pebble'.split(
  ' ',
)
const text = (i: number) =>
  `${WORDS[i % 12]} ${WORDS[(i * 5 + 3) % 12]} ${WORDS[(i * 7 + 1) % 12]} note ${i}`

async function fill(backend: SqliteMemoryBackend, scopeId: string, from: number, to: number) {
  const refs = []
  for (let start = from; start < to; start += 100) {
    const entries = []
    for (let i = start; i < Math.min(to, start + 100); i++) {
      entries.push({ kind: i % 3 === 0 ? 'note' : 'fact', text: text(i) })
    }
    const { results } = await backend.remember({ scopeId, entries })
    refs.push(...results.map((r) => r.memory.memoryRef))
  }
  return refs
}

async function search(backend: SqliteMemoryBackend, query: string, mode: SearchMode = 'vector') {
  const res = await backend.search({ scopeId: 's', query, mode, limit: 10 })
  return res.hits.map((h) => `${h.memoryRef.artifactId}@${h.memoryRef.revision}:${h.score}`)
}

async function graphSearches(backend: SqliteMemoryBackend, scopeId = 's'): Promise<number> {
  const status = await backend.annStatus()
  expect(status.lastError).toBeNull()
  return status.scopes[scopeId]?.searches ?? 0
}

const QUERIES = ['otter heron', 'kestrel willow marsh', 'moss fern pebble note', 'alder stream']

describe('sqlite approximate vector search', () => {
  it('hnswlib loads; a binding that cannot load is a reason, never a failure', async () => {
    expect((await loadHnswlib()).hnswlib?.HierarchicalNSW).toBeTypeOf('function')
    const missing = await loadHnswlib('hnswlib-node-that-is-not-installed')
    expect(missing.hnswlib).toBeUndefined()
    expect(missing.problem).toMatch(/^vector graphs unavailable: /)
  })

  it('a scope below the threshold is searched exactly and gets no graph', async () => {
    const backend = await open(newFile())
    await fill(backend, 's', 0, 30)
    await search(backend, 'otter')
    expect((await backend.annStatus()).scopes).toEqual({})
  })

  it('a large scope gets a graph in the background whose answers equal exact KNN', async () => {
    const file = newFile()
    const backend = await open(file)
    await fill(backend, 's', 0, 120)
    const exact = await open(file, false)
    const first = await search(backend, QUERIES[0]!) // exact; starts the build
    expect(first).toEqual(await search(exact, QUERIES[0]!))
    const status = await backend.annStatus()
    expect(status.scopes['s']).toMatchObject({ state: 'ready', vectors: 120 })
    for (const q of QUERIES) {
      for (const mode of ['vector', 'hybrid', 'auto'] as const) {
        expect(await search(backend, q, mode), `${mode} ${q}`).toEqual(await search(exact, q, mode))
      }
    }
    expect(await graphSearches(backend)).toBe(QUERIES.length * 3)
  })

  it('writes after the build, here or through another connection, are in the next answer', async () => {
    const file = newFile()
    const backend = await open(file)
    const refs = await fill(backend, 's', 0, 100)
    await search(backend, 'otter')
    await backend.annStatus()
    const other = await open(file, false)
    const exact = await open(file, false)
    // A new memory, an update to new words, a forget: here and on the other connection.
    await backend.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'zebra quagga' }] })
    await other.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'okapi giraffe' }] })
    await backend.update({ scopeId: 's', memoryRef: refs[5]!, text: 'narwhal tusk' })
    await other.forget({ scopeId: 's', memoryId: refs[6]!.artifactId, expectedRevision: 1 })
    const before = await graphSearches(backend)
    for (const q of ['zebra quagga', 'okapi giraffe', 'narwhal tusk', text(6), ...QUERIES]) {
      const hits = await search(backend, q)
      expect(hits, q).toEqual(await search(exact, q))
    }
    expect((await search(backend, 'narwhal tusk'))[0]).toMatch(`${refs[5]!.artifactId}@2:`)
    expect(await graphSearches(backend)).toBe(before + QUERIES.length + 5)
  })

  it('a backlog longer than a search can apply is applied in the background', async () => {
    const file = newFile()
    const backend = await open(file)
    await fill(backend, 's', 0, 60)
    await search(backend, 'otter')
    await backend.annStatus()
    const other = await open(file, false)
    await fill(other, 's', 60, 400) // 340 log entries: more than one search applies
    const exact = await open(file, false)
    const before = await graphSearches(backend)
    expect(await search(backend, 'heron reed')).toEqual(await search(exact, 'heron reed'))
    const status = await backend.annStatus() // waits for the catch-up
    expect(status.scopes['s']).toMatchObject({ state: 'ready', vectors: 400 })
    expect(status.scopes['s']?.searches).toBe(before) // that search was answered exactly
    expect(await search(backend, 'heron reed')).toEqual(await search(exact, 'heron reed'))
    expect(await graphSearches(backend)).toBe(before + 1)
  })

  it('a kind filter is searched exactly; rebuild and reindex retire the graph', async () => {
    const file = newFile()
    const backend = await open(file)
    await fill(backend, 's', 0, 80)
    await search(backend, 'otter')
    await backend.annStatus()
    const exact = await open(file, false)
    const byKind = (b: SqliteMemoryBackend) =>
      b.search({ scopeId: 's', query: 'otter heron', mode: 'vector', kinds: ['note'] })
    const before = await graphSearches(backend)
    expect((await byKind(backend)).hits).toEqual((await byKind(exact)).hits)
    expect(await graphSearches(backend)).toBe(before)

    await backend.rebuild() // new epoch: the old graph may not answer any more
    expect(await search(backend, 'otter heron')).toEqual(await search(exact, 'otter heron'))
    const rebuilt = await backend.annStatus()
    expect(rebuilt.scopes['s']).toMatchObject({ state: 'ready', vectors: 80, searches: 0 })
    expect(await search(backend, 'otter heron')).toEqual(await search(exact, 'otter heron'))
    expect(await graphSearches(backend)).toBe(1)
    expect((await backend.verify()).problems).toEqual([])
  })

  it('a scope that shrinks below half the threshold drops its graph', async () => {
    const backend = await open(newFile())
    const refs = await fill(backend, 's', 0, 50)
    await search(backend, 'otter')
    expect((await backend.annStatus()).scopes['s']?.state).toBe('ready')
    for (const ref of refs.slice(0, 40)) {
      await backend.forget({ scopeId: 's', memoryId: ref.artifactId, expectedRevision: 1 })
    }
    await search(backend, 'otter')
    expect((await backend.annStatus()).scopes).toEqual({})
  })

  it('a database from before the vector log gets it at open and builds graphs from its vectors', async () => {
    const file = newFile()
    const old = await open(file, false)
    await fill(old, 's', 0, 60)
    old.rawDatabase.exec(
      `DROP TABLE legacy_source_payloads; DROP TABLE legacy_citations; DROP TABLE legacy_upgrades;
       DROP TABLE memory_vector_log; DROP TABLE database_identity; DROP TABLE redactions;
       DROP TABLE receipt_items; DROP TABLE receipts; DROP TABLE source_paths;
       DROP TABLE freshness_checks;
       UPDATE schema_version SET version = 4`,
    )
    await old.close()
    const backend = await open(file)
    expect(backend.rawDatabase.prepare('SELECT version FROM schema_version').get()).toEqual({
      version: SQLITE_SCHEMA_VERSION,
    })
    await search(backend, 'otter')
    expect((await backend.annStatus()).scopes['s']).toMatchObject({ state: 'ready', vectors: 60 })
    await backend.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'zebra quagga' }] })
    const exact = await open(file, false)
    expect(await search(backend, 'zebra quagga')).toEqual(await search(exact, 'zebra quagga'))
    expect(await graphSearches(backend)).toBe(1)
  })

  it('a restarted process loads the saved graph and catches up with what changed meanwhile', async () => {
    const file = newFile()
    const first = await open(file)
    const refs = await fill(first, 's', 0, 80)
    await search(first, 'otter')
    expect((await first.annStatus()).scopes['s']).toMatchObject({ state: 'ready', loaded: false })
    await first.close()
    expect(readdirSync(`${file}.graphs`).sort()).toEqual([
      expect.stringMatching(/^[0-9a-f]{32}-[0-9a-f]{16}\.hnsw$/),
      expect.stringMatching(/^[0-9a-f]{32}\.json$/),
    ])
    // While no process holds the graph: new memories, a forget, an update.
    const other = await open(file, false)
    await other.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'zebra quagga' }] })
    await other.forget({ scopeId: 's', memoryId: refs[3]!.artifactId, expectedRevision: 1 })
    await other.update({ scopeId: 's', memoryRef: refs[4]!, text: 'narwhal tusk' })
    const second = await open(file)
    await search(second, 'otter')
    const status = await second.annStatus()
    expect(status.scopes['s']).toMatchObject({ state: 'ready', loaded: true, vectors: 80 })
    for (const q of ['zebra quagga', 'narwhal tusk', text(3), ...QUERIES]) {
      expect(await search(second, q), q).toEqual(await search(other, q))
    }
    expect(await graphSearches(second)).toBe(QUERIES.length + 3)
  })

  it('a saved graph that does not match the database or the settings is rebuilt', async () => {
    const file = newFile()
    const first = await open(file)
    await fill(first, 's', 0, 60)
    await search(first, 'otter')
    await first.annStatus()
    await first.close()
    const loadedWith = async (
      vectorAnn: typeof ANN & { m?: number },
      database = file,
    ): Promise<boolean | undefined> => {
      const b = await openSqliteBackend({ database, embedder: model(), vectorAnn })
      opened.push(b)
      await search(b, 'otter')
      const status = await b.annStatus()
      expect(status.lastError).toBeNull()
      await b.close()
      return status.scopes['s']?.loaded
    }
    expect(await loadedWith(ANN)).toBe(true)
    expect(await loadedWith({ ...ANN, m: 8 })).toBe(false) // other settings: rebuilt, saved
    expect(await loadedWith({ ...ANN, m: 8 })).toBe(true)
    // Another database of the same scope, given these graph files: not its history.
    const copy = newFile()
    const twin = await open(copy)
    await fill(twin, 's', 0, 60)
    await twin.close()
    cpSync(`${file}.graphs`, `${copy}.graphs`, { recursive: true })
    expect(await loadedWith({ ...ANN, m: 8 }, copy)).toBe(false)
    // A damaged index file: same size, some bytes changed (never handed to the native reader).
    const dir = `${file}.graphs`
    const index = join(
      dir,
      readdirSync(dir).find((n) => n.endsWith('.hnsw'))!,
    )
    const bytes = readFileSync(index)
    bytes.fill(0xff, 0, 64)
    writeFileSync(index, bytes)
    expect(await loadedWith({ ...ANN, m: 8 })).toBe(false)
    expect(await loadedWith({ ...ANN, m: 8 })).toBe(true)
    // A rebuild moves the vector epoch: the saved graph is stale.
    const admin = await open(file, false)
    await admin.rebuild()
    await admin.close()
    expect(await loadedWith({ ...ANN, m: 8 })).toBe(false)
  })

  it('a graph that cannot be saved stays in use, and the failure is reported', async () => {
    const file = newFile()
    writeFileSync(`${file}.graphs`, 'a file where the directory would go')
    const backend = await open(file)
    await fill(backend, 's', 0, 60)
    await search(backend, 'otter')
    const status = await backend.annStatus()
    expect(status.lastError).toMatch(/^scope s: saving the graph failed: /)
    expect(status.scopes['s']).toMatchObject({ state: 'ready', vectors: 60 })
    const exact = await open(file, false)
    expect(await search(backend, 'heron reed')).toEqual(await search(exact, 'heron reed'))
    expect((await backend.annStatus()).scopes['s']?.searches).toBe(1)
  })

  it('a graph search names the work its graph needs and starts none of it itself', async () => {
    const backend = await open(newFile(), false)
    const refs = await fill(backend, 's', 0, 60)
    const { hnswlib } = await loadHnswlib()
    const reader = new SqliteAnnReader(new SqliteStatements(backend.rawDatabase), 'memory_vec')
    const settings = { ...ANN_DEFAULTS, ...ANN }
    const lifecycle = new GraphLifecycle(hnswlib!, 32, settings, async (work) => work(reader))
    const graphs = new GraphSearch(lifecycle, settings)
    const vector = Array.from({ length: 32 }, (_, i) => (i % 3) - 1)

    expect(graphs.search(reader, 's', vector, 5)).toEqual({ near: undefined, work: 'build' })
    await lifecycle.idle()
    expect(lifecycle.status()).toEqual({}) // asked for, not started
    lifecycle.schedule('s', 'build')
    await lifecycle.idle()
    expect(lifecycle.status()['s']).toMatchObject({ state: 'ready', vectors: 60, searches: 0 })
    const answer = graphs.search(reader, 's', vector, 5)
    expect(answer.work).toBeUndefined()
    expect(answer.near).toHaveLength(5)

    for (const ref of refs.slice(0, 41)) {
      await backend.forget({ scopeId: 's', memoryId: ref.artifactId, expectedRevision: 1 })
    }
    expect(graphs.search(reader, 's', vector, 5)).toEqual({ near: undefined, work: 'drop' })
    expect(lifecycle.graph('s')).toBeDefined() // the shrunk scope keeps it until the drop runs
    lifecycle.schedule('s', 'drop')
    expect(lifecycle.status()).toEqual({})
    lifecycle.close()
  })
})
