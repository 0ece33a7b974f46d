/**
 * Secret-rule benchmark: the time each rule takes on its adversarial inputs
 * (test/support/secret-adversaries.ts), before (the old patterns, test/support/secret-rules-before.ts,
 * where a rule had one) and after (src/core/secret-rules.ts), at 8 KB, 64 KB and the maximum input
 * (1 MB, after only: the old quadratic patterns take minutes there); then the corpus' rates per
 * write path and per rule family, and the cost of one check (bench/secrets-corpus.ts). Each timing
 * is the median of `--runs` (default 5).
 *
 * Usage: `npm run bench:secrets [-- --runs 5] [--import-every 1]`. Prints tables, then one JSON line.
 */
import os from 'node:os'
import { performance } from 'node:perf_hooks'

import { SECRET_RULES } from '../src/core/secret-rules.js'
import { ADVERSARIES, MAX_RULE_INPUT_BYTES } from '../test/support/secret-adversaries.js'
import { SECRET_RULES_BEFORE } from '../test/support/secret-rules-before.js'
import { f2, stats } from './bench-stats.js'
import { costs, familyRates, pathRates } from './secrets-corpus.js'

const i = process.argv.indexOf('--runs')
const RUNS = i === -1 ? 5 : Number(process.argv[i + 1])
const e = process.argv.indexOf('--import-every')
const IMPORT_EVERY = e === -1 ? 1 : Number(process.argv[e + 1])

function median(test: (t: string) => unknown, text: string): number {
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
  const before = SECRET_RULES_BEFORE[a.rule]
  const t8 = a.make(8192)
  const t64 = a.make(65536)
  return {
    rule: a.rule,
    input: a.name,
    before8k: before === undefined ? Number.NaN : median(before, t8),
    before64k: before === undefined ? Number.NaN : median(before, t64),
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
const paths = await pathRates(IMPORT_EVERY)
const families = familyRates()
const cost = await costs(RUNS)
console.log(
  JSON.stringify({
    bench: 'secrets',
    runs: RUNS,
    load: os.loadavg()[0],
    rows,
    paths,
    families,
    cost,
  }),
)
