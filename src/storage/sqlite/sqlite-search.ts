import { createHash } from 'node:crypto'

import { analyzeTokens } from '../../core/analyzer.js'
import type { PlannedTerm } from '../../core/query-plan.js'
import { planQuery } from '../../core/query-plan.js'

/**
 * The FTS token that marks a head's scope. Scope ids are arbitrary printable ASCII, so they are
 * hashed into one token the `unicode61` tokenizer keeps whole (`_` is a token character here).
 * A hash collision can only add candidates; the base class re-checks every hit's scope.
 */
export function scopeToken(scopeId: string): string {
  let token = scopeTokens.get(scopeId)
  if (token === undefined) {
    token = `s_${scopeHash(scopeId)}`
    if (scopeTokens.size >= SCOPE_TOKEN_CACHE) scopeTokens.clear()
    scopeTokens.set(scopeId, token)
  }
  return token
}

/** 32 hex digits of the scope id's SHA-256: a name for the scope in tokens and file names. */
export function scopeHash(scopeId: string): string {
  return createHash('sha256').update(scopeId, 'utf8').digest('hex').slice(0, 32)
}

/** Recently used scope tokens (a search or write hashes its scope id once, not every time). */
const scopeTokens = new Map<string, string>()
const SCOPE_TOKEN_CACHE = 1024

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`
}

/** One planned term as an FTS5 phrase: `"token"`, or the prefix query `"prefix" *`. */
function phrase(term: PlannedTerm): string {
  return term.prefix === undefined ? quote(term.token) : `${quote(term.prefix)} *`
}

/**
 * The FTS5 MATCH expression: the scope token AND any of the planned query terms, each quoted (a
 * stem prefix as `"stem" *`). Raw user input never reaches MATCH: terms are Analyzer v1 tokens
 * or their stem prefixes only (docs/search.md). With `wholeIndex` (every head is in the scope, see
 * {@link ONE_SCOPE_SQL}) the scope token is left out: it would match every row, and intersecting
 * with it is a good part of the query's cost; the rows and their bm25 scores are the same (the
 * scope column has weight 0, and FTS5 weighs each phrase by the rows of the whole table).
 */
export function ftsMatchExpression(
  scopeId: string,
  terms: readonly PlannedTerm[],
  wholeIndex = false,
): string {
  const text = `searchable_text : (${terms.map(phrase).join(' OR ')})`
  return wholeIndex ? text : `scope_key : ${quote(scopeToken(scopeId))} AND ${text}`
}

/**
 * 1 when every head is in the scope (params: the scope id twice): the lowest and the highest
 * scope id of the heads are that scope's, two seeks in the `(scope_id, content_hash)` index (each
 * aggregate in its own subquery, so SQLite's min/max shortcut applies). 0 for an empty table.
 */
export const ONE_SCOPE_SQL = `
  SELECT coalesce((SELECT min(scope_id) FROM memory_heads) = ?
    AND (SELECT max(scope_id) FROM memory_heads) = ?, 0) AS whole`

/**
 * The MATCH expression the backend runs for a raw query (analyse, plan, quote), or `undefined`
 * when the query plans to no term (no index query at all). For benchmarks' raw floors.
 */
export function queryMatchExpression(scopeId: string, query: string): string | undefined {
  const { terms } = planQuery(analyzeTokens(query))
  return terms.length === 0 ? undefined : ftsMatchExpression(scopeId, terms)
}

/**
 * Candidate query: best bm25 first (the scope column has weight 0), then projection id. The top
 * candidates are taken from the index alone and only they are joined to the heads, so the join
 * costs `limit` lookups rather than one per matching row.
 */
export const FTS_CANDIDATES_SQL = `
  SELECT h.memory_id AS memoryId, h.version AS version, h.content_hash AS contentHash,
    h.searchable_text AS searchableText
  FROM (
    SELECT rowid, bm25(memory_fts, 0.0, 1.0) AS score FROM memory_fts
    WHERE memory_fts MATCH ? ORDER BY score, rowid LIMIT ?
  ) f JOIN memory_heads h ON h.projection_id = f.rowid
  ORDER BY f.score, f.rowid`

/** With a kind filter the heads must be joined before the limit, so no candidate is lost. */
export const FTS_CANDIDATES_BY_KIND_SQL = `
  SELECT h.memory_id AS memoryId, h.version AS version, h.content_hash AS contentHash,
    h.searchable_text AS searchableText
  FROM memory_fts JOIN memory_heads h ON h.projection_id = memory_fts.rowid
  WHERE memory_fts MATCH ? AND h.kind IN (SELECT value FROM json_each(?))
  ORDER BY bm25(memory_fts, 0.0, 1.0), memory_fts.rowid
  LIMIT ?`
