/*
 * BM25 statistics of the FTS5 index, from what FTS5 keeps anyway: its averages
 * record (rows, tokens per column) and per-term document counts through a connection-private
 * `fts5vocab` table (in `temp`, so nothing is stored in the database). Cached per connection and
 * dropped when any write commits: this connection's (`total_changes()`) or another's
 * (`PRAGMA data_version`).
 */
import type { Bm25Statistics } from '../../core/bm25.js'
import type { PlannedTerm } from '../../core/query-plan.js'
import { termMatches } from '../../core/query-plan.js'
import type { SqliteStatements } from './sqlite-session.js'

/** FTS5's averages record: the `%_data` row with id 1. */
const AVERAGES_SQL = 'SELECT block FROM memory_fts_data WHERE id = 1'
/** The column of `memory_fts` that holds the Analyzer v1 tokens (0 is the scope token). */
const TEXT_COLUMN = 1
const VOCAB_DDL =
  'CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_fts_vocab USING fts5vocab(main, memory_fts, col)'
const DF_EXACT_SQL =
  "SELECT doc FROM temp.memory_fts_vocab WHERE term = ? AND col = 'searchable_text'"
const DF_RANGE_SQL =
  "SELECT term, doc FROM temp.memory_fts_vocab WHERE term >= ? AND term < ? AND col = 'searchable_text'"
/** Changes any commit: another connection's (data_version) or this one's (total_changes). */
const VERSION_SQL =
  'SELECT (SELECT data_version FROM pragma_data_version) AS dv, total_changes() AS tc'
/** Cached document frequencies per connection, cleared when full. */
const MAX_CACHED_TERMS = 8192

/**
 * Reads SQLite varints (1–9 bytes, big-endian, 7 bits per byte, all 8 bits of a ninth) from
 * the start of `bytes`: the integers of FTS5's averages record.
 */
export function readVarints(bytes: Uint8Array, count: number): number[] {
  const out: number[] = []
  let at = 0
  for (let n = 0; n < count && at < bytes.length; n++) {
    let value = 0
    for (let i = 0; ; i++) {
      const byte = bytes[at++] ?? 0
      if (i === 8) {
        value = value * 256 + byte
        break
      }
      value = value * 128 + (byte & 0x7f)
      if ((byte & 0x80) === 0 || at >= bytes.length) break
    }
    out.push(value)
  }
  return out
}

/** One term's cache key: exact token or stem prefix. */
const termKey = (t: PlannedTerm): string =>
  t.prefix === undefined ? `=${t.token}` : `*${t.prefix}`

/** The statistics provider of one connection. */
export class SqliteTextStatistics {
  readonly #sql: SqliteStatements
  #version: string | undefined
  #documents = 0
  #averageLength = 0
  readonly #frequencies = new Map<string, number>()
  #vocabReady = false

  constructor(sql: SqliteStatements) {
    this.#sql = sql
  }

  /**
   * N, mean token count of the text column and each term's document count, as the running
   * transaction sees them. A stem prefix counts the documents of every token it matches the way
   * admission does (summed over tokens, capped at N when scoring).
   */
  read(terms: readonly PlannedTerm[]): Bm25Statistics {
    this.#refresh()
    return {
      documents: this.#documents,
      averageLength: this.#averageLength,
      documentFrequencies: terms.map((t) => this.#frequency(t)),
    }
  }

  #refresh(): void {
    const v = this.#sql.get<{ dv: number; tc: number }>(VERSION_SQL)
    const version = `${v?.dv}:${v?.tc}`
    if (version === this.#version) return
    this.#version = version
    this.#frequencies.clear()
    const row = this.#sql.get<{ block: Uint8Array }>(AVERAGES_SQL)
    const [rows = 0, ...columns] = row === undefined ? [] : readVarints(row.block, TEXT_COLUMN + 2)
    this.#documents = rows
    this.#averageLength = rows > 0 ? (columns[TEXT_COLUMN] ?? 0) / rows : 0
  }

  #frequency(term: PlannedTerm): number {
    const key = termKey(term)
    let df = this.#frequencies.get(key)
    if (df !== undefined) return df
    if (!this.#vocabReady) {
      this.#sql.db.exec(VOCAB_DDL)
      this.#vocabReady = true
    }
    if (term.prefix === undefined) {
      df = this.#sql.get<{ doc: number }>(DF_EXACT_SQL, term.token)?.doc ?? 0
    } else {
      // Tokens a stem matches are the stem plus a-z only, all below `stem{` ('{' follows 'z').
      const rows = this.#sql.all<{ term: string; doc: number }>(
        DF_RANGE_SQL,
        term.prefix,
        `${term.prefix}{`,
      )
      df = 0
      for (const r of rows) if (termMatches(term, r.term)) df += r.doc
    }
    if (this.#frequencies.size >= MAX_CACHED_TERMS) this.#frequencies.clear()
    this.#frequencies.set(key, df)
    return df
  }
}
