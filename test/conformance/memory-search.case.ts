/* Conformance: full-text search (docs/search.md: Analyzer v1, admission, pool, RRF, active only). */
import { expect } from 'vitest'

import type { Memory } from '../../src/core/memory-model.js'
import type { ConformanceSuite } from './harness.case.js'
import { expectCode, newScope, rememberOne, searchIds, unsafe } from './harness.case.js'

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const rrf = (rank: number) => 1 / (60 + rank)

export function searchArea(suite: ConformanceSuite): void {
  suite.area('search', (t) => {
    async function many(scopeId: string, texts: string[], kind = 'fact'): Promise<string[]> {
      const { results } = await t.backend.remember({
        scopeId,
        entries: texts.map((text) => ({ kind, text })),
      })
      return results.map((r) => r.memory.memoryRef.artifactId)
    }
    /**
     * One memory per word, so that the scope knows each word: the share rule counts only the
     * query words some memory has (an unknown word never vetoes a match; see "unknown words").
     */
    const known = (scopeId: string, words: string): Promise<string[]> =>
      many(scopeId, words.split(' '))

    t.group('analyzer', () => {
      t.test('Latin text: case folding, separators, underscores, diacritics kept', async () => {
        const scopeId = newScope()
        const [strasse, fooBar, snake, cafe] = await many(scopeId, [
          'Straße naming rules',
          'use foo-bar separators',
          'call the snake_case_name helper',
          'order a café au lait',
        ])
        const q = (query: string) => searchIds(t.backend, scopeId, query)
        expect(await q('STRASSE')).toEqual([strasse])
        expect(await q('straße')).toEqual([strasse])
        expect(await q('bar')).toEqual([fooBar])
        expect(await q('snake')).toEqual([])
        expect(await q('SNAKE_CASE_NAME')).toEqual([snake])
        expect(await q('cafe')).toEqual([])
        expect(await q('CAFÉ')).toEqual([cafe])
        expect(await q('cafe\u0301')).toEqual([cafe])
      })

      t.test('CJK text: unigrams and bigrams', async () => {
        const scopeId = newScope()
        const [chinese, weather] = await many(scopeId, ['我们使用中文分词', '英国天气很好'])
        const q = (query: string) => searchIds(t.backend, scopeId, query)
        expect(await q('中文')).toEqual([chinese])
        expect(await q('文分')).toEqual([chinese])
        expect(await q('天')).toEqual([weather])
        // 英文 → 3 terms (2 unigrams + 1 bigram); each memory shares only one of them.
        expect(await q('英文')).toEqual([])
        expect(await q('分词 weather')).toEqual([chinese])
      })

      t.test('a query without tokens returns no hits; a blank query is invalid', async () => {
        const scopeId = newScope()
        await many(scopeId, ['punctuation only queries'])
        expect(await t.backend.search({ scopeId, query: '!!! ... ???' })).toEqual({
          mode: 'fts',
          hits: [],
        })
        for (const query of ['', '   ', '\n\t']) {
          await expectCode(t.backend.search({ scopeId, query }), 'invalid_request')
        }
      })
    })

    t.group('ranking', () => {
      t.test('hits carry ref, kind, text, RRF score and matchedBy fts', async () => {
        const scopeId = newScope()
        const m = await rememberOne(t.backend, scopeId, { kind: 'decision', text: 'Use Vitest 4' })
        const res = await t.backend.search({ scopeId, query: 'vitest' })
        expect(res).toEqual({
          mode: 'fts',
          hits: [
            {
              memoryRef: m.memoryRef,
              kind: 'decision',
              text: 'Use Vitest 4',
              score: rrf(1),
              matchedBy: ['fts'],
            },
          ],
        })
      })

      t.test('scores are 1/61, 1/62, … in order; ties are broken by memory id', async () => {
        const scopeId = newScope()
        const ids: string[] = []
        for (const kind of ['fact', 'decision', 'preference', 'constraint']) {
          ids.push(
            (await rememberOne(t.backend, scopeId, { kind, text: 'identical tie text' })).memoryRef
              .artifactId,
          )
        }
        const { hits } = await t.backend.search({ scopeId, query: 'tie' })
        expect(hits.map((h) => h.memoryRef.artifactId)).toEqual([...ids].sort(byId))
        expect(hits.map((h) => h.score)).toEqual([1, 2, 3, 4].map(rrf))
      })

      t.test('a memory sharing more query terms ranks first', async () => {
        const scopeId = newScope()
        // Created in this order so that memory id order and relevance order disagree.
        const [one, both] = await many(scopeId, ['kiwi banana smoothie', 'kiwi mango smoothie'])
        expect(await searchIds(t.backend, scopeId, 'mango kiwi')).toEqual([both, one])
      })

      t.test(
        'a 594-word and a 1,600-word query run and find the memory they are about',
        async () => {
          // MariaDB once ran one MATCH per planned term and overran its thread stack
          // near 600 of them. The plan keeps the 32 most valuable terms on every backend.
          const scopeId = newScope()
          const subject = 'pgbouncer pooling staging replicas failover timeouts retries handshake'
          const [target] = await many(scopeId, [subject, 'unrelated lunch menu'])
          const filler = (n: number) =>
            Array.from({ length: n }, (_, i) => `x${i.toString(36).padStart(3, '0')}`).join(' ')
          // Repeated subject words outrank the fillers (more uses); once each, they still outrank
          // the 4-letter fillers by length.
          for (const query of [
            `${subject} ${filler(580)} ${subject}`,
            `${filler(800)} ${subject} ${filler(1600).slice(800 * 5)}`,
          ]) {
            expect(query.split(' ').length).toBeGreaterThanOrEqual(594)
            expect(await searchIds(t.backend, scopeId, query)).toEqual([target])
          }
        },
      )

      t.test('a short memory sharing only a common word ranks below the answer', async () => {
        // BM25 order, in a database of its own (statistics are the index's). SQLite's FTS5 order
        // (k1 1.2, b 0.75) puts the short one above the answer
        // (test/storage/sqlite-bm25.test.ts); BM25 with k1 0.9, b 0.4 does not.
        const backend = await t.open()
        const scopeId = newScope()
        const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima'
        const w = words.split(' ')
        const fill = (i: number, n: number) =>
          Array.from({ length: n }, (_, k) => w[(i * 7 + k) % w.length]).join(' ')
        const texts = [
          'Thanks, quokka!',
          `${fill(1, 24)} quokka sanctuary ${fill(2, 6)}`,
          `sanctuary ${fill(3, 3)}`,
          ...[4, 5, 6].map((i) => `quokka ${fill(i, 3)}`),
          ...Array.from({ length: 14 }, (_, i) => fill(10 + i, 4)),
        ]
        const { results } = await backend.remember({
          scopeId,
          entries: texts.map((text) => ({ kind: 'fact', text })),
        })
        const ids = results.map((r) => r.memory.memoryRef.artifactId)
        const hits = await searchIds(backend, scopeId, 'Where is the quokka sanctuary?')
        const rank = (i: number) => hits.indexOf(ids[i]!)
        expect(rank(1)).toBeGreaterThanOrEqual(0)
        expect(rank(1)).toBeLessThan(rank(0))
        for (const filler of [3, 4, 5]) expect(rank(1)).toBeLessThan(rank(filler))
        // Only the order moves: the hits are the memories sharing a query word.
        expect([...hits].sort(byId)).toEqual(ids.slice(0, 6).sort(byId))
      })
    })

    t.group('admission', () => {
      t.test('queries of up to 2 distinct terms need one shared term', async () => {
        const scopeId = newScope()
        const [x, y] = await many(scopeId, ['red green blue', 'red yellow'])
        expect((await searchIds(t.backend, scopeId, 'green purple')).sort(byId)).toEqual([x])
        const both = await searchIds(t.backend, scopeId, 'red red RED purple')
        expect(both.sort(byId)).toEqual([x!, y!].sort(byId))
      })

      t.test('queries of 3 to 8 distinct terms need two shared terms', async () => {
        const scopeId = newScope()
        const [x] = await many(scopeId, ['red green blue', 'red yellow', 'red red red'])
        await known(scopeId, 'purple orange pink brown one two three four five six seven')
        const q = (query: string) => searchIds(t.backend, scopeId, query)
        expect(await q('red green purple')).toEqual([x])
        expect(await q('red orange pink brown')).toEqual([])
        expect(await q('red green pink brown')).toEqual([x])
        expect(await q('red one two three four five six green')).toEqual([x])
        expect(await q('red one two three four five six seven')).toEqual([])
      })

      t.test('queries of 9 to 12 distinct terms need three shared terms', async () => {
        const scopeId = newScope()
        const [x] = await many(scopeId, ['red green blue'])
        await known(scopeId, 'a1 a2 a3 a4 a5 a6 b1 b2 b3 b4 b5 b6 b7')
        const q = (query: string) => searchIds(t.backend, scopeId, query)
        expect(await q('red green blue a1 a2 a3 a4 a5 a6')).toEqual([x])
        expect(await q('red green b1 b2 b3 b4 b5 b6 b7')).toEqual([])
      })
    })

    t.group('unknown words', () => {
      t.test('a query word no memory of the scope has does not veto a match', async () => {
        const scopeId = newScope()
        const [deploy, lunch] = await many(scopeId, [
          'The staging deploy uses the eu-west region.',
          'Lunch is at noon in the big room.',
        ])
        const q = (query: string) => searchIds(t.backend, scopeId, query)
        expect(await q('deploy')).toEqual([deploy])
        expect(await q('deploy zebra-marker-7731')).toEqual([deploy])
        expect(await q('staging deploy zebra-marker-7731')).toEqual([deploy])
        expect(await q('which region does staging use quux zebra-marker-7731')).toEqual([deploy])
        // Known words keep the share: 3 known terms need 2, one shared term is not enough.
        expect(await q('deploy lunch noon zebra-marker-7731')).toEqual([lunch])
        expect(await q('zebra-marker-7731')).toEqual([])
      })

      t.test('a word is known per scope and under the kinds filter', async () => {
        const scopeId = newScope()
        const [deploy] = await many(scopeId, ['The staging deploy uses the eu-west region.'])
        await many(scopeId, ['The zebra marker is blue.'], 'decision')
        // Another scope's words are unknown here.
        await many(newScope(), ['quux quux marker zebra'])
        const q = (query: string, kinds?: string[]) =>
          searchIds(t.backend, scopeId, query, kinds === undefined ? {} : { kinds })
        expect(await q('deploy quux', ['fact'])).toEqual([deploy])
        // Under kinds [fact], zebra and marker are unknown; without a filter they count.
        expect(await q('deploy zebra marker', ['fact'])).toEqual([deploy])
        expect(await q('deploy zebra marker')).not.toContain(deploy)
      })

      t.test('with a full candidate pool, an unseen word is looked up, not assumed', async () => {
        const scopeId = newScope()
        // 40 memories fill the pool of limit 8 (32 candidates): the words no candidate has are
        // looked up in the index (here: unknown, so left out of the share).
        const ids = await many(
          scopeId,
          Array.from({ length: 40 }, (_, i) => `deploy deploy deploy step ${i}`),
        )
        const q = (limit: number) => searchIds(t.backend, scopeId, 'deploy zebra marker', { limit })
        expect(await q(8)).toHaveLength(8)
        expect([...(await q(50))].sort(byId)).toEqual([...ids].sort(byId))
      })
    })

    t.group('query planning', () => {
      t.test(
        'generic stop words are dropped from the query unless nothing else is left',
        async () => {
          const scopeId = newScope()
          const [kiwi, box] = await many(scopeId, ['kiwi smoothie', 'what is in the box'])
          const q = (query: string) => searchIds(t.backend, scopeId, query)
          // `what is kiwi` plans to `kiwi` alone: one term, one shared term needed.
          expect(await q('What is kiwi?')).toEqual([kiwi])
          expect(await q('what is this')).toEqual([box])
        },
      )

      t.test('English inflections match through stem prefixes', async () => {
        const scopeId = newScope()
        const [painted, paint, hiking] = await many(scopeId, [
          'we painted the fence',
          'paint brushes',
          'a hiking trip',
          'pain relief',
        ])
        const q = async (query: string) => (await searchIds(t.backend, scopeId, query)).sort(byId)
        expect(await q('painting')).toEqual([painted!, paint!].sort(byId))
        expect(await q('hikes')).toEqual([hiking])
        expect(await q('trips hiked')).toEqual([hiking])
      })
    })

    t.group('limits and filters', () => {
      t.test('limit caps the hits; default 8; bounds 1..50', async () => {
        const scopeId = newScope()
        await many(
          scopeId,
          Array.from({ length: 10 }, (_, i) => `limited item ${i}`),
        )
        const three = await t.backend.search({ scopeId, query: 'limited', limit: 3 })
        expect(three.hits.map((h) => h.score)).toEqual([1, 2, 3].map(rrf))
        expect((await t.backend.search({ scopeId, query: 'limited' })).hits).toHaveLength(8)
        expect(
          (await t.backend.search({ scopeId, query: 'limited', limit: 50 })).hits,
        ).toHaveLength(10)
        for (const limit of [0, 51, 2.5]) {
          await expectCode(
            t.backend.search({ scopeId, query: 'limited', limit }),
            'invalid_request',
          )
        }
      })

      t.test('the candidate pool fills the limit when many memories match', async () => {
        const scopeId = newScope()
        await many(
          scopeId,
          Array.from({ length: 40 }, (_, i) => `pooled entry number ${i}`),
        )
        const eight = await t.backend.search({ scopeId, query: 'pooled', limit: 8 })
        expect(eight.hits).toHaveLength(8)
        expect(new Set(eight.hits.map((h) => h.memoryRef.artifactId)).size).toBe(8)
        expect((await t.backend.search({ scopeId, query: 'pooled', limit: 50 })).hits).toHaveLength(
          40,
        )
      })

      t.test('admission runs over the whole pool, below rejected candidates', async () => {
        const scopeId = newScope()
        // 20 short memories rank high for `yak`/`zebra` but share only one term with the query;
        // the long one shares two, ranks below them all, and is the only admitted hit.
        await many(
          scopeId,
          [
            ...Array.from({ length: 10 }, () => 'yak yak yak'),
            ...Array.from({ length: 10 }, () => 'zebra zebra zebra'),
          ].map((text, i) => `${text} ${i}`),
        )
        const filler = Array.from({ length: 60 }, (_, i) => `filler${i}`).join(' ')
        const [long] = await many(scopeId, [`${filler} yak ${filler} zebra ${filler}`])
        await known(scopeId, 'quokka')
        expect(await searchIds(t.backend, scopeId, 'yak zebra quokka', { limit: 1 })).toEqual([
          long,
        ])
      })

      t.test('kinds filters the hits', async () => {
        const scopeId = newScope()
        const [fact] = await many(scopeId, ['kinds filter probe'], 'fact')
        const [decision] = await many(scopeId, ['kinds filter probe'], 'decision')
        const q = (kinds: string[]) => searchIds(t.backend, scopeId, 'probe', { kinds })
        expect(await q(['decision'])).toEqual([decision])
        expect((await q(['decision', 'fact'])).sort(byId)).toEqual([fact!, decision!].sort(byId))
        expect(await q(['working_note'])).toEqual([])
      })
    })

    t.group('visibility', () => {
      t.test('only active memories are returned, at their current version', async () => {
        const scopeId = newScope()
        const gone = await rememberOne(t.backend, scopeId, {
          kind: 'fact',
          text: 'otter forgotten',
        })
        const moved = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'otter lemur' })
        await t.backend.forget({ scopeId, memoryId: gone.memoryRef.artifactId })
        await t.backend.update({ scopeId, memoryRef: moved.memoryRef, text: 'otter heron' })
        const otter = await t.backend.search({ scopeId, query: 'otter' })
        expect(otter.hits.map((h) => [h.memoryRef, h.text])).toEqual([
          [{ artifactId: moved.memoryRef.artifactId, revision: 2 }, 'otter heron'],
        ])
        expect(await searchIds(t.backend, scopeId, 'lemur')).toEqual([])
        expect(await searchIds(t.backend, scopeId, 'forgotten')).toEqual([])
        await t.backend.restore({ scopeId, memoryId: gone.memoryRef.artifactId })
        expect(await searchIds(t.backend, scopeId, 'forgotten')).toEqual([
          gone.memoryRef.artifactId,
        ])
      })

      t.test('scopes never see each other, and scope ids are case-sensitive', async () => {
        const suffix = newScope('x')
        const scopes = [`Proj-${suffix}`, `proj-${suffix}`, `PROJ-${suffix}`]
        const memories: Memory[] = []
        for (const scopeId of scopes) {
          memories.push(
            await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'shared words' }),
          )
        }
        for (const [i, scopeId] of scopes.entries()) {
          expect(await searchIds(t.backend, scopeId, 'shared')).toEqual([
            memories[i]!.memoryRef.artifactId,
          ])
        }
        expect(await searchIds(t.backend, newScope(), 'shared')).toEqual([])
      })
    })

    t.group('modes', () => {
      t.test('auto and the default use fts', async () => {
        const scopeId = newScope()
        await many(scopeId, ['mode probe'])
        for (const mode of ['auto', 'fts', undefined] as const) {
          const res = await t.backend.search({ scopeId, query: 'probe', ...(mode ? { mode } : {}) })
          expect(res.mode).toBe('fts')
          expect(res.hits).toHaveLength(1)
        }
      })

      t.test(
        'vector and hybrid fail with capability_not_supported without a vector index',
        async () => {
          expect(t.backend.capabilities.vector).toBe(false)
          const scopeId = newScope()
          await many(scopeId, ['vector probe'])
          for (const mode of ['vector', 'hybrid'] as const) {
            const err = await expectCode(
              t.backend.search({ scopeId, query: 'probe', mode }),
              'capability_not_supported',
            )
            expect(err.details?.['capability']).toBe(mode)
          }
        },
      )

      t.test('an unknown mode is invalid_request', async () => {
        const scopeId = newScope()
        for (const mode of ['semantic', 'FTS', 5, '']) {
          await expectCode(
            t.backend.search({ scopeId, query: 'probe', mode: unsafe(mode) }),
            'invalid_request',
          )
        }
      })
    })
  })
}
