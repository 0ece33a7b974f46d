/**
 * The Analyzer v1 tokens of a head's `searchableText` (space-separated), kept for the texts
 * searches meet again: a scope's memories are candidates of many searches, and splitting each
 * candidate's text anew was the largest JavaScript cost of a full-text search (≈ 1–2 µs and 30+
 * strings per candidate, 32 candidates a search; docs/benchmarks.md, MCP). Keyed by the text
 * itself, so a changed text is a new entry; bounded, emptied when full. Callers must not modify
 * the arrays.
 */
const TOKENS = new Map<string, readonly string[]>()
const MAX_TEXTS = 20_000

export function candidateTokens(searchableText: string): readonly string[] {
  let tokens = TOKENS.get(searchableText)
  if (tokens === undefined) {
    tokens = Object.freeze(searchableText.split(' '))
    if (TOKENS.size >= MAX_TEXTS) TOKENS.clear()
    TOKENS.set(searchableText, tokens)
  }
  return tokens
}

/** Drops every kept text (after a redaction: the keys are stored text that was erased). */
export function forgetCandidateTokens(): void {
  TOKENS.clear()
}
