import type { PlannedTerm } from './query-plan.js'
import { termMatches } from './query-plan.js'

/**
 * BM25 term-frequency saturation. Lucene's default, not tuned on our data: on the
 * LoCoMo development split k1 0.5–1.2 × b 0.2–0.5 all gave Hit@10 0.708–0.715 and MRR
 * 0.515–0.520 (FTS5's fixed k1 = 1.2, b = 0.75 order: 0.702 / 0.500); docs/search.md.
 */
export const BM25_K1 = 0.9
/**
 * BM25 length normalisation, Lucene's default. Lower than FTS5's 0.75, which
 * over-rewards very short memories sharing only a common word with the query.
 */
export const BM25_B = 0.4

/** Index statistics one ranking needs, for the planned terms of one query. */
export interface Bm25Statistics {
  /** Documents in the index (N). */
  readonly documents: number
  /** Mean document length in tokens. */
  readonly averageLength: number
  /**
   * Documents containing each planned term, in plan order (a stem prefix: documents with any
   * token the term matches; capped at `documents` when scoring).
   */
  readonly documentFrequencies: readonly number[]
}

/** Textbook BM25 idf: ln(1 + (N − df + 0.5) / (df + 0.5)), never negative (df capped at N). */
export function bm25Idf(documents: number, documentFrequency: number): number {
  const df = Math.min(Math.max(documentFrequency, 0), Math.max(documents, 0))
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5))
}

/**
 * The BM25 score of one document's Analyzer v1 tokens for planned terms:
 * Σ idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / avglen)), where tf counts the tokens
 * the term matches exactly as admission does ({@link termMatches}: stem prefixes included) and
 * len is the number of tokens.
 */
export function bm25Score(
  terms: readonly PlannedTerm[],
  tokens: readonly string[],
  stats: Bm25Statistics,
): number {
  const avg = stats.averageLength > 0 ? stats.averageLength : Math.max(tokens.length, 1)
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * tokens.length) / avg)
  let score = 0
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i]!
    let tf = 0
    for (const token of tokens) if (termMatches(term, token)) tf++
    if (tf === 0) continue
    const idf = bm25Idf(stats.documents, stats.documentFrequencies[i] ?? 0)
    score += (idf * tf * (BM25_K1 + 1)) / (tf + norm)
  }
  return score
}

/**
 * Orders candidates by BM25 over their tokens, best first; equal scores keep the input order
 * (the index's own order). Returns a new array; the input is untouched.
 */
export function bm25Order<T>(
  candidates: readonly T[],
  tokensOf: (candidate: T) => readonly string[],
  terms: readonly PlannedTerm[],
  stats: Bm25Statistics,
): T[] {
  return byScore(
    candidates,
    candidates.map((c) => bm25Score(terms, tokensOf(c), stats)),
  )
}

/**
 * {@link bm25Order} scoring one candidate at a time, `pause()` awaited before each, so the caller
 * can yield to the event loop (64 candidates of a few thousand tokens each are tens of
 * milliseconds of scoring). Same order.
 */
export async function bm25OrderSliced<T>(
  candidates: readonly T[],
  tokensOf: (candidate: T) => readonly string[],
  terms: readonly PlannedTerm[],
  stats: Bm25Statistics,
  pause: () => Promise<void>,
): Promise<T[]> {
  const scores: number[] = []
  for (const c of candidates) {
    await pause()
    scores.push(bm25Score(terms, tokensOf(c), stats))
  }
  return byScore(candidates, scores)
}

/** The candidates by `scores` (same positions), best first; ties keep the input order. */
function byScore<T>(candidates: readonly T[], scores: readonly number[]): T[] {
  return candidates
    .map((candidate, index) => ({ candidate, index, score: scores[index]! }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((s) => s.candidate)
}
