/**
 * The secret rules run in linear time (issue 12 item 7) and match exactly what they matched
 * before. Properties (fast-check): on texts built from every rule's fragments, each rewritten rule
 * agrees with its old pattern (test/support/secret-rules-before.ts); the adversarial inputs of
 * test/support/secret-adversaries.ts get their known answer at 8 KB (old and new alike) and at the
 * maximum input size (new only: the old patterns take minutes there). No timing is asserted:
 * `npm run bench:secrets` measures it.
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

describe('secret rules: the same answers as before, in linear time', () => {
  it('every rule is covered by the oracle and by an adversary', () => {
    expect(Object.keys(SECRET_RULES_BEFORE).sort()).toEqual(SECRET_RULES.map((r) => r.name).sort())
    for (const r of SECRET_RULES)
      expect(
        ADVERSARIES.some((a) => a.rule === r.name),
        r.name,
      ).toBe(true)
  })

  it.each(SECRET_RULES.map((r) => r.name))('%s agrees with its old pattern', (name) => {
    const before = SECRET_RULES_BEFORE[name]!
    fc.assert(
      fc.property(text, (t) => rule(name).test(t) === before(t)),
      { numRuns: 400 },
    )
  })

  it('findSecret answers the first rule the old patterns matched', () => {
    const firstBefore = (t: string) =>
      SECRET_RULES.map((r) => r.name).find((n) => SECRET_RULES_BEFORE[n]!(t))
    fc.assert(
      fc.property(text, (t) => findSecret(t)?.rule === firstBefore(t)),
      { numRuns: 400 },
    )
  })

  it.each(ADVERSARIES.map((a) => [a.rule, a.name, a] as const))(
    '%s: %s gets its answer at 8 KB (old and new) and at the maximum size',
    (_rule, _name, adversary) => {
      const small = adversary.make(8192)
      expect(SECRET_RULES_BEFORE[adversary.rule]!(small)).toBe(adversary.matches)
      expect(rule(adversary.rule).test(small)).toBe(adversary.matches)
      const large = adversary.make(MAX_RULE_INPUT_BYTES)
      expect(large.length).toBeGreaterThan(MAX_RULE_INPUT_BYTES - 64)
      expect(rule(adversary.rule).test(large)).toBe(adversary.matches)
    },
  )
})
