/**
 * Secret-rule benchmark (issue 12 item 7): the time each rule takes on its adversarial inputs
 * (test/support/secret-adversaries.ts), before (the old patterns, test/support/secret-rules-before.ts)
 * and after (src/core/secret-rules.ts), at 8 KB, 64 KB and the maximum input (1 MB, after only:
 * the old quadratic patterns take minutes there). Each figure is the median of `--runs` (default 5).
 *
 * Usage: `npm run bench:secrets [-- --runs 5]`. Prints a table, then one JSON line.
 */
import os from 'node:os'
import { performance } from 'node:perf_hooks'

import { SECRET_RULES } from '../src/core/secret-rules.js'
import { ADVERSARIES, MAX_RULE_INPUT_BYTES } from '../test/support/secret-adversaries.js'
import { SECRET_RULES_BEFORE } from '../test/support/secret-rules-before.js'
import { f2, stats } from './bench-stats.js'

const i = process.argv.indexOf('--runs')
const RUNS = i === -1 ? 5 : Number(process.argv[i + 1])

function median(test: (t: string) => boolean, text: string): number {
  const samples: number[] = []
  for (let r = 0; r < RUNS; r += 1) {
    const start = performance.now()
    test(text)
    samples.push(performance.now() - start)
  }
  return stats(samples).p50
}

const rows = ADVERSARIES.map((a) => {
  const after = SECRET_RULES.find((r) => r.name === a.rule)!.test
  const before = SECRET_RULES_BEFORE[a.rule]!
  const t8 = a.make(8192)
  const t64 = a.make(65536)
  return {
    rule: a.rule,
    input: a.name,
    before8k: median(before, t8),
    before64k: median(before, t64),
    after8k: median(after, t8),
    after64k: median(after, t64),
    after1m: median(after, a.make(MAX_RULE_INPUT_BYTES)),
  }
})
console.log(
  `secret rules on adversarial inputs, median of ${RUNS}, load ${os.loadavg()[0]!.toFixed(2)}`,
)
console.log('| rule | input | before 8 KB | before 64 KB | after 8 KB | after 64 KB | after 1 MB |')
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |')
for (const r of rows)
  console.log(
    `| ${r.rule} | ${r.input} | ${f2(r.before8k)} | ${f2(r.before64k)} | ${f2(r.after8k)} | ${f2(r.after64k)} | ${f2(r.after1m)} |`,
  )
console.log(JSON.stringify({ bench: 'secrets', runs: RUNS, load: os.loadavg()[0], rows }))
