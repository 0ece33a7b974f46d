import { requiredSharedTerms } from './search-rules.js'

/**
 * Generic English stop words, removed from queries only (stored text keeps every token). The NLTK
 * English list without the contraction fragments that are also ordinary words (`won`, `ma`, `ain`,
 * …); not tuned on any benchmark.
 */
// prettier-ignore
export const QUERY_STOP_WORDS: ReadonlySet<string> = new Set([
  'i', 'me', 'my', 'myself', 'we', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its',
  'itself', 'they', 'them', 'their', 'theirs', 'themselves', 'what', 'which', 'who', 'whom',
  'this', 'that', 'these', 'those', 'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being',
  'have', 'has', 'had', 'having', 'do', 'does', 'did', 'doing', 'a', 'an', 'the', 'and', 'but',
  'if', 'or', 'because', 'as', 'until', 'while', 'of', 'at', 'by', 'for', 'with', 'about',
  'against', 'between', 'into', 'through', 'during', 'before', 'after', 'above', 'below', 'to',
  'from', 'up', 'down', 'in', 'out', 'on', 'off', 'over', 'under', 'again', 'further', 'then',
  'once', 'here', 'there', 'when', 'where', 'why', 'how', 'all', 'any', 'both', 'each', 'few',
  'more', 'most', 'other', 'some', 'such', 'no', 'nor', 'not', 'only', 'own', 'same', 'so',
  'than', 'too', 'very', 's', 't', 'can', 'will', 'just', 'don', 'should', 'now', 'd', 'll', 'm',
  'o', 're', 've', 'y', 'aren', 'couldn', 'didn', 'doesn', 'hadn', 'hasn', 'haven', 'isn',
  'shouldn', 'wasn', 'weren', 'wouldn',
])

/** One planned query term. */
export interface PlannedTerm {
  /** The Analyzer v1 query token. */
  readonly token: string
  /**
   * An English stem of `token` that is a prefix of it: the term then matches every indexed token
   * that starts with it (an FTS5 prefix query), e.g. `paint` for `painted`.
   */
  readonly prefix?: string
}

/** What the index is asked for, and what admission requires. */
export interface QueryPlan {
  /** The query's meaningful distinct terms, in query order; admission counts every one. */
  readonly terms: readonly PlannedTerm[]
  /** Shared distinct terms a candidate needs: the admission rule of docs/search.md over `terms.length`. */
  readonly requiredShared: number
}

/**
 * At most this many planned terms are sent to a backend. The MySQL family runs one `MATCH … AGAINST`
 * per term (to count the distinct terms a row matches), and MariaDB 10.11 overruns its thread
 * stack near 600 of them; 32 terms stay far below any backend's limit, and admission then needs
 * 8 of them.
 */
export const MAX_PLANNED_TERMS = 32

/** Tokens shorter than this are matched exactly; stems (prefixes) keep at least 3 letters. */
const MIN_STEMMED_TOKEN = 4
const MIN_PREFIX = 3
const VOWEL = /[aeiouy]/
const DOUBLE_CONSONANT = /([b-df-hj-np-tv-xz])\1$/
const KEPT_DOUBLES = new Set(['l', 's', 'z'])

function undouble(stem: string): string {
  const m = DOUBLE_CONSONANT.exec(stem)
  return m !== null && !KEPT_DOUBLES.has(m[1]!) ? stem.slice(0, -1) : stem
}

function stripInflection(word: string): string {
  if (word.endsWith('ies') || word.endsWith('ied')) return word.slice(0, -3)
  if (word.endsWith('sses')) return word.slice(0, -2)
  if (/(?:x|z|ch|sh)es$/.test(word)) return word.slice(0, -2)
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1)
  for (const suffix of ['ing', 'ed']) {
    const stem = word.slice(0, -suffix.length)
    if (word.endsWith(suffix) && !word.endsWith('eed') && VOWEL.test(stem)) return undouble(stem)
  }
  return word
}

/**
 * A light English stem of a query token that is always a prefix of the token, so that it can be
 * an FTS5 prefix query over the unstemmed Analyzer v1 tokens of stored text. Inflections are
 * removed (`-s`, `-es`, `-ies`, `-ed`, `-ied`, `-ing`; a doubled final consonant is undoubled),
 * then a final `e` or consonant + `y`; the stem keeps at least 3 letters (else the token itself
 * is the prefix). `undefined` for tokens under 4 letters or not plain ASCII letters (numbers,
 * CJK, accented words): those match exactly.
 *
 * @example
 * englishStemPrefix('painting') // 'paint' (paint, paints, painted, painter, …)
 * englishStemPrefix('hikes') // 'hik' (hike, hiked, hiking, …)
 * englishStemPrefix('studies') // 'stud'
 * englishStemPrefix('dog') // undefined
 */
export function englishStemPrefix(token: string): string | undefined {
  if (token.length < MIN_STEMMED_TOKEN || !/^[a-z]+$/.test(token)) return undefined
  let stem = stripInflection(token)
  if (stem.length > MIN_PREFIX && (stem.endsWith('e') || /[^aeiou]y$/.test(stem))) {
    stem = stem.slice(0, -1)
  }
  return stem.length >= MIN_PREFIX ? stem : token
}

/**
 * Plans a full-text query from its Analyzer v1 tokens: distinct tokens, generic English stop words
 * dropped (unless nothing else is left), each remaining token extended to its English stem
 * prefix; two tokens with one stem (`paint`, `painting`) make one term; a long query keeps its
 * {@link MAX_PLANNED_TERMS} most valuable terms. Admission then needs the docs/search.md share of the
 * planned terms (`requiredShared`); an empty plan admits nothing.
 *
 * @example
 * planQuery(analyzeTokens('When did Melanie paint a sunrise?')).terms
 * // [{ token: 'melanie', prefix: 'melani' }, { token: 'paint', prefix: 'paint' },
 * //  { token: 'sunrise', prefix: 'sunris' }]
 */
export function planQuery(tokens: readonly string[]): QueryPlan {
  const occurrences = new Map<string, number>()
  for (const t of tokens) occurrences.set(t, (occurrences.get(t) ?? 0) + 1)
  const distinct = [...occurrences.keys()]
  const meaningful = distinct.filter((t) => !QUERY_STOP_WORDS.has(t))
  const byKey = new Map<string, { term: PlannedTerm; uses: number }>()
  for (const token of meaningful.length > 0 ? meaningful : distinct) {
    const prefix = englishStemPrefix(token)
    const key = prefix === undefined ? `=${token}` : `*${prefix}`
    const uses = occurrences.get(token) ?? 1
    const known = byKey.get(key)
    if (known !== undefined) known.uses += uses
    else
      byKey.set(key, {
        term: Object.freeze(prefix === undefined ? { token } : { token, prefix }),
        uses,
      })
  }
  const terms = Object.freeze(mostValuable([...byKey.values()]))
  return Object.freeze({ terms, requiredShared: requiredSharedTerms(terms.length) })
}

/**
 * The {@link MAX_PLANNED_TERMS} most valuable planned terms of a long query, in query order: the
 * terms the query repeats most (its subject), then the longest tokens (long words are the rarer
 * ones), then the earliest. Pure, so every backend is sent the same terms.
 */
function mostValuable(planned: readonly { term: PlannedTerm; uses: number }[]): PlannedTerm[] {
  if (planned.length <= MAX_PLANNED_TERMS) return planned.map((p) => p.term)
  const ranked = planned
    .map((p, position) => ({ ...p, position }))
    .sort(
      (a, b) =>
        b.uses - a.uses || b.term.token.length - a.term.token.length || a.position - b.position,
    )
    .slice(0, MAX_PLANNED_TERMS)
  return ranked.sort((a, b) => a.position - b.position).map((p) => p.term)
}

/**
 * True when a candidate's `token` counts for `term`: equal to its token, or its stem prefix
 * followed by ASCII letters only (`painted` for `paint`; not `snake_case` for `snak`, not `café`
 * for `caf`: stems extend English words, not identifiers or other spellings).
 */
export function termMatches(term: PlannedTerm, token: string): boolean {
  if (token === term.token) return true
  const prefix = term.prefix
  if (prefix === undefined || !token.startsWith(prefix)) return false
  for (let i = prefix.length; i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c < 0x61 || c > 0x7a) return false // the rest of the token must be a-z
  }
  return true
}

/** An Analyzer v1 CJK unigram or bigram token (`u_<hex>`, `b_<hex>_<hex>`): a piece of a word. */
const CJK_GRAM = /^(?:u_[0-9a-f]+|b_[0-9a-f]+_[0-9a-f]+)$/

/** For each term of the plan, whether one of `tokens` matches it ({@link termMatches}). */
export function matchedTerms(plan: QueryPlan, tokens: Iterable<string>): boolean[] {
  const matched = new Array<boolean>(plan.terms.length).fill(false)
  for (const token of tokens) {
    for (let i = 0; i < plan.terms.length; i++) {
      if (!matched[i] && termMatches(plan.terms[i]!, token)) matched[i] = true
    }
  }
  return matched
}

/**
 * Whether a term counts for the admission share even when no memory of the scope has it: a CJK
 * unigram or bigram does (an absent bigram means the word is absent); a word does not.
 */
export const countsWhenUnknown = (term: PlannedTerm): boolean => CJK_GRAM.test(term.token)

/**
 * The admission share over the terms the searched memories know: `known[i]` tells whether some
 * memory of the scope (under the search's filters) matches term `i`. A query word that no memory
 * has cannot be shared by any candidate, so it is left out of the count instead of raising the
 * share (`deploy zebra-marker-7731` needs what `deploy` needs). CJK unigrams and bigrams always
 * count ({@link countsWhenUnknown}).
 */
export function requiredSharedKnown(plan: QueryPlan, known: readonly boolean[]): number {
  const counted = plan.terms.filter((t, i) => known[i] === true || countsWhenUnknown(t)).length
  return requiredSharedTerms(counted)
}

/**
 * FTS admission under a plan: the candidate's Analyzer v1 tokens must match at least `need`
 * (default `plan.requiredShared`) distinct planned terms.
 */
export function admits(
  plan: QueryPlan,
  candidateTokens: Iterable<string>,
  need = plan.requiredShared,
): boolean {
  return sharedCount(matchedTerms(plan, candidateTokens)) >= need
}

/** How many terms a {@link matchedTerms} result matches. */
export const sharedCount = (matched: readonly boolean[]): number =>
  matched.reduce((n, m) => (m ? n + 1 : n), 0)
