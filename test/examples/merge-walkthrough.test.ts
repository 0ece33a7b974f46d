import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

import { describe, expect, it } from 'vitest'

const SCRIPT = fileURLToPath(new URL('../../examples/merge-walkthrough.mjs', import.meta.url))
const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url))

describe('docs/merges.md walk-through', () => {
  it('runs as documented: restoring B undoes E then C', () => {
    expect(existsSync(DIST), 'dist/ is missing: run npm run build first').toBe(true)
    const out = execFileSync(process.execPath, [SCRIPT], { encoding: 'utf8' }).trim().split('\n')
    expect(out).toEqual([
      'merge A,B → C: inputs now A=merged, B=merged',
      'merge C,D → E: inputs now C=merged, D=merged',
      'search finds: E',
      'preview restore B: restore [A@1, B@1, D@1], retire [C@1, E@1], leaving search [E@1]',
      'restore B (restored): restored [A@1, B@1, D@1], retired [C@1, E@1]',
      'search finds: B',
      'history of C: state retired; merges undone C←A+B; undone E←C+D',
      'verify: ok',
    ])
  })
})
