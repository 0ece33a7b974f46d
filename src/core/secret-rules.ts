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
  await pause()
  for (const [path, text] of metadataTexts(metadata, 'metadata')) {
    await pause()
    refuseSecrets({ [path]: text })
  }
}

/**
 * Every string leaf of a JSON value as `[path, "key: value"]` (array items keep their key), in
 * document order. Walks with its own stack, not recursion: this runs before the metadata's depth
 * is checked, and a body nested thousands deep must get its `invalid_request`, not a stack overflow.
 * Each open object or array is one frame with a cursor, so a member's path is built when it is
 * reached (a caller pausing between strings never meets one long step for a wide object).
 */
function* metadataTexts(root: unknown, rootPath: string): Generator<[string, string]> {
  if (typeof root === 'string') yield [rootPath, root]
  const frames: Frame[] = []
  const open = (value: unknown, path: string, key: string) => {
    if (Array.isArray(value)) frames.push({ path, key, items: value, keys: undefined, next: 0 })
    else if (typeof value === 'object' && value !== null)
      frames.push({ path, key, items: Object.values(value), keys: Object.keys(value), next: 0 })
  }
  open(root, rootPath, '')
  while (frames.length > 0) {
    const frame = frames.at(-1)!
    if (frame.next === frame.items.length) {
      frames.pop()
      continue
    }
    const i = frame.next++
    const value = frame.items[i]
    const k = frame.keys === undefined ? frame.key : frame.keys[i]!
    const path = frame.keys === undefined ? `${frame.path}[${i}]` : `${frame.path}.${k}`
    if (typeof value === 'string') yield [path, k === '' ? value : `${k}: ${value}`]
    else open(value, path, k)
  }
}

/** An object or array being walked: its items (an object's values, with `keys`) and a cursor. */
interface Frame {
  readonly path: string
  /** The key an array's items are read under (its own key in the enclosing object). */
  readonly key: string
  readonly items: readonly unknown[]
  readonly keys: readonly string[] | undefined
  next: number
}
