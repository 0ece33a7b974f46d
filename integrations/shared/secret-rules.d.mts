/** Types of `secret-rules.mjs` (the generic secret rules; see that file). */

/** Where a rule's family puts it in the measurements (`npm run bench:secrets`). */
export type SecretRuleFamily =
  'key_block' | 'token_shape' | 'header' | 'connection_string' | 'assignment' | 'provider'

/** One rule: a name callers can report, its family, a test and the ranges of its matches. */
export interface SecretRule {
  readonly name: string
  readonly family: SecretRuleFamily
  readonly test: (text: string) => boolean
  /** `[start, end)` of each secret the rule finds (UTF-16 offsets). */
  readonly ranges: (text: string) => (readonly [number, number])[]
}

/** What matched (the rule name only; the secret is never returned). */
export interface SecretMatch {
  readonly rule: string
}

/** A match with its place in the text. */
export interface SecretRange {
  readonly rule: string
  readonly start: number
  readonly end: number
}

/** The generic rules (no provider list of secretlint's), most specific first. */
export declare const GENERIC_RULES: readonly SecretRule[]

/** The first rule of `rules` the text matches, or undefined. */
export declare function secretFinder(
  rules: readonly SecretRule[],
): (text: string) => SecretMatch | undefined

/** Every match of `rules` in the text, in text order, overlaps merged. */
export declare function secretMatches(text: string, rules: readonly SecretRule[]): SecretRange[]

/** The text with every match replaced by `[secret withheld: <rule>]`. */
export declare function maskSecrets(text: string, rules: readonly SecretRule[]): string
