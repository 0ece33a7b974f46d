/** Types of `secret-scanner.mjs` (the full rule set for Node processes; see that file). */
import type { SecretMatch, SecretRule } from './secret-rules.mjs'

/** secretlint's scanner rules (a preset's `rules`), as our rules. */
export declare function providerRules(presetRules: readonly unknown[]): SecretRule[]

/** The generic rules, then secretlint's. */
export declare function fullRules(presetRules: readonly unknown[]): readonly SecretRule[]

/** The full list, loading secretlint's preset on first use (the generic rules alone if it cannot). */
export declare function loadSecretRules(): Promise<readonly SecretRule[]>

/** `findSecret` over the full list. */
export declare function loadSecretFinder(): Promise<(text: string) => SecretMatch | undefined>
