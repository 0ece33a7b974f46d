/**
 * The secret rules run in linear time, and the ones rewritten only for speed match exactly what
 * their old patterns matched. Properties (fast-check): on texts built from every rule's fragments,
 * each such rule agrees with its old pattern (test/support/secret-rules-before.ts), and every rule
 * (ours and secretlint's) reports ranges exactly when its test matches; the adversarial inputs of
 * test/support/secret-adversaries.ts get their known answer at 8 KB (old and new alike, where an
 * old pattern exists) and at the maximum input size (new only: the old patterns take minutes
 * there). Every rule has an adversary. No timing is asserted: `npm run bench:secrets` measures it.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import { findSecret, SECRET_RULES } from '../../src/core/secret-rules.js'
import { ADVERSARIES, MAX_RULE_INPUT_BYTES } from '../support/secret-adversaries.js'
import { SECRET_RULES_BEFORE } from '../support/secret-rules-before.js'

/** Pieces of every rule's shape, so that random joins come near (and into) matches. */
const FRAGMENTS = [
  'a',
  'Z',
  '0',
  '-',
  '_',
  '.',
  ':',
  '//',
  '://',
  '@',
  '/',
  ' ',
  '\n',
  '=',
  '"',
  "'",
  '+',
  'eyJ',
  'abcdefgh',
  'https',
  'user',
  'pass',
  'host',
  'password',
  'api_key',
  ' is ',
  'secret',
  'Bearer ',
  'authorization',
  'token ',
  'sk-',
  'proj-',
  'ghp_',
  'github_pat_',
  'glpat-',
  'xoxb-',
  'AIza',
  'sk_live_',
  'AKIA',
  'ABCDEFGHIJKLMNOP',
  'aB3dE6gH9',
  'npm_',
  'xoxb-1-',
  'postgres://',
  'SG.',
  'shpat_',
  'DB_PASSWORD',
  'token',
  '_key',
  'export ',
  'Basic ',
  'hf_',
  'dop_v1_',
  '-----BEGIN ',
  'RSA ',
  'PRIVATE KEY-----',
  '${',
  'env',
  '~/',
]
const text = fc
  .array(fc.constantFrom(...FRAGMENTS), { maxLength: 120 })
  .map((parts) => parts.join(''))

const rule = (name: string) => {
  const r = SECRET_RULES.find((x) => x.name === name)
  if (r === undefined) throw new Error(`no rule ${name}`)
  return r
}

// Rules whose meaning changed since the oracle was written: placeholders and references in URLs,
// JSON headers, and names such as `DB_PASSWORD` (the old `\b` did not match after `_`).
const REDEFINED = new Set(['url_credentials', 'authorization_header', 'credential_assignment'])
const UNCHANGED = Object.keys(SECRET_RULES_BEFORE).filter((n) => !REDEFINED.has(n))

describe('secret rules: linear time, the same answers where only the speed changed', () => {
  it('every rule has an adversary; every old pattern still has its rule', () => {
    for (const r of SECRET_RULES)
      expect(
        ADVERSARIES.some((a) => a.rule === r.name),
        r.name,
      ).toBe(true)
    for (const name of Object.keys(SECRET_RULES_BEFORE)) expect(rule(name).name).toBe(name)
  })

  it.each(UNCHANGED)('%s agrees with its old pattern', (name) => {
    const before = SECRET_RULES_BEFORE[name]!
    fc.assert(
      fc.property(text, (t) => rule(name).test(t) === before(t)),
      { numRuns: 400 },
    )
  })

  it('every rule reports ranges exactly when it matches, inside the text', () => {
    fc.assert(
      fc.property(text, (t) =>
        SECRET_RULES.every((r) => {
          const ranges = r.ranges(t)
          return (
            r.test(t) === ranges.length > 0 &&
            ranges.every(([s, e]) => s >= 0 && s < e && e <= t.length)
          )
        }),
      ),
      { numRuns: 300 },
    )
  })

  it('findSecret answers the first rule that matches', () => {
    fc.assert(
      fc.property(text, (t) => findSecret(t)?.rule === SECRET_RULES.find((r) => r.test(t))?.name),
      { numRuns: 200 },
    )
  })

  it.each(ADVERSARIES.map((a) => [a.rule, a.name, a] as const))(
    '%s: %s gets its answer at 8 KB and at the maximum size',
    (_rule, _name, adversary) => {
      const small = adversary.make(8192)
      if (UNCHANGED.includes(adversary.rule))
        expect(SECRET_RULES_BEFORE[adversary.rule]!(small)).toBe(adversary.matches)
      expect(rule(adversary.rule).test(small)).toBe(adversary.matches)
      const large = adversary.make(MAX_RULE_INPUT_BYTES)
      expect(large.length).toBeGreaterThan(MAX_RULE_INPUT_BYTES - 64)
      expect(rule(adversary.rule).test(large)).toBe(adversary.matches)
    },
  )
})
