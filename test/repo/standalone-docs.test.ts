/* The standalone-docs check (scripts/standalone-docs-check.ts, run by `npm run static`). */
import { describe, expect, it } from 'vitest'

import { findOutsideReferences } from '../../scripts/standalone-docs-check.js'

const flagged = (line: string): boolean => findOutsideReferences('f.ts', line).length > 0

describe('the standalone-docs check', () => {
  it.each([
    ' * The flush window policy (DESIGN §6), pure',
    'see DESIGN.md',
    '/** Validation of the commands (STYLE R2: every rule once) */',
    'as STYLE.md says',
    '## Damage checks (issue 29)',
    '([benchmarks](benchmarks.md#damage-checks-issue-29))',
    '// Issue 12 item 19: --help loads no driver',
    ' * Search benchmark (issue "Vector and hybrid search")',
    'RRF constant (reference §1.4)',
    'the same scope id (reference facts §9)',
    'MVP conformance is L2 only (memory-family RFC)',
    "so that the spec's Vec1 extension can replace it",
    ' * (DESIGN §6, remote-access spec "Source capture")',
    ' * spec "先检索，再由模型决定"): one call',
    'the Git change source (seed 000)',
    "const DATA = resolve(ROOT, '../shared/data/locomo/locomo-dev.json')",
  ])('flags %s', (line) => {
    expect(flagged(line)).toBe(true)
  })

  it.each([
    'observed_at: RFC 3339 time the fact became true',
    'Leap seconds (RFC 3339 §5.7): the instant that follows',
    'canonical JSON (RFC 8785)',
    "import { runHook } from '../../shared/run-hook.mjs'",
    'for (const spec of specifiers(text)) {',
    "'what formatter and code style do we use?'",
    'Planning of a flush window (docs/sources-and-flush.md)',
    'as the Python reference does',
  ])('leaves %s', (line) => {
    expect(flagged(line)).toBe(false)
  })

  it('names the file, the line and the kind of reference', () => {
    expect(findOutsideReferences('docs/x.md', 'fine\n## Galera (issue 14)\n')).toEqual([
      'docs/x.md:2: [numbered issue] ## Galera (issue 14)',
    ])
  })
})
