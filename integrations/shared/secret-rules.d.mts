/** Types of `secret-rules.mjs` (the one list of secret rules; see that file). */

/** One rule: a name callers can report and a test on the text. */
export interface SecretRule {
  readonly name: string
  readonly test: (text: string) => boolean
}

/** What matched (the rule name only; the secret is never returned). */
export interface SecretMatch {
  readonly rule: string
}

/** The rules, most specific first. */
export declare const SECRET_RULES: readonly SecretRule[]

/** The first secret rule the text matches, or undefined. */
export declare function findSecret(text: string): SecretMatch | undefined

/** True when the text looks like it carries a secret (see {@link SECRET_RULES}). */
export declare function looksLikeSecret(text: string): boolean
