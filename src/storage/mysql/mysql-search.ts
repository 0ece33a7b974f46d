/*
 * The search dialect of the MySQL-protocol adapter (adapters supply SQL, transactions
 * and their search dialect): the FULLTEXT token encoding, the boolean-mode query, and the record
 * of what differs between OceanBase and MariaDB, keyed by dialect (no `if` chains).
 */
import type { PlannedTerm } from '../../core/query-plan.js'

/** The two MySQL-protocol dialects this adapter speaks. */
export const MYSQL_DIALECT_NAMES = ['oceanbase', 'mariadb'] as const
export type MysqlDialectName = (typeof MYSQL_DIALECT_NAMES)[number]

/** HNSW build parameters of the OceanBase vector index (fixed when the index is created). */
export interface HnswParameters {
  /** Neighbours per node; OceanBase's default 16. */
  readonly m: number
  /** Candidate list while building; OceanBase's default 200. */
  readonly efConstruction: number
  /** Candidate list while searching; OceanBase's default 64. */
  readonly efSearch: number
}

/** Defaults of {@link HnswParameters} (OceanBase's own defaults). */
export const HNSW_DEFAULTS: HnswParameters = Object.freeze({
  m: 16,
  efConstruction: 200,
  efSearch: 64,
})

/** The vector part of a dialect: a `VECTOR(dim)` column and an HNSW L2 index on the heads table. */
export interface VectorDialect {
  /** `ALTER TABLE` adding the embedding column of a fixed dimension. */
  readonly addColumnSql: (dimension: number) => string
  /** `CREATE VECTOR INDEX` over the embedding column (L2 distance, HNSW). */
  readonly createIndexSql: (p: HnswParameters) => string
  /** The expected `information_schema.columns.column_type` of the column for a dimension. */
  readonly columnType: (dimension: number) => string
  /** Nearest heads of a scope: params `[vector, scope, (kinds), vector, limit]`. */
  readonly searchSql: (withKinds: boolean) => string
}

/** What differs between the MySQL-protocol products (one record keyed by dialect). */
export interface MysqlDialect {
  readonly name: MysqlDialectName
  /** Product name as users know it. */
  readonly product: string
  /** Clause after the FULLTEXT column list (OceanBase: the SPACE parser; InnoDB: none). */
  readonly fulltextParser: string
  /** Statements run once on every new pooled connection (besides its isolation level). */
  readonly sessionSetup: readonly string[]
  /** Begins a read transaction over one consistent snapshot. */
  readonly beginRead: string
  /** Server error numbers after which the whole transaction is retried. */
  readonly retryableErrnos: ReadonlySet<number>
  /** The vector dialect, or why this product has none. */
  readonly vector: VectorDialect | { readonly unavailable: string }
}

/** The heads table's vector index name. */
export const VECTOR_INDEX = 'memory_heads_embedding'
/**
 * The FULLTEXT index name. It lives on `memory_fts`, not on the heads table (schema 3): InnoDB
 * recomputes its next FULLTEXT document id after a crash as the largest id still in the table + 1,
 * so ids of rows deleted before the crash are handed out again and the index's deleted-id list hides
 * the new rows from `MATCH` (verified: an emptied table's next row after `kill -9` gets id 1 and is
 * never found). `memory_fts` rows are never deleted — a removed head's row is emptied in place — so
 * the largest id always belongs to a row still there and no id can come back.
 */
export const FULLTEXT_INDEX = 'memory_fts_fts'
/** The heads table's FULLTEXT index before schema 3 (dropped at open when present). */
export const LEGACY_FULLTEXT_INDEX = 'memory_heads_fts'
/** The table of the FULLTEXT index. */
export const FULLTEXT_TABLE = 'memory_fts'

const OCEANBASE_VECTOR: VectorDialect = {
  addColumnSql: (dimension) =>
    `ALTER TABLE memory_heads ADD COLUMN embedding VECTOR(${checkedInt(dimension, 1, 16_000)}) NULL`,
  createIndexSql: (p) =>
    `CREATE VECTOR INDEX ${VECTOR_INDEX} ON memory_heads (embedding) WITH (distance=L2, type=hnsw, lib=vsag, m=${checkedInt(p.m, 2, 128)}, ef_construction=${checkedInt(p.efConstruction, 1, 1000)}, ef_search=${checkedInt(p.efSearch, 1, 1000)})`,
  columnType: (dimension) => `vector(${dimension})`,
  searchSql: (withKinds) =>
    `SELECT memory_id AS memoryId, vector_version AS version,
       vector_content_hash AS contentHash, embedding_hash AS embeddingHash,
       l2_distance(embedding, ?) AS distance
     FROM memory_heads
     WHERE scope_id = ? AND embedding IS NOT NULL${withKinds ? ' AND kind IN (?)' : ''}
     ORDER BY l2_distance(embedding, ?) APPROXIMATE LIMIT ?`,
}

/** Deadlock, lock wait timeout, "record changed since last read" (MariaDB snapshot isolation). */
const INNODB_RETRYABLE = [1213, 1205, 1020]

/**
 * The dialects. OceanBase ≥ 4.3.5 (MySQL mode): FULLTEXT with the SPACE parser (Analyzer v1 has
 * already put the token boundaries), `VECTOR(dim)` + HNSW L2. MariaDB (and MySQL as InnoDB): the
 * built-in FULLTEXT parser, no vector type (10.x), so FTS only.
 */
export const MYSQL_DIALECTS: Readonly<Record<MysqlDialectName, MysqlDialect>> = Object.freeze({
  oceanbase: {
    name: 'oceanbase',
    product: 'OceanBase',
    fulltextParser: ' WITH PARSER SPACE',
    sessionSetup: [],
    beginRead: 'START TRANSACTION READ ONLY',
    // OceanBase's serialization failure (6235) and lock conflicts (6005), besides the InnoDB ones.
    retryableErrnos: new Set([...INNODB_RETRYABLE, 6235, 6005]),
    vector: OCEANBASE_VECTOR,
  },
  mariadb: {
    name: 'mariadb',
    product: 'MariaDB',
    fulltextParser: '',
    sessionSetup: ['SET SESSION innodb_lock_wait_timeout = 20'],
    beginRead: 'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY',
    retryableErrnos: new Set(INNODB_RETRYABLE),
    vector: { unavailable: 'MariaDB has no VECTOR type' },
  },
})

function checkedInt(value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${value} is not an integer in ${min}–${max}`)
  }
  return value
}

/**
 * Longest encoded token, in characters: InnoDB ignores longer tokens (`innodb_ft_max_token_size`,
 * default 84), so longer encodings are cut to this length, on both sides. A cut token can only
 * match more rows (they share the first 84 characters); the base class re-checks every candidate
 * against the real Analyzer v1 tokens, so it never admits more hits.
 */
export const FTS_TOKEN_MAX_CHARS = 84

const ASCII_TOKEN = /^[a-z0-9_]+$/
const ENCODED = /^[a-z0-9_]+$/

/**
 * The FULLTEXT form of one Analyzer v1 token. InnoDB drops tokens shorter than
 * `innodb_ft_min_token_size` (3) and stop words (`the`, `a`, `www`, …), and parsers differ on
 * non-ASCII letters; so every token is stored and queried as plain `[a-z0-9_]` with a prefix no
 * stop word contains: ASCII tokens as `x_` + token (`a` → `x_a`, `the` → `x_the`), other tokens as
 * `h_` + the lower-case hex of their UTF-8 bytes (`café` → `h_636166c3a9`). `x_` + a stem prefix
 * is still a prefix of `x_` + every token it extends, so stem prefix queries keep working.
 * Encodings are cut at {@link FTS_TOKEN_MAX_CHARS}.
 */
export function encodeFtsToken(token: string): string {
  const encoded = ASCII_TOKEN.test(token)
    ? `x_${token}`
    : `h_${Buffer.from(token, 'utf8').toString('hex')}`
  return encoded.slice(0, FTS_TOKEN_MAX_CHARS)
}

/**
 * A token every head's FULLTEXT text starts with (no encoded token can equal it: those start with
 * `x_` or `h_`). Its IDF is zero, so it never changes relevance; `verify` counts the rows the index
 * finds for it to prove the index covers every head.
 */
export const FTS_EVERY_HEAD_TOKEN = 'pc_head'

/** The FULLTEXT column value of a head: the marker token, then every Analyzer v1 token encoded. */
export function encodeFtsText(searchableText: string): string {
  const tokens = searchableText.split(' ').filter((t) => t !== '')
  return [FTS_EVERY_HEAD_TOKEN, ...tokens.map(encodeFtsToken)].join(' ')
}

/**
 * The `MATCH … AGAINST (… IN BOOLEAN MODE)` string of planned terms: every term encoded and OR-ed
 * (no operator, so any one term makes a candidate), a stem prefix as `x_<stem>*`. Terms come from
 * Analyzer v1 only and encode to `[a-z0-9_]`, so no boolean operator can come from user input.
 */
export function ftsBooleanQuery(terms: readonly PlannedTerm[]): string {
  return terms
    .map((term) => {
      const encoded =
        term.prefix === undefined ? encodeFtsToken(term.token) : `${encodeFtsToken(term.prefix)}*`
      if (!ENCODED.test(encoded.replace(/\*$/, ''))) {
        throw new Error(`unsafe full-text term ${JSON.stringify(encoded)}`)
      }
      return encoded
    })
    .join(' ')
}

/** `ALTER TABLE` adding the FULLTEXT index over the encoded column (`memory_fts` unless told), in the dialect's parser. */
export function fulltextIndexSql(dialect: MysqlDialect, table = FULLTEXT_TABLE): string {
  const name = `${table}_fts`
  return `ALTER TABLE ${table} ADD FULLTEXT INDEX ${name} (fts_text)${dialect.fulltextParser}`
}

/**
 * Full-text candidates of one scope, for `terms` planned terms: params
 * `[term₁ … termₙ, query, query, scope, (kinds), limit]` (each term alone, then the OR of all).
 * Ordered by the number of distinct terms a head matches, then relevance, then memory id: InnoDB
 * relevance is TF-IDF without saturation or length normalisation, so one frequent term could
 * otherwise fill the candidate pool with heads that match too few terms to be admitted
 * (admission counts distinct shared terms, docs/search.md).
 *
 * The candidates are picked and sorted over ids and scores only (the derived table `c`, with its
 * LIMIT), and the text of the chosen heads is joined afterwards. Sorting rows that carry the TEXT
 * column `searchable_text` made MariaDB put them in an on-disk (Aria) temporary table — a table
 * with a TEXT column cannot live in memory — and MariaDB 10.11 crashed twice under load freeing
 * one (signal 11, `ha_maria::drop_table` ← `free_tmp_table` ← `JOIN::cleanup`). Now every
 * temporary table of the query holds only an id and two numbers, and the outer sort reads `c`
 * alone before the join (test/storage/mysql-search-plan.test.ts).
 */
export function searchTextSql(withKinds: boolean, terms = 1): string {
  const matched = Array.from(
    { length: terms },
    () => '(MATCH (f.fts_text) AGAINST (? IN BOOLEAN MODE) > 0)',
  ).join(' + ')
  return `SELECT h.memory_id AS memoryId, h.version, h.content_hash AS contentHash,
      h.searchable_text AS searchableText
    FROM (SELECT f.memory_id, ${matched} AS matched,
        MATCH (f.fts_text) AGAINST (? IN BOOLEAN MODE) AS relevance
      FROM ${FULLTEXT_TABLE} f JOIN memory_heads s ON s.memory_id = f.memory_id
      WHERE MATCH (f.fts_text) AGAINST (? IN BOOLEAN MODE) AND s.scope_id = ?${withKinds ? ' AND s.kind IN (?)' : ''}
      ORDER BY matched DESC, relevance DESC, f.memory_id
      LIMIT ?) c
    JOIN memory_heads h ON h.memory_id = c.memory_id
    ORDER BY c.matched DESC, c.relevance DESC, c.memory_id`
}

/**
 * A vector as OceanBase's text literal `[v1,v2,…]` (bound as a string parameter). Fixed-point with
 * nine decimals: exact enough for float32 components of unit vectors, never exponent notation.
 */
export function vectorLiteral(vector: readonly number[]): string {
  return `[${vector
    .map((v) => {
      if (!Number.isFinite(v)) throw new RangeError('vector component is not finite')
      const s = v.toFixed(9)
      return s === '-0.000000000' ? '0.000000000' : s
    })
    .join(',')}]`
}
