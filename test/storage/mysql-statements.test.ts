/*
 * Every SQL statement of the OceanBase dialect is covered: the OceanBase-only ones (VECTOR, HNSW,
 * APPROXIMATE, PARSER SPACE, ob_version) are checked well-formed by construction here and issued
 * through the OceanBase emulation on MariaDB (their OceanBase-only constructs rewritten, the rest
 * executed); the shared ones run on MariaDB in the conformance suite. None ran on a live
 * OceanBase here (docs/oceanbase.md).
 */
import { afterAll, describe, expect, it } from 'vitest'

import { planQuery } from '../../src/core/query-plan.js'
import { DeterministicEmbedder } from '../../src/runtime/embedder.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import { migrationStatements } from '../../src/storage/mysql/mysql-schema.js'
import { ftsProbeTableSql } from '../../src/storage/mysql/mysql-schema.js'
import type { VectorDialect } from '../../src/storage/mysql/mysql-search.js'
import {
  encodeFtsText,
  encodeFtsToken,
  FTS_TOKEN_MAX_CHARS,
  ftsBooleanQuery,
  fulltextIndexSql,
  HNSW_DEFAULTS,
  MYSQL_DIALECTS,
  searchTextSql,
  vectorLiteral,
} from '../../src/storage/mysql/mysql-search.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'
import {
  emulateOceanBase,
  installL2Distance,
  OCEANBASE_ONLY_STATEMENTS,
} from '../support/oceanbase-emulation.js'

const OB = MYSQL_DIALECTS.oceanbase
const OB_VECTOR = OB.vector as VectorDialect
const databases = new TestDatabases(MARIADB_TEST_URL)
afterAll(() => databases.dropAll())

/** Structural well-formedness: balanced parentheses and quotes, no stray semicolon. */
function wellFormed(sql: string): void {
  let depth = 0
  let quote: string | null = null
  for (const ch of sql) {
    if (quote !== null) {
      if (ch === quote) quote = null
      continue
    }
    if (ch === "'" || ch === '`') quote = ch
    else if (ch === '(') depth += 1
    else if (ch === ')') depth -= 1
    expect(depth, sql).toBeGreaterThanOrEqual(0)
  }
  expect(depth, sql).toBe(0)
  expect(quote, sql).toBeNull()
  expect(sql, sql).not.toMatch(/;\s*\S/)
}

const placeholders = (sql: string) => (sql.match(/\?/g) ?? []).length

describe('OceanBase-only statements, by construction', () => {
  it('the FULLTEXT index uses the SPACE parser; MariaDB the built-in one', () => {
    expect(fulltextIndexSql(OB)).toBe(
      'ALTER TABLE memory_fts ADD FULLTEXT INDEX memory_fts_fts (fts_text) WITH PARSER SPACE',
    )
    expect(fulltextIndexSql(MYSQL_DIALECTS.mariadb)).toBe(
      'ALTER TABLE memory_fts ADD FULLTEXT INDEX memory_fts_fts (fts_text)',
    )
    expect(ftsProbeTableSql(OB)).toContain(
      'FULLTEXT INDEX fts_probe_fts (fts_text) WITH PARSER SPACE',
    )
    wellFormed(ftsProbeTableSql(OB))
  })

  it('VECTOR(dim) column and HNSW L2 index with explicit parameters', () => {
    expect(OB_VECTOR.addColumnSql(1024)).toBe(
      'ALTER TABLE memory_heads ADD COLUMN embedding VECTOR(1024) NULL',
    )
    expect(OB_VECTOR.createIndexSql(HNSW_DEFAULTS)).toBe(
      'CREATE VECTOR INDEX memory_heads_embedding ON memory_heads (embedding) WITH (distance=L2, type=hnsw, lib=vsag, m=16, ef_construction=200, ef_search=64)',
    )
    expect(OB_VECTOR.columnType(384)).toBe('vector(384)')
    expect(() => OB_VECTOR.addColumnSql(0)).toThrow(RangeError)
    expect(() => OB_VECTOR.createIndexSql({ ...HNSW_DEFAULTS, m: 1.5 })).toThrow(RangeError)
  })

  it('the vector search is l2_distance … APPROXIMATE, scope (and kinds) filtered in SQL', () => {
    for (const withKinds of [false, true]) {
      const sql = OB_VECTOR.searchSql(withKinds)
      wellFormed(sql)
      expect(sql).toMatch(/ORDER BY l2_distance\(embedding, \?\) APPROXIMATE LIMIT \?$/)
      expect(sql).toContain('WHERE scope_id = ? AND embedding IS NOT NULL')
      expect(placeholders(sql)).toBe(withKinds ? 5 : 4)
    }
    expect(vectorLiteral([1, -0, 0.5, -1e-12])).toBe(
      '[1.000000000,0.000000000,0.500000000,0.000000000]',
    )
    expect(() => vectorLiteral([Number.NaN])).toThrow(RangeError)
  })

  it('migrations are well-formed for both dialects; OceanBase gets no ENGINE clause', () => {
    for (const dialect of [OB, MYSQL_DIALECTS.mariadb]) {
      for (const sql of migrationStatements(dialect)) wellFormed(sql)
    }
    expect(migrationStatements(OB).join('\n')).not.toContain('ENGINE=')
    const creates = migrationStatements(MYSQL_DIALECTS.mariadb).filter((s) =>
      s.startsWith('CREATE TABLE'),
    )
    expect(creates.every((s) => s.includes('ENGINE=InnoDB'))).toBe(true)
  })

  it('full-text search SQL binds each term, the query, scope, kinds and limit', () => {
    expect(placeholders(searchTextSql(false, 1))).toBe(5)
    expect(placeholders(searchTextSql(true, 3))).toBe(8)
    wellFormed(searchTextSql(true, 3))
    expect(searchTextSql(false, 2)).toContain('ORDER BY matched DESC, relevance DESC, f.memory_id')
    expect(searchTextSql(false, 2)).toContain(
      'ORDER BY c.matched DESC, c.relevance DESC, c.memory_id',
    )
  })
})

describe('full-text token encoding', () => {
  it('keeps every token indexable: short words, stop words, digits, CJK, accents', () => {
    expect(encodeFtsToken('a')).toBe('x_a')
    expect(encodeFtsToken('the')).toBe('x_the')
    expect(encodeFtsToken('5')).toBe('x_5')
    expect(encodeFtsToken('u_4e2d')).toBe('x_u_4e2d')
    expect(encodeFtsToken('café')).toBe('h_636166c3a9')
    expect(encodeFtsText('a b')).toBe('pc_head x_a x_b')
    expect(encodeFtsText('')).toBe('pc_head')
  })

  it('cuts long encodings at the token size limit, on both sides', () => {
    const long = 'x'.repeat(200)
    expect(encodeFtsToken(long)).toHaveLength(FTS_TOKEN_MAX_CHARS)
    expect(ftsBooleanQuery([{ token: long }])).toBe(encodeFtsToken(long))
  })

  it('a stem prefix stays a prefix of every word it extends', () => {
    for (const [word, stem] of [
      ['painting', 'paint'],
      ['studies', 'stud'],
      ['hikes', 'hik'],
    ] as const) {
      expect(encodeFtsToken(word).startsWith(encodeFtsToken(stem))).toBe(true)
    }
    const terms = planQuery(['painting', 'the', 'dog']).terms
    expect(ftsBooleanQuery(terms)).toBe('x_paint* x_dog')
  })

  it('never lets boolean operators through: any other character is hex-encoded', () => {
    const query = ftsBooleanQuery([{ token: '"x" -y +(z)*' }, { token: 'ok', prefix: 'o~k' }])
    expect(query).toMatch(/^[a-z0-9_]+ [a-z0-9_]+\*$/)
  })
})

describeWithMariadb('the OceanBase code path issues each OceanBase-only statement', () => {
  it('open, write, search, verify and rebuild through the emulation', async () => {
    const url = await databases.create('obstmt')
    await databases.admin((c) => installL2Distance(c, new URL(url).pathname.slice(1)))
    const embedder = new DeterministicEmbedder(8, 'stmt-test')
    const backend = await openMysqlBackend({
      url: `${url}?dialect=oceanbase&hnsw_m=24`,
      embedder,
      rewriteSql: emulateOceanBase,
    })
    try {
      expect(backend.name).toBe('oceanbase')
      expect(backend.storageStatus.server.productVersion).toBe('4.3.5.1')
      expect(backend.storageStatus).toMatchObject({ ftsProblem: null, vectorProblem: null })
      expect(backend.vectorStatus()).toMatchObject({ state: 'ready' })
      const scopeId = 'stmt:ob'
      await backend.remember({ scopeId, entries: [{ kind: 'fact', text: 'otters float' }] })
      for (const mode of ['fts', 'vector', 'hybrid'] as const) {
        const { hits } = await backend.search({ scopeId, query: 'otters', mode })
        expect(hits).toHaveLength(1)
      }
      const kinds = await backend.search({
        scopeId,
        query: 'otters',
        mode: 'vector',
        kinds: ['fact'],
      })
      expect(kinds.hits).toHaveLength(1)
      expect((await backend.verify()).problems).toEqual([])
      expect((await backend.rebuild()).vectors).toBe(1)
    } finally {
      await backend.close()
    }
    const issued = [...OCEANBASE_ONLY_STATEMENTS].join('\n---\n')
    for (const sql of [
      fulltextIndexSql(OB),
      OB_VECTOR.addColumnSql(8),
      OB_VECTOR.createIndexSql({ ...HNSW_DEFAULTS, m: 24 }),
      OB_VECTOR.searchSql(false),
      OB_VECTOR.searchSql(true),
      'SELECT ob_version() AS v',
    ]) {
      expect(OCEANBASE_ONLY_STATEMENTS.has(sql), sql).toBe(true)
    }
    expect(issued).toContain('VECTOR INDEX vector_probe_v (v) WITH (distance=L2, type=hnsw')
    expect(issued).toContain("ORDER BY l2_distance(v, '[0.9,0.1]') APPROXIMATE LIMIT 1")
    expect(issued).toContain('FULLTEXT INDEX fts_probe_fts (fts_text) WITH PARSER SPACE')
  })
})
