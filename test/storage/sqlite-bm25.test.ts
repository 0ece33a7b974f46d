/* SQLite BM25 re-rank: index statistics from FTS5's own records, their invalidation
 * by any connection's writes, FTS5's native order it replaces, and an unchanged candidate set. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { analyzeTokens } from '../../src/core/analyzer.js'
import type { PlannedTerm } from '../../src/core/query-plan.js'
import { admits, planQuery, termMatches } from '../../src/core/query-plan.js'
import type { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { FTS_CANDIDATES_SQL, queryMatchExpression } from '../../src/storage/sqlite/sqlite-search.js'
import { SqliteStatements } from '../../src/storage/sqlite/sqlite-session.js'
import { readVarints, SqliteTextStatistics } from '../../src/storage/sqlite/sqlite-text-stats.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-sqlite-bm25-'))
const opened: SqliteMemoryBackend[] = []
let files = 0
afterAll(async () => {
  for (const b of opened) await b.close()
  rmSync(dir, { recursive: true, force: true })
})

async function open(database = join(dir, `db-${++files}.sqlite`)): Promise<SqliteMemoryBackend> {
  const backend = await openSqliteBackend({ database })
  opened.push(backend)
  return backend
}

async function rememberAll(b: SqliteMemoryBackend, scopeId: string, texts: string[]) {
  const ids: string[] = []
  for (let i = 0; i < texts.length; i += 100) {
    const { results } = await b.remember({
      scopeId,
      entries: texts.slice(i, i + 100).map((text) => ({ kind: 'fact', text })),
    })
    ids.push(...results.map((r) => r.memory.memoryRef.artifactId))
  }
  return ids
}

/** Deterministic texts over a small vocabulary with inflections (a Park–Miller generator). */
function texts(n: number, seed: number): string[] {
  const vocab = (
    'paint painted painting painter paint_x painted2 hike hiked hiking hikes trip ' +
    'trips garden gardens lake lakes sunrise sunset kiwi mango melanie caroline identity ' +
    'support group camping beach'
  ).split(' ')
  let s = seed
  const next = () => (s = (s * 48271) % 2147483647)
  return Array.from({ length: n }, () =>
    Array.from({ length: 1 + (next() % 14) }, () => vocab[next() % vocab.length]).join(' '),
  )
}

/** The truth, by brute force over every head's stored tokens. */
function truth(b: SqliteMemoryBackend, terms: readonly PlannedTerm[]) {
  const docs = (
    b.rawDatabase.prepare('SELECT searchable_text AS t FROM memory_heads').all() as { t: string }[]
  ).map((r) => r.t.split(' '))
  const matchingTokens = (term: PlannedTerm, d: string[]) => d.filter((x) => termMatches(term, x))
  return {
    documents: docs.length,
    averageLength: docs.reduce((sum, d) => sum + d.length, 0) / docs.length,
    // Per token, documents holding it, summed over the tokens the term matches.
    documentFrequencies: terms.map((term) => {
      const tokens = new Set(docs.flatMap((d) => matchingTokens(term, d)))
      return [...tokens].reduce((sum, tok) => sum + docs.filter((d) => d.includes(tok)).length, 0)
    }),
  }
}

const termsOf = (q: string) => planQuery(analyzeTokens(q)).terms

describe('sqlite bm25 statistics', () => {
  it('reads SQLite varints (1, 2, 3 and 9 bytes)', () => {
    expect(readVarints(Uint8Array.from([0x05, 0x81, 0x00, 0x82, 0x80, 0x01]), 3)).toEqual([
      5, 128, 32769,
    ])
    const nine = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0xff]
    expect(readVarints(Uint8Array.from(nine), 1)).toEqual([1 * 256 + 255]) // the 9th: all 8 bits
  })

  it('N, mean length and document frequencies equal a count over the stored tokens', async () => {
    const b = await open()
    await rememberAll(b, 'a', texts(300, 7))
    await rememberAll(b, 'b', texts(120, 11)) // statistics are the whole index's, like FTS5's
    const stats = new SqliteTextStatistics(new SqliteStatements(b.rawDatabase))
    const terms = termsOf('painting hikes lake kiwi melanie x_unknown')
    expect(terms.some((t) => t.prefix !== undefined)).toBe(true)
    const got = stats.read(terms)
    const want = truth(b, terms)
    expect(got.documents).toBe(want.documents)
    expect(got.averageLength).toBeCloseTo(want.averageLength, 9)
    expect(got.documentFrequencies).toEqual(want.documentFrequencies)
    expect(want.documentFrequencies.at(-1)).toBe(0)
  })

  it('is invalidated by this connection’s and another connection’s writes', async () => {
    const file = join(dir, `db-${++files}.sqlite`)
    const b = await open(file)
    const other = await open(file)
    await rememberAll(b, 'a', ['kiwi one', 'mango two'])
    const stats = new SqliteTextStatistics(new SqliteStatements(b.rawDatabase))
    const terms = termsOf('kiwi')
    expect(stats.read(terms)).toMatchObject({ documents: 2, documentFrequencies: [1] })
    await rememberAll(b, 'a', ['kiwi three four'])
    expect(stats.read(terms)).toMatchObject({ documents: 3, documentFrequencies: [2] })
    await rememberAll(other, 'z', ['kiwi kiwi', 'lake'])
    expect(stats.read(terms)).toEqual(truth(b, terms))
    expect(stats.read(terms)).toMatchObject({ documents: 5, documentFrequencies: [3] })
    const [gone] = (await other.search({ scopeId: 'z', query: 'lake' })).hits
    await other.forget({ scopeId: 'z', memoryId: gone!.memoryRef.artifactId })
    expect(stats.read(terms)).toMatchObject({ documents: 4, documentFrequencies: [3] })
  })
})

describe('sqlite bm25 re-rank', () => {
  it('replaces an FTS5 order that puts a short common-word memory above the answer', async () => {
    const b = await open()
    // The texts of the conformance case 'search > ranking > a short memory sharing only…'.
    const w = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima'.split(' ')
    const fill = (i: number, n: number) =>
      Array.from({ length: n }, (_, k) => w[(i * 7 + k) % w.length]).join(' ')
    const ids = await rememberAll(b, 's', [
      'Thanks, quokka!',
      `${fill(1, 24)} quokka sanctuary ${fill(2, 6)}`,
      `sanctuary ${fill(3, 3)}`,
      ...[4, 5, 6].map((i) => `quokka ${fill(i, 3)}`),
      ...Array.from({ length: 14 }, (_, i) => fill(10 + i, 4)),
    ])
    const q = 'Where is the quokka sanctuary?'
    const native = (
      b.rawDatabase.prepare(FTS_CANDIDATES_SQL).all(queryMatchExpression('s', q), 32) as {
        memoryId: string
      }[]
    ).map((r) => ids.indexOf(r.memoryId))
    expect(native).toEqual([2, 0, 1, 3, 4, 5]) // FTS5 (k1 1.2, b 0.75): "Thanks, quokka!" first
    const hits = (await b.search({ scopeId: 's', query: q })).hits
    expect(hits.map((h) => ids.indexOf(h.memoryRef.artifactId))).toEqual([2, 1, 0, 3, 4, 5])
  })

  it('keeps the admitted candidate set: only the order moves', async () => {
    const b = await open()
    const ids = await rememberAll(b, 's', texts(400, 3))
    const queries = [
      'When did Melanie go camping at the lake?',
      'What painting did Caroline make?',
      'hikes and trips',
      'kiwi mango sunrise',
      'identity support group',
      'beach sunset garden',
    ]
    let moved = 0
    for (const q of queries) {
      const plan = planQuery(analyzeTokens(q))
      const native = (
        b.rawDatabase.prepare(FTS_CANDIDATES_SQL).all(queryMatchExpression('s', q), 200) as {
          memoryId: string
          searchableText: string
        }[]
      ).filter((r) => admits(plan, r.searchableText.split(' ')))
      const hits = (await b.search({ scopeId: 's', query: q, limit: 50 })).hits.map(
        (h) => h.memoryRef.artifactId,
      )
      const expected = native.map((r) => r.memoryId)
      if (expected.length <= 50) expect([...hits].sort()).toEqual([...expected].sort())
      else expect(hits).toHaveLength(50)
      if (hits.join() !== expected.slice(0, 50).join()) moved++
      expect(hits.every((id) => ids.includes(id))).toBe(true)
    }
    expect(moved).toBeGreaterThan(0)
  })
})
