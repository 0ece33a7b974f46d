/**
 * The hooks of one SQL dialect (after kysely's per-dialect compiler overrides): only
 * what differs between SQLite and the MySQL family. Every verb in `storage/sql/` is written once
 * over {@link SqlSession} and these hooks; an adapter supplies one {@link SqlDialect} object.
 */
import type { Bm25Statistics } from '../../core/bm25.js'
import type { PlannedTerm } from '../../core/query-plan.js'
import type { HeadRow, TextHit } from '../spi/rows.js'
import type { VectorTx } from '../spi/vector-tx.js'
import type { SqlSession } from './session.js'

/** Per-scope counters of the `scopes` row. */
export type ScopeCounter = 'change_seq' | 'source_position'

/** A full-text search request as the row verbs pass it on (terms from Analyzer v1 only). */
export interface TextQuery {
  readonly scopeId: string
  readonly terms: readonly PlannedTerm[]
  readonly kinds: readonly string[] | undefined
  readonly limit: number
}

/** The full-text side of a dialect: the index rows that follow a head, its search, its checks. */
export interface FullTextDialect {
  /** Head columns the index needs besides the common ones (written with every head). */
  readonly headColumns: readonly string[]
  /** Their values for one head, in {@link headColumns} order. */
  headValues(head: HeadRow): readonly unknown[]
  /** Writes the index row of a head just written, when the index lives in its own table. */
  putIndexRow?(session: SqlSession, head: HeadRow): Promise<void>
  /** Removes a deleted head from such an index (its own rule for how: MySQL empties the row). */
  dropIndexRow?(session: SqlSession, memoryId: string): Promise<void>
  /** Raw candidates, best first (DialectTx.searchText). */
  searchText(session: SqlSession, q: TextQuery): Promise<TextHit[]>
  /**
   * BM25 statistics of the index for planned terms (DialectTx.textStatistics); absent when the
   * dialect keeps its native candidate order.
   */
  statistics?(session: SqlSession, terms: readonly PlannedTerm[]): Promise<Bm25Statistics>
  /** Index consistency problems (DialectTx.checkIndexes). */
  checkIndexes(session: SqlSession): Promise<string[]>
  /** Drops every projection row and index entry, vectors included (DialectTx.clearProjections). */
  clearProjections(session: SqlSession): Promise<void>
}

/** What differs between the SQL dialects the row verbs run on. */
export interface SqlDialect {
  /**
   * `IN` over a list bound as ONE parameter: the SQL after `IN` (e.g. `(?)` or
   * `(SELECT value FROM json_each(?))`) and the value to bind for a list. Lists are never empty
   * (the verbs answer an empty list without a statement).
   */
  readonly inList: { readonly sql: string; bind(values: readonly unknown[]): unknown }
  /** A text column read as its bytes (the driver answers a Buffer). */
  asBytes(column: string): string
  /** The clause that turns an INSERT into an upsert on `conflict`, updating `update` columns. */
  upsert(conflict: readonly string[], update: readonly string[]): string
  /** The clause that makes an INSERT a no-op when a row with the same `conflict` key exists. */
  ignoreDuplicate(conflict: readonly string[]): string
  /**
   * Adds `n` to a counter of the scope's row inside the transaction and returns the new value
   * (undefined when the row is missing). Concurrent writers must get contiguous numbers: the row
   * stays locked until commit, and a rollback gives the numbers back.
   */
  bumpCounter(
    session: SqlSession,
    counter: ScopeCounter,
    scopeId: string,
    n: number,
  ): Promise<number | undefined>
  /** Inserts `rows` (each of the prefix's columns, in order) after `INSERT INTO t (…)`. */
  insertMany(
    session: SqlSession,
    prefix: string,
    rows: readonly (readonly unknown[])[],
  ): Promise<void>
  /** True when a statement failed on a primary or unique key (a concurrent writer won). */
  isUniqueViolation(err: unknown): boolean
  readonly fullText: FullTextDialect
  /** The vector verbs of a transaction on `session`, or undefined without vector support. */
  vectors(session: SqlSession): VectorTx | undefined
  /** True when a head's vector lives in its row, so deleting the head deletes the vector. */
  readonly vectorsInHeadRow: boolean
}

/** `?, ?, …` for `n` values. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ')

/**
 * Counter strategy of dialects with `UPDATE … RETURNING` (SQLite, PostgreSQL): one statement; the
 * write lock (SQLite) or the row lock (PostgreSQL) keeps numbers contiguous.
 */
export async function bumpWithReturning(
  session: SqlSession,
  counter: ScopeCounter,
  scopeId: string,
  n: number,
): Promise<number | undefined> {
  const row = await session.get<{ value: number }>(
    `UPDATE scopes SET ${counter} = ${counter} + ? WHERE scope_id = ? RETURNING ${counter} AS value`,
    [n, scopeId],
  )
  return row?.value
}

/**
 * Counter strategy without `RETURNING` (MySQL family): `SELECT … FOR UPDATE` locks the row until
 * commit, then the new value is written in the same transaction.
 */
export async function bumpWithLockedRead(
  session: SqlSession,
  counter: ScopeCounter,
  scopeId: string,
  n: number,
): Promise<number | undefined> {
  const row = await session.get<{ value: number }>(
    `SELECT ${counter} AS value FROM scopes WHERE scope_id = ? FOR UPDATE`,
    [scopeId],
  )
  if (row === undefined) return undefined
  const value = Number(row.value) + n
  await session.run(`UPDATE scopes SET ${counter} = ? WHERE scope_id = ?`, [value, scopeId])
  return value
}
