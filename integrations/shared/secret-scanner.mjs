// The full secret rule set for Node processes: the generic rules (secret-rules.mjs) and the
// provider token shapes of secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend,
// a dependency of this package; `integrations/` ships inside it, so the import resolves from here).
// The server imports the preset statically (src/core/secret-rules.ts); an agent hook loads it only
// when it has text to capture (`loadSecretFinder`), since the preset costs tens of milliseconds to
// load (docs/benchmarks.md, "Secret rules").
//
// secretlint's rules are driven directly through their public rule interface (`create(context,
// options)` → `{ file(source) }`), synchronously, with a context that collects each report's range:
// secretlint's own `lintSource` is asynchronous and builds messages that quote the secret, while
// the write paths' checks are synchronous and must never echo a secret.

import { GENERIC_RULES, secretFinder } from './secret-rules.mjs'

// Not run: the comment filter (a `secretlint-disable` comment would let a writer switch the check
// off) and the GCP rule (it only reads `.json`/`.p12` files by path; a service account's key block
// is found by the generic private_key rule).
const LEFT_OUT = new Set([
  '@secretlint/secretlint-rule-filter-comments',
  '@secretlint/secretlint-rule-gcp',
])
// The AWS rule also scans access key ids, with secretlint's own example key allowed.
const OPTIONS = { '@secretlint/secretlint-rule-aws': { enableIDScanRule: true } }

/** One secretlint scanner rule as a rule of ours (`secretlint/<name>`, family `provider`). */
function adapt(creator) {
  let found = []
  const context = {
    report: (descriptor) => found.push(descriptor.range),
    ignore: () => {},
    // The messages quote the secret: never built.
    createTranslator: () => (id) => id,
  }
  const handler = creator.create(context, OPTIONS[creator.meta.id] ?? {})
  const ranges = (text) => {
    found = []
    const pending = handler.file?.({
      content: text,
      contentType: 'text',
      ext: '',
      filePath: undefined,
    })
    if (pending !== undefined) throw new Error(`${creator.meta.id} is not synchronous`)
    return found.map(([start, end]) => [start, end])
  }
  return {
    name: creator.meta.id.replace('@secretlint/secretlint-rule-', 'secretlint/'),
    family: 'provider',
    test: (text) => ranges(text).length > 0,
    ranges,
  }
}

/** secretlint's scanner rules (the preset's `rules`), as our rules. */
export function providerRules(presetRules) {
  return presetRules.filter((r) => r.meta.type === 'scanner' && !LEFT_OUT.has(r.meta.id)).map(adapt)
}

/** The full list: the generic rules first (cheap), then secretlint's. */
export const fullRules = (presetRules) =>
  Object.freeze([...GENERIC_RULES, ...providerRules(presetRules)])

let loading
/**
 * The full rule list, loading secretlint's preset on first use. When the preset cannot be loaded
 * (the hooks copied away from the package), the generic rules alone; the server, which applies
 * the full list, still refuses what they miss.
 */
export function loadSecretRules() {
  loading ??= import('@secretlint/secretlint-rule-preset-recommend').then(
    (m) => fullRules(m.rules),
    () => GENERIC_RULES,
  )
  return loading
}

/** `findSecret` over the full list (see `loadSecretRules`). */
export async function loadSecretFinder() {
  return secretFinder(await loadSecretRules())
}
