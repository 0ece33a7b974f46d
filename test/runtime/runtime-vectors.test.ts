import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, describe, expect, it } from 'vitest'

import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { SwitchableEmbedder } from '../conformance/memory-vector.case.js'

const runtimes: MemoryRuntime[] = []
afterEach(async () => {
  for (const rt of runtimes.splice(0)) await rt.close()
})

async function runtime(embedder: SwitchableEmbedder, vectorExtension?: false) {
  const backend = await openSqliteBackend({
    database: ':memory:',
    embedder,
    ...(vectorExtension === undefined ? {} : { vectorExtension }),
  })
  const rt = await MemoryRuntime.open({ backend, embedder })
  runtimes.push(rt)
  return rt
}

describe('runtime with an embedding model', () => {
  it('reports the profile, the vector modes and a ready embedding check', async () => {
    const model = new SwitchableEmbedder('runtime', 16)
    const rt = await runtime(model)
    expect(rt.capabilities()).toMatchObject({
      searchModes: ['auto', 'fts', 'vector', 'hybrid'],
      embeddingProfile: model.profile,
    })
    expect(await rt.readiness()).toEqual({
      status: 'ready',
      checks: {
        runtime: 'ready',
        database: 'ready',
        storage: 'ready',
        'inference.embedding': 'ready',
      },
    })
  })

  it('a failing model or a missing vector index makes readiness degraded, not not_ready', async () => {
    const down = new SwitchableEmbedder('runtime', 16)
    down.failing = true
    const rt = await runtime(down)
    const ready = await rt.readiness()
    expect(ready.status).toBe('degraded')
    expect(ready.checks['inference.embedding']).toMatch(/^unavailable: embedding model is down/)

    const noIndex = await runtime(new SwitchableEmbedder('runtime', 16), false)
    expect(noIndex.capabilities()).toMatchObject({
      searchModes: ['auto', 'fts'],
      embeddingProfile: null,
    })
    expect(await noIndex.readiness()).toEqual({
      status: 'degraded',
      checks: {
        runtime: 'ready',
        database: 'ready',
        storage: 'ready',
        'inference.embedding': 'ready',
        vector_index: 'unavailable: vector extension disabled',
      },
    })
  })

  it('the background reindex fills vectors once the model answers again', async () => {
    const model = new SwitchableEmbedder('runtime', 16)
    const rt = await runtime(model)
    model.failing = true
    await rt.remember({ scopeId: 's', entries: [{ kind: 'fact', text: 'kestrel hovering' }] })
    expect((await rt.search({ scopeId: 's', query: 'kestrel' })).mode).toBe('fts')
    const errors: unknown[] = []
    rt.startBackgroundReindex({ intervalMs: 10, maxIntervalMs: 40, onError: (e) => errors.push(e) })
    await new Promise((r) => setTimeout(r, 100))
    expect(errors.length).toBeGreaterThan(0)
    model.failing = false
    const deadline = Date.now() + 5_000
    while (rt.backend.vectorStatus().backlog && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10))
    }
    expect(rt.backend.vectorStatus().backlog).toBe(false)
    expect((await rt.search({ scopeId: 's', query: 'kestrel' })).mode).toBe('hybrid')
  })
})

describe('runtime on the embedded default with vector graphs', () => {
  it('passes its vector graph settings to the SQLite backend', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-runtime-ann-'))
    try {
      const model = new SwitchableEmbedder('runtime', 16)
      const rt = await MemoryRuntime.open({
        dataDir: dir,
        embedder: model,
        vectorAnn: { minVectors: 20 },
      })
      runtimes.push(rt)
      await rt.remember({
        scopeId: 's',
        entries: Array.from({ length: 30 }, (_, i) => ({ kind: 'fact', text: `wren ${i}` })),
      })
      await rt.search({ scopeId: 's', query: 'wren', mode: 'vector' })
      const backend = rt.backend as SqliteMemoryBackend
      expect((await backend.annStatus()).scopes['s']).toMatchObject({ state: 'ready', vectors: 30 })
      await rt.close()
      const off = await MemoryRuntime.open({ dataDir: dir, embedder: model, vectorAnn: false })
      runtimes.push(off)
      await off.search({ scopeId: 's', query: 'wren', mode: 'vector' })
      expect((await (off.backend as SqliteMemoryBackend).annStatus()).scopes).toEqual({})
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
