/* Conformance: vector, hybrid and auto search; profiles, outages, completeness and reindex (docs/storage.md). */
import { expect } from 'vitest'

import type { Embedder, EmbeddingProfile } from '../../src/core/embedding.js'
import { PowerContextError } from '../../src/core/errors.js'
import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import type { SearchMode } from '../../src/storage/spi/memory-backend.js'
import type { Area, BackendUnderTest, ConformanceSuite } from './harness.case.js'
import { expectCode, newScope, rememberOne } from './harness.case.js'
import { ALTER_HASH_TESTS, vectorCompletenessTests } from './memory-vector-completeness.case.js'

export { ALTER_HASH_TESTS } from './memory-vector-completeness.case.js'

const rrf = (rank: number) => 1 / (60 + rank)
const DIMENSION = 384

/** A deterministic embedder that can be switched off (outages) and counts its calls. */
export class SwitchableEmbedder implements Embedder {
  readonly #inner: DeterministicEmbedder
  failing = false
  calls = 0

  constructor(profileId = 'conformance', dimension = DIMENSION) {
    this.#inner = new DeterministicEmbedder(dimension, profileId)
  }

  get profile(): EmbeddingProfile {
    return this.#inner.profile
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    this.calls += 1
    if (this.failing)
      throw new PowerContextError('inference_unavailable', 'embedding model is down')
    return this.#inner.embed(texts)
  }
}

/** Tests that reopen a database (a `:memory:` backend skips them). */
export const REOPEN_TESTS = [
  'vector > profile > the first configured profile is fixed; another one gets no vector capability',
]

/**
 * Every test of the vector area, for an adapter without a vector projection yet (skip them with a
 * reason; the suite fails when a listed test no longer exists).
 */
export const VECTOR_TESTS = [
  'vector > modes > capabilities report vector search and the fixed profile',
  'vector > modes > vector: nearest memories above the cosine floor, matchedBy vector',
  'vector > modes > hybrid fuses both channels with RRF; matchedBy lists admitting channels',
  'vector > modes > auto is hybrid when the projection is complete',
  'vector > modes > equal distances are ordered by memory id; scores follow ranks',
  'vector > modes > kinds filter the vector channel',
  'vector > visibility > no mode returns forgotten, merged or retired memories',
  'vector > visibility > an update replaces the vector; restore brings it back',
  'vector > outage > writes commit without vectors; auto uses fts; reindex completes the scope',
  'vector > outage > a failing query embedding: auto uses fts, explicit modes report it',
  'vector > outage > rebuild re-embeds every vector with a model',
  ...REOPEN_TESTS,
  ...ALTER_HASH_TESTS,
]

const FILLER = Array.from({ length: 200 }, (_, i) => `filler${i}`).join(' ')

export function vectorArea(suite: ConformanceSuite): void {
  const embedder = new SwitchableEmbedder()
  suite.area(
    'vector',
    (t) => {
      async function ids(scopeId: string, texts: string[], kind = 'fact'): Promise<string[]> {
        const { results } = await t.backend.remember({
          scopeId,
          entries: texts.map((text) => ({ kind, text })),
        })
        return results.map((r) => r.memory.memoryRef.artifactId)
      }
      const search = (
        backend: BackendUnderTest,
        scopeId: string,
        query: string,
        mode: SearchMode,
      ) => backend.search({ scopeId, query, mode })
      const hitIds = async (scopeId: string, query: string, mode: SearchMode) =>
        (await search(t.backend, scopeId, query, mode)).hits.map((h) => h.memoryRef.artifactId)

      t.group('modes', () => {
        t.test('capabilities report vector search and the fixed profile', async () => {
          expect(t.backend.capabilities).toMatchObject({
            fts: true,
            vector: true,
            embeddingProfile: embedder.profile,
          })
          expect(t.backend.vectorStatus()).toMatchObject({ state: 'ready', reason: null })
        })

        t.test('vector: nearest memories above the cosine floor, matchedBy vector', async () => {
          const scopeId = newScope()
          const [close, unrelated] = await ids(scopeId, ['otter river swimming', 'tax forms due'])
          const res = await search(t.backend, scopeId, 'otter swimming', 'vector')
          expect(res.mode).toBe('vector')
          expect(res.hits).toEqual([
            {
              memoryRef: { artifactId: close, revision: 1 },
              kind: 'fact',
              text: 'otter river swimming',
              score: rrf(1),
              matchedBy: ['vector'],
            },
          ])
          expect(await hitIds(scopeId, 'tax forms', 'vector')).toEqual([unrelated])
          expect(await hitIds(scopeId, 'zebra quokka', 'vector')).toEqual([])
        })

        t.test(
          'hybrid fuses both channels with RRF; matchedBy lists admitting channels',
          async () => {
            const scopeId = newScope()
            // 4 query terms: FTS needs 2 shared; cosine ≈ shared / √(4 · terms of the memory).
            // ftsOnly shares as many terms as `both` in 100× the length: second in BM25 order.
            const [both, vectorOnly, ftsOnly] = await ids(scopeId, [
              'alpha beta',
              'gamma',
              `alpha delta ${FILLER}`,
            ])
            const res = await search(t.backend, scopeId, 'alpha beta gamma delta', 'hybrid')
            expect(res.mode).toBe('hybrid')
            const by = new Map(res.hits.map((h) => [h.memoryRef.artifactId, h]))
            expect(res.hits).toHaveLength(3)
            expect(res.hits[0]!.memoryRef.artifactId).toBe(both)
            expect(by.get(both!)!.matchedBy).toEqual(['fts', 'vector'])
            expect(by.get(vectorOnly!)!.matchedBy).toEqual(['vector'])
            expect(by.get(ftsOnly!)!.matchedBy).toEqual(['fts'])
            expect(by.get(both!)!.score).toBeCloseTo(rrf(1) + rrf(1), 12)
            expect(by.get(vectorOnly!)!.score).toBeCloseTo(rrf(2), 12)
            expect(new Set([1, 2].map(rrf))).toContain(by.get(ftsOnly!)!.score)
          },
        )

        t.test('auto is hybrid when the projection is complete', async () => {
          const scopeId = newScope()
          const [m] = await ids(scopeId, ['auto mode probe'])
          const res = await search(t.backend, scopeId, 'probe', 'auto')
          expect(res.mode).toBe('hybrid')
          expect(res.hits.map((h) => [h.memoryRef.artifactId, h.matchedBy])).toEqual([
            [m, ['fts', 'vector']],
          ])
          expect((await t.backend.search({ scopeId, query: 'probe' })).mode).toBe('hybrid')
          expect((await search(t.backend, scopeId, 'probe', 'fts')).mode).toBe('fts')
        })

        t.test('equal distances are ordered by memory id; scores follow ranks', async () => {
          const scopeId = newScope()
          const made: string[] = []
          for (const kind of ['fact', 'decision', 'preference']) {
            made.push(
              (await rememberOne(t.backend, scopeId, { kind, text: 'identical vector text' }))
                .memoryRef.artifactId,
            )
          }
          const res = await search(t.backend, scopeId, 'identical vector text', 'vector')
          expect(res.hits.map((h) => h.memoryRef.artifactId)).toEqual([...made].sort())
          expect(res.hits.map((h) => h.score)).toEqual([1, 2, 3].map(rrf))
        })

        t.test('kinds filter the vector channel', async () => {
          const scopeId = newScope()
          const [fact] = await ids(scopeId, ['kind filter vector probe'], 'fact')
          const [decision] = await ids(scopeId, ['kind filter vector probe'], 'decision')
          const q = async (kinds: string[]) =>
            (
              await t.backend.search({ scopeId, query: 'vector probe', mode: 'vector', kinds })
            ).hits.map((h) => h.memoryRef.artifactId)
          expect(await q(['decision'])).toEqual([decision])
          expect(await q(['fact'])).toEqual([fact])
          expect(await q(['constraint'])).toEqual([])
        })
      })

      t.group('visibility', () => {
        t.test('no mode returns forgotten, merged or retired memories', async () => {
          const scopeId = newScope()
          const [keep, gone, a, b, x, y] = await ids(scopeId, [
            'heron keeps nest',
            'heron forgotten nest',
            'heron merged nest one',
            'heron merged nest two',
            'heron retired nest x',
            'heron retired nest y',
          ])
          await t.backend.forget({ scopeId, memoryId: gone! })
          const ab = await t.backend.merge({
            scopeId,
            inputs: [a!, b!].map((artifactId) => ({ artifactId, revision: 1 })),
            kind: 'fact',
            text: 'heron merged nest both',
          })
          const xy = await t.backend.merge({
            scopeId,
            inputs: [x!, y!].map((artifactId) => ({ artifactId, revision: 1 })),
            kind: 'fact',
            text: 'heron retired nest both',
          })
          await t.backend.restore({ scopeId, memoryId: x! }) // retires xy, brings x and y back
          const visible = [keep, ab.memory.memoryRef.artifactId, x, y].sort()
          for (const mode of ['fts', 'vector', 'hybrid', 'auto'] as const) {
            const found = await hitIds(scopeId, 'heron nest', mode)
            expect(found.sort(), mode).toEqual(visible)
            expect(found).not.toContain(xy.memory.memoryRef.artifactId)
          }
        })

        t.test('an update replaces the vector; restore brings it back', async () => {
          const scopeId = newScope()
          const m = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'walrus tusk' })
          await t.backend.update({ scopeId, memoryRef: m.memoryRef, text: 'pelican beak' })
          expect(await hitIds(scopeId, 'walrus tusk', 'vector')).toEqual([])
          const now = await search(t.backend, scopeId, 'pelican beak', 'vector')
          expect(now.hits.map((h) => h.memoryRef)).toEqual([
            { artifactId: m.memoryRef.artifactId, revision: 2 },
          ])
          await t.backend.forget({ scopeId, memoryId: m.memoryRef.artifactId })
          expect(await hitIds(scopeId, 'pelican beak', 'vector')).toEqual([])
          await t.backend.restore({ scopeId, memoryId: m.memoryRef.artifactId, toRevision: 1 })
          const back = await search(t.backend, scopeId, 'walrus tusk', 'hybrid')
          expect(back.hits.map((h) => [h.memoryRef.revision, h.matchedBy])).toEqual([
            [3, ['fts', 'vector']],
          ])
        })
      })

      vectorOutageTests(t)
      vectorCompletenessTests(t)
    },
    { embedder },
  )
}

function vectorOutageTests(t: Area): void {
  const modes = async (backend: BackendUnderTest, scopeId: string, query: string) => {
    const auto = await backend.search({ scopeId, query, mode: 'auto' })
    return { mode: auto.mode, ids: auto.hits.map((h) => h.memoryRef.artifactId) }
  }

  t.group('outage', () => {
    t.test(
      'writes commit without vectors; auto uses fts; reindex completes the scope',
      async () => {
        const model = new SwitchableEmbedder()
        const backend = await t.open({ embedder: model })
        const scopeId = newScope()
        const first = await rememberOne(backend, scopeId, { kind: 'fact', text: 'lynx tracks' })
        expect((await modes(backend, scopeId, 'lynx')).mode).toBe('hybrid')
        model.failing = true
        const second = await rememberOne(backend, scopeId, { kind: 'fact', text: 'lynx fur' })
        expect(backend.vectorStatus().backlog).toBe(true)
        expect(await modes(backend, scopeId, 'lynx')).toEqual({
          mode: 'fts',
          ids: [first.memoryRef.artifactId, second.memoryRef.artifactId].sort(),
        })
        for (const mode of ['vector', 'hybrid'] as const) {
          const err = await expectCode(
            backend.search({ scopeId, query: 'lynx', mode }),
            'capability_not_supported',
          )
          expect(err.details?.['capability']).toBe(mode)
        }
        const during = await backend.verify()
        expect(during.problems).toEqual([])
        expect(during.counts.missingVectors).toBe(1)
        const failed = await backend.reindex()
        expect(failed.error?.code).toBe('inference_unavailable')
        expect(failed.remaining).toBe(1)
        model.failing = false
        const report = await backend.reindex()
        expect(report).toMatchObject({ embedded: 1, remaining: 0, error: null })
        expect(backend.vectorStatus().backlog).toBe(false)
        expect((await modes(backend, scopeId, 'lynx')).mode).toBe('hybrid')
        const fur = await backend.search({ scopeId, query: 'fur', mode: 'vector' })
        expect(fur.hits.map((h) => h.memoryRef.artifactId)).toEqual([second.memoryRef.artifactId])
        expect((await backend.verify()).counts).toMatchObject({ vectors: 2, missingVectors: 0 })
      },
    )

    t.test('a failing query embedding: auto uses fts, explicit modes report it', async () => {
      const model = new SwitchableEmbedder()
      const backend = await t.open({ embedder: model })
      const scopeId = newScope()
      const m = await rememberOne(backend, scopeId, { kind: 'fact', text: 'ibis wading' })
      model.failing = true
      expect(await modes(backend, scopeId, 'ibis')).toEqual({
        mode: 'fts',
        ids: [m.memoryRef.artifactId],
      })
      await expectCode(
        backend.search({ scopeId, query: 'ibis', mode: 'vector' }),
        'inference_unavailable',
      )
      await expectCode(
        backend.search({ scopeId, query: 'ibis', mode: 'hybrid' }),
        'inference_unavailable',
      )
    })

    t.test('rebuild re-embeds every vector with a model', async () => {
      const scopeId = newScope()
      const model = new SwitchableEmbedder()
      const backend = await t.open({ embedder: model })
      await rememberOne(backend, scopeId, { kind: 'fact', text: 'rebuild vector probe' })
      const rebuilt = await backend.rebuild()
      expect(rebuilt.vectors).toBe(rebuilt.heads)
      expect((await modes(backend, scopeId, 'probe')).mode).toBe('hybrid')
      expect((await backend.verify()).counts.missingVectors).toBe(0)
    })
  })

  t.group('profile', () => {
    t.test(
      'the first configured profile is fixed; another one gets no vector capability',
      async () => {
        const key = newScope('profile').replace(/\W/g, '')
        const scopeId = newScope()
        const plain = await t.open({ reuse: key })
        expect(plain.capabilities).toMatchObject({ vector: false, embeddingProfile: null })
        expect(plain.vectorStatus()).toMatchObject({ state: 'not_configured', storedProfile: null })
        await rememberOne(plain, scopeId, { kind: 'fact', text: 'puffin colony' })
        await plain.close()

        const a = new SwitchableEmbedder('profile-a')
        const first = await t.open({ reuse: key, embedder: a })
        expect(first.capabilities.embeddingProfile).toEqual(a.profile)
        expect(first.vectorStatus().storedProfile).toEqual(a.profile)
        expect((await first.reindex()).embedded).toBe(1)
        expect((await modes(first, scopeId, 'puffin')).mode).toBe('hybrid')
        await first.close()

        const b = new SwitchableEmbedder('profile-b')
        const other = await t.open({ reuse: key, embedder: b })
        expect(other.capabilities).toMatchObject({ vector: false, embeddingProfile: null })
        const status = other.vectorStatus()
        expect(status.state).toBe('misconfigured')
        expect(status.reason).toMatch(/profile profile-b .* does not match .* profile-a/)
        expect(status.storedProfile).toEqual(a.profile)
        for (const mode of ['vector', 'hybrid'] as const) {
          const err = await expectCode(
            other.search({ scopeId, query: 'puffin', mode }),
            'capability_not_supported',
          )
          expect(err.details?.['capability']).toBe('embedding-profile')
        }
        expect((await modes(other, scopeId, 'puffin')).mode).toBe('fts')
        await expectCode(other.reindex(), 'capability_not_supported')
        // Writes still work; their heads get no vector under the wrong profile.
        await rememberOne(other, scopeId, { kind: 'fact', text: 'puffin burrow' })
        expect(b.calls).toBe(0)
        await other.close()

        const again = await t.open({ reuse: key, embedder: new SwitchableEmbedder('profile-a') })
        expect((await modes(again, scopeId, 'puffin')).mode).toBe('fts')
        expect((await again.reindex()).embedded).toBe(1)
        expect((await modes(again, scopeId, 'puffin')).mode).toBe('hybrid')
        expect((await again.verify()).problems).toEqual([])
        await again.close()

        // Rebuild without a model leaves every vector missing; reindex fills them later.
        const bare = await t.open({ reuse: key })
        expect((await bare.rebuild()).vectors).toBeUndefined()
        await bare.close()
        const last = await t.open({ reuse: key, embedder: new SwitchableEmbedder('profile-a') })
        expect((await last.verify()).counts).toMatchObject({ vectors: 0, missingVectors: 2 })
        expect((await modes(last, scopeId, 'puffin')).mode).toBe('fts')
        expect((await last.reindex()).embedded).toBe(2)
        expect((await modes(last, scopeId, 'puffin')).mode).toBe('hybrid')
      },
    )
  })
}
