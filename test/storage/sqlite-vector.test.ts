/* SQLite vector projection: extension loading, tampering, cross-connection caches, orphan rows. */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { expectCode } from '../conformance/harness.case.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-sqlite-vector-'))
const opened: SqliteMemoryBackend[] = []
let files = 0
afterAll(async () => {
  for (const b of opened) await b.close()
  rmSync(dir, { recursive: true, force: true })
})

const model = () => new DeterministicEmbedder(64, 'sqlite-vector-test')

async function open(
  database: string,
  options: { embedder?: DeterministicEmbedder; vectorExtension?: string | false } = {},
): Promise<SqliteMemoryBackend> {
  const backend = await openSqliteBackend({ database, ...options })
  opened.push(backend)
  return backend
}

const newFile = () => join(dir, `db-${++files}.sqlite`)

async function remember(backend: SqliteMemoryBackend, scopeId: string, text: string) {
  const { results } = await backend.remember({ scopeId, entries: [{ kind: 'fact', text }] })
  return results[0]!.memory.memoryRef
}

describe('sqlite vector extension', () => {
  for (const [label, vectorExtension] of [
    ['a missing extension file', join(dir, 'no-such-extension.so')],
    ['a disabled extension', false],
  ] as const) {
    it(`${label} leaves the backend without vectors, never a failed open`, async () => {
      const backend = await open(newFile(), { embedder: model(), vectorExtension })
      const status = backend.vectorStatus()
      expect(status.state).toBe('unavailable')
      expect(status.reason).toMatch(/vector extension/)
      expect(backend.capabilities).toMatchObject({ vector: false, embeddingProfile: null })
      const ref = await remember(backend, 's', 'heron wading')
      const auto = await backend.search({ scopeId: 's', query: 'heron', mode: 'auto' })
      expect(auto.mode).toBe('fts')
      expect(auto.hits.map((h) => h.memoryRef)).toEqual([ref])
      const err = await expectCode(
        backend.search({ scopeId: 's', query: 'heron', mode: 'hybrid' }),
        'capability_not_supported',
      )
      expect(err.details?.['capability']).toBe('hybrid')
      expect((await backend.verify()).problems).toEqual([])
    })
  }
})

describe('sqlite vector projection integrity', () => {
  it('a stale vector is reported by verify, never used, and replaced by reindex', async () => {
    const backend = await open(newFile(), { embedder: model() })
    const stale = await remember(backend, 's', 'lynx tracks in snow')
    const fine = await remember(backend, 's', 'lynx den in snow')
    expect((await backend.search({ scopeId: 's', query: 'lynx', mode: 'auto' })).mode).toBe(
      'hybrid',
    )
    backend.rawDatabase
      .prepare('UPDATE memory_vectors SET embedding_hash = ? WHERE memory_id = ?')
      .run('0'.repeat(64), stale.artifactId)
    const report = await backend.verify()
    expect(report.ok).toBe(false)
    expect(report.problems).toEqual([
      `memory ${stale.artifactId}: stale vector (does not match version 1)`,
    ])
    // The per-hit re-check drops the stale vector: the memory is found by fts only.
    const hybrid = await backend.search({ scopeId: 's', query: 'lynx snow', mode: 'hybrid' })
    expect(new Map(hybrid.hits.map((h) => [h.memoryRef.artifactId, h.matchedBy]))).toEqual(
      new Map([
        [stale.artifactId, ['fts']],
        [fine.artifactId, ['fts', 'vector']],
      ]),
    )
    expect(await backend.reindex()).toMatchObject({ embedded: 1, remaining: 0 })
    expect((await backend.verify()).problems).toEqual([])
    const vector = await backend.search({ scopeId: 's', query: 'lynx snow', mode: 'vector' })
    expect(vector.hits.map((h) => h.memoryRef.artifactId).sort()).toEqual(
      [stale.artifactId, fine.artifactId].sort(),
    )
  })

  it('a head without its vector row makes the scope incomplete', async () => {
    const backend = await open(newFile(), { embedder: model() })
    await remember(backend, 's', 'heron wading')
    backend.rawDatabase.prepare('DELETE FROM memory_vectors').run()
    const fresh = await open(backend.rawDatabase.name, { embedder: model() })
    expect((await fresh.search({ scopeId: 's', query: 'heron', mode: 'auto' })).mode).toBe('fts')
    await expectCode(
      fresh.search({ scopeId: 's', query: 'heron', mode: 'vector' }),
      'capability_not_supported',
    )
  })

  it('every vector hit is re-checked against the authoritative state', async () => {
    const backend = await open(newFile(), { embedder: model() })
    const keep = await remember(backend, 's', 'otter den river')
    const hidden = await remember(backend, 's', 'otter den lake')
    // Authoritative state says forgotten, but the projection still holds the head and its vector.
    backend.rawDatabase
      .prepare("UPDATE memories SET state = 'forgotten' WHERE memory_id = ?")
      .run(hidden.artifactId)
    for (const mode of ['vector', 'hybrid', 'fts'] as const) {
      const res = await backend.search({ scopeId: 's', query: 'otter den', mode })
      expect(
        res.hits.map((h) => h.memoryRef),
        mode,
      ).toEqual([keep])
    }
  })

  it('fts re-checks admitted candidates in order until it has its limit', async () => {
    const backend = await open(newFile(), { embedder: model() })
    const best = await remember(backend, 's', 'otter otter otter den')
    const next = await remember(backend, 's', 'otter den by the river bank today')
    const top = await backend.search({ scopeId: 's', query: 'otter den', mode: 'fts', limit: 1 })
    expect(top.hits.map((h) => h.memoryRef)).toEqual([best])
    backend.rawDatabase
      .prepare("UPDATE memories SET state = 'forgotten' WHERE memory_id = ?")
      .run(best.artifactId)
    // The first admitted candidate fails its re-check; the next one takes its place.
    const res = await backend.search({ scopeId: 's', query: 'otter den', mode: 'fts', limit: 1 })
    expect(res.hits.map((h) => h.memoryRef)).toEqual([next])
  })

  it('a head whose tokens belong to other content is never admitted', async () => {
    const backend = await open(newFile(), { embedder: model() })
    const keep = await remember(backend, 's', 'badger sett woodland')
    const tampered = await remember(backend, 's', 'heron pond')
    // Hybrid is known complete before the tampering (a new process would find the scope
    // incomplete and refuse hybrid): the per-hit re-check must drop it.
    expect((await backend.search({ scopeId: 's', query: 'badger', mode: 'hybrid' })).mode).toBe(
      'hybrid',
    )
    // The projection claims badger words for the heron memory (its hash no longer matches).
    backend.rawDatabase
      .prepare(
        "UPDATE memory_heads SET searchable_text = 'badger sett woodland', content_hash = ? WHERE memory_id = ?",
      )
      .run('0'.repeat(64), tampered.artifactId)
    for (const mode of ['fts', 'hybrid'] as const) {
      const res = await backend.search({ scopeId: 's', query: 'badger sett', mode })
      expect(
        res.hits.map((h) => h.memoryRef),
        mode,
      ).toEqual([keep])
    }
  })

  it('a scope with one memory costs a small chunk of the file, not 1,024 rows', async () => {
    const file = newFile()
    const backend = await open(file, { embedder: new DeterministicEmbedder(384, 'chunk-test') })
    for (let i = 0; i < 20; i++) await remember(backend, `project-${i}`, `build note ${i}`)
    await backend.close()
    // sqlite-vec's default chunk (1,024 rows × 1,536 bytes) would make this ≈ 31 MB.
    expect(statSync(file).size).toBeLessThan(12 * 1024 * 1024)
  })

  it('rebuild brings a vector index of an older layout to the current one', async () => {
    const file = newFile()
    const first = await open(file, { embedder: model() })
    first.rawDatabase.exec(`DROP TABLE memory_vec;
      CREATE VIRTUAL TABLE memory_vec USING vec0(scope_id text partition key, kind text, embedding float[64])`)
    await first.close()
    const backend = await open(file, { embedder: model() })
    const ref = await remember(backend, 's', 'kingfisher dive')
    const layout = () =>
      (
        backend.rawDatabase
          .prepare("SELECT sql FROM sqlite_master WHERE name = 'memory_vec'")
          .get() as { sql: string }
      ).sql
    expect(layout()).not.toMatch(/chunk_size/)
    await backend.rebuild()
    expect(layout()).toMatch(/chunk_size=256/)
    const res = await backend.search({ scopeId: 's', query: 'kingfisher', mode: 'vector' })
    expect(res.hits.map((h) => h.memoryRef)).toEqual([ref])
    expect((await backend.verify()).problems).toEqual([])
  })

  it('another connection sees reindex and rebuild through the vector epoch', async () => {
    const file = newFile()
    const server = await open(file, { embedder: model() })
    await remember(server, 's', 'puffin burrow')
    expect((await server.search({ scopeId: 's', query: 'puffin' })).mode).toBe('hybrid')
    const admin = await open(file)
    await admin.rebuild() // no model: every vector is gone, no change-log row is written
    expect((await server.search({ scopeId: 's', query: 'puffin' })).mode).toBe('fts')
    await server.reindex()
    expect((await server.search({ scopeId: 's', query: 'puffin' })).mode).toBe('hybrid')
    const other = await open(file, { embedder: model() })
    expect((await other.search({ scopeId: 's', query: 'puffin' })).mode).toBe('hybrid')
    // A write through one connection is seen by the other's cached completeness.
    await open(file, { vectorExtension: false }).then((noVec) => remember(noVec, 's', 'puffin egg'))
    expect((await other.search({ scopeId: 's', query: 'puffin' })).mode).toBe('fts')
  })

  it('rows left by a run without the extension are reported and cleared by rebuild', async () => {
    const file = newFile()
    const first = await open(file, { embedder: model() })
    const ref = await remember(first, 's', 'ibis wading')
    await first.close()
    const noVec = await open(file, { embedder: model(), vectorExtension: false })
    await noVec.forget({ scopeId: 's', memoryId: ref.artifactId })
    await noVec.close()
    const back = await open(file, { embedder: model() })
    const report = await back.verify()
    expect(report.problems).toEqual([expect.stringMatching(/vector row \d+ has no metadata/)])
    await back.rebuild()
    expect((await back.verify()).problems).toEqual([])
  })

  it('a wrong-dimension vector from the model is rejected, the write still commits', async () => {
    const good = model()
    const backend = await open(newFile(), {
      embedder: Object.assign(Object.create(good) as DeterministicEmbedder, {
        profile: good.profile,
        embed: async (texts: readonly string[]) => texts.map(() => [1, 2, 3]),
      }),
    })
    const ref = await remember(backend, 's', 'wrong dimension probe')
    expect((await backend.get({ scopeId: 's', memoryId: ref.artifactId })).state).toBe('active')
    expect((await backend.verify()).counts.missingVectors).toBe(1)
    expect((await backend.search({ scopeId: 's', query: 'probe' })).mode).toBe('fts')
  })
})
