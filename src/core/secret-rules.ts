/**
 * Admission rule, checked in code: nothing stored carries a credential (API keys, tokens, private
 * keys, passwords). One rule set for the server, the agent hooks and the web console: the generic
 * rules of the dependency-free `integrations/shared/secret-rules.mjs` (token shapes, key blocks,
 * headers, connection strings, credential assignments) and the provider token shapes of
 * secretlint's recommended preset (`integrations/shared/secret-scanner.mjs` drives its rules
 * synchronously). The hooks load the same list lazily; the console, a browser bundle, masks with
 * the generic rules (the preset imports `node:` modules). This module is the server's typed entry:
 * every write path refuses a match with `secret_detected` (`refuseSecrets`).
 */
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend'

import { secretFinder } from '../../integrations/shared/secret-rules.mjs'
import { fullRules } from '../../integrations/shared/secret-scanner.mjs'
import { PowerContextError } from './errors.js'

export type {
  SecretMatch,
  SecretRange,
  SecretRule,
  SecretRuleFamily,
} from '../../integrations/shared/secret-rules.mjs'
export {
  GENERIC_RULES,
  maskSecrets,
  secretFinder,
  secretMatches,
} from '../../integrations/shared/secret-rules.mjs'

/** The full rule list: generic rules first, then secretlint's recommended provider rules. */
export const SECRET_RULES = fullRules(presetRules)

/** The first secret rule the text matches (`{rule}`, the rule name only), or undefined. */
export const findSecret = secretFinder(SECRET_RULES)

/** True when the text looks like it carries a secret (see {@link SECRET_RULES}). */
export function looksLikeSecret(text: string): boolean {
  return findSecret(text) !== undefined
}

/** The `secret_detected` error: names the field and the rule, never the secret. */
export function secretDetected(field: string, rule: string): PowerContextError {
  return new PowerContextError(
    'secret_detected',
    `${field}: looks like a credential (rule ${rule}); refused`,
    { field, rule },
  )
}

/**
 * Refuses a write whose text fields carry a credential: `fields` maps each field's name (as the
 * request spells it, e.g. `entries[0].text`) to its text; undefined fields are skipped.
 * @throws PowerContextError `secret_detected` naming the first field and rule that matched
 */
export function refuseSecrets(fields: Readonly<Record<string, string | undefined>>): void {
  for (const [field, text] of Object.entries(fields)) {
    if (text === undefined) continue
    const match = findSecret(text)
    if (match !== undefined) throw secretDetected(field, match.rule)
  }
}

/** `text`, once it carries no credential. @throws PowerContextError `secret_detected` */
export function secretFree<T extends string | null>(field: string, text: T): T {
  if (text !== null) refuseSecrets({ [field]: text })
  return text
}

/**
 * Refuses a captured source that carries a credential: its content, and each string in its
 * metadata (read as `key: value`, so that a credential's name counts as in any assignment).
 * @throws PowerContextError `secret_detected` (`content` or `metadata.<path>`, prefixed by `at`)
 */
export function refuseSourceSecrets(content: string, metadata: unknown, at = ''): void {
  refuseSecrets({ [`${at}content`]: content })
  for (const [path, text] of metadataTexts(metadata, `${at}metadata`))
    refuseSecrets({ [path]: text })
}

/**
 * {@link refuseSourceSecrets} of a request's capture, `pause()` awaited before each metadata
 * string so the caller can yield to the event loop (metadata may hold tens of thousands of them).
 * Same checks in the same order, same error.
 * @throws PowerContextError `secret_detected`
 */
export async function refuseSourceSecretsSliced(
  content: string,
  metadata: unknown,
  pause: () => Promise<void>,
): Promise<void> {
  refuseSecrets({ content })
  for (const [path, text] of metadataTexts(metadata, 'metadata')) {
    await pause()
    refuseSecrets({ [path]: text })
  }
}

/**
 * Every string leaf of a JSON value as `[path, "key: value"]` (array items keep their key), in
 * document order. Walks with its own stack, not recursion: this runs before the metadata's depth
 * is checked, and a body nested thousands deep must get its `invalid_request`, not a stack overflow.
 */
function* metadataTexts(root: unknown, rootPath: string): Generator<[string, string]> {
  const stack: [value: unknown, path: string, key: string][] = [[root, rootPath, '']]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, path, key] = top
    if (typeof value === 'string') yield [path, key === '' ? value : `${key}: ${value}`]
    else if (Array.isArray(value))
      for (let i = value.length - 1; i >= 0; i -= 1) stack.push([value[i], `${path}[${i}]`, key])
    else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value)
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [k, v] = entries[i]!
        stack.push([v, `${path}.${k}`, k])
      }
    }
  }
}
