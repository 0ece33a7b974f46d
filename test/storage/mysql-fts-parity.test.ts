/*
 * InnoDB FULLTEXT drops short tokens (innodb_ft_min_token_size = 3) and stop words, and splits
 * non-ASCII text its own way; the adapter encodes every Analyzer v1 token so that none is lost.
 * Here the same data and queries run on SQLite (FTS5) and on MariaDB: the admitted hits are the
 * same sets (ranking may differ: BM25 there, TF-IDF here).
 */
import { afterAll, expect, it } from 'vitest'

import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'

const databases = new TestDatabases(MARIADB_TEST_URL)
const closing: MemoryBackend[] = []
afterAll(async () => {
  for (const b of closing) await (b as MemoryBackend & { close(): Promise<void> }).close()
  await databases.dropAll()
})

const LONG = `x${'y'.repeat(120)}`
const CORPUS = [
  'a b c',
  'I am here',
  'to be or not to be',
  'the end of the story',
  'www and com are stop words elsewhere',
  'café au lait',
  'cafe without accent',
  'naïve approach',
  'Straße in Köln',
  'Москва зимой',
  '中文检索',
  '我们在中文环境里工作',
  'painting the walls',
  'painted fences',
  'paint thinner',
  'snake_case_identifier in code',
  'version v1.5 released in 2024',
  'go 1 2 3',
  LONG,
  `${LONG} suffix`,
  'Uses pnpm for installs',
  'Ships on Fridays',
  'a the of to in',
  'x y z',
]
const QUERIES = [
  'a',
  'b',
  'I',
  'be',
  'to be',
  'the',
  'end story',
  'www',
  'com',
  'café',
  'cafe',
  'naïve',
  'naive',
  'straße',
  'strasse',
  'köln',
  'москва',
  '中文',
  '中',
  '工作',
  'painting',
  'paints',
  'snake_case_identifier',
  'snake',
  'v1',
  '5',
  '2024',
  '1',
  LONG,
  `${LONG.slice(0, 90)}`,
  'pnpm installs',
  'ship friday',
  'x',
  'a the of',
  'zebra',
]

async function load(backend: MemoryBackend, scopeId: string): Promise<void> {
  await backend.remember({ scopeId, entries: CORPUS.map((text) => ({ kind: 'fact', text })) })
}

async function hits(backend: MemoryBackend, scopeId: string, query: string): Promise<string[]> {
  const res = await backend.search({ scopeId, query, mode: 'fts', limit: 50 })
  return res.hits.map((h) => h.text).sort()
}

describeWithMariadb('full-text parity: MariaDB admits what SQLite admits', () => {
  it('for short words, stop words, digits, CJK, accents, prefixes and long tokens', async () => {
    const sqlite = await openSqliteBackend({ database: ':memory:' })
    const maria = await openMysqlBackend({ url: await databases.create('parity') })
    closing.push(sqlite, maria)
    await load(sqlite, 'parity')
    await load(maria, 'parity')
    // Another scope with the same texts must not leak into the results.
    await load(maria, 'parity-other')
    let nonEmpty = 0
    for (const query of QUERIES) {
      const expected = await hits(sqlite, 'parity', query)
      expect(await hits(maria, 'parity', query), query).toEqual(expected)
      if (expected.length > 0) nonEmpty += 1
    }
    expect(nonEmpty).toBeGreaterThan(25)
  })
})
