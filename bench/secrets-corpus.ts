/**
 * The secret rules' detection on the corpus (test/support/secret-corpus.ts) and their cost, for
 * `npm run bench:secrets`: per write path (through a real SQLite backend) the share of the
 * credentials refused and of the negatives refused; per rule family, what that family's rules
 * alone match; per credential kind and leak form, what the full list keeps out; the cost of one
 * check (ours, secretlint's own `lintSource`) and of loading secretlint's preset.
 */
import { spawnSync } from 'node:child_process'
import { performance } from 'node:perf_hooks'

import { lintSource } from '@secretlint/core'
import { creator as preset } from '@secretlint/secretlint-rule-preset-recommend'

import { GENERIC_RULES, SECRET_RULES, secretFinder } from '../src/core/secret-rules.js'
import { openSqliteBackend } from '../src/storage/sqlite/index.js'
import { negativeCorpus, secretCorpus } from '../test/support/secret-corpus.js'
import { tryWrite, WRITE_PATHS } from '../test/support/secret-paths.js'
import { f2, stats } from './bench-stats.js'

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`

/** Per path: credentials and negatives refused (`every`: the import path's sampling). */
export async function pathRates(every: number) {
  const secrets = secretCorpus()
  const negatives = negativeCorpus()
  const open = () => openSqliteBackend({ database: ':memory:' })
  const backend = await open()
  const rows = []
  for (const path of WRITE_PATHS) {
    const step = path === 'import' ? every : 1
    const s = secrets.filter((_x, i) => i % step === 0)
    const n = negatives.filter((_x, i) => i % step === 0)
    let kept = 0
    let wrong = 0
    for (const x of s) if (await tryWrite(path, x.text, backend, open)) kept += 1
    for (const x of n) if (await tryWrite(path, x, backend, open)) wrong += 1
    rows.push({ path, secrets: s.length, kept, negatives: n.length, refused: wrong })
  }
  await backend.close()
  console.log(`\nwrite paths: ${secrets.length} credentials, ${negatives.length} negatives`)
  console.log('| path | credentials refused | negatives refused |')
  console.log('| --- | ---: | ---: |')
  for (const r of rows)
    console.log(
      `| ${r.path} | ${r.kept}/${r.secrets} (${pct(r.kept, r.secrets)}) | ${r.refused}/${r.negatives} (${pct(r.refused, r.negatives)}) |`,
    )
  return rows
}

/** Per rule family (alone) and per kind and form (the full list). */
export function familyRates() {
  const secrets = secretCorpus()
  const negatives = negativeCorpus()
  const families = [...new Set(SECRET_RULES.map((r) => r.family))]
  const rows = families.map((family) => {
    const rules = SECRET_RULES.filter((r) => r.family === family)
    const find = secretFinder(rules)
    return {
      family,
      rules: rules.length,
      matched: secrets.filter((s) => find(s.text) !== undefined).length,
      refused: negatives.filter((t) => find(t) !== undefined).length,
    }
  })
  console.log('\nrule families (each alone; `provider` is secretlint’s recommended preset)')
  console.log('| family | rules | credentials matched | negatives matched |')
  console.log('| --- | ---: | ---: | ---: |')
  for (const r of rows)
    console.log(
      `| ${r.family} | ${r.rules} | ${r.matched}/${secrets.length} (${pct(r.matched, secrets.length)}) | ${r.refused}/${negatives.length} |`,
    )
  const all = secretFinder(SECRET_RULES)
  const by = (key: 'kind' | 'form') => {
    const groups = new Map<string, { n: number; kept: number }>()
    for (const s of secrets) {
      const g = groups.get(s[key]) ?? { n: 0, kept: 0 }
      g.n += 1
      if (all(s.text) !== undefined) g.kept += 1
      groups.set(s[key], g)
    }
    return [...groups].map(([name, g]) => `${name} ${pct(g.kept, g.n)} (${g.kept}/${g.n})`)
  }
  console.log(`\nkept out per kind: ${by('kind').join(', ')}`)
  console.log(`kept out per form: ${by('form').join(', ')}`)
  return rows
}

const median = (xs: number[]) => stats(xs).p50

/** Cost of one check, and of loading secretlint's preset in a fresh process. */
export async function costs(runs: number) {
  const short = 'We decided to deploy the API on Fridays only, after the staging checks pass.'
  const long = `${short}\n`.repeat(8192 / (short.length + 1))
  const full = secretFinder(SECRET_RULES)
  const generic = secretFinder(GENERIC_RULES)
  const per = (f: (t: string) => unknown, t: string, n: number) => {
    const samples: number[] = []
    for (let r = 0; r < runs; r += 1) {
      const start = performance.now()
      for (let i = 0; i < n; i += 1) f(t)
      samples.push((performance.now() - start) / n)
    }
    return median(samples)
  }
  const lint = async (t: string, n: number) => {
    const config = { rules: [{ id: preset.meta.id, rule: preset }] }
    const samples: number[] = []
    for (let r = 0; r < runs; r += 1) {
      const start = performance.now()
      for (let i = 0; i < n; i += 1)
        await lintSource({
          source: { filePath: 'x.txt', content: t, contentType: 'text' },
          options: { config },
        })
      samples.push((performance.now() - start) / n)
    }
    return median(samples)
  }
  const rows = [
    { check: 'generic rules', short: per(generic, short, 2000), long: per(generic, long, 200) },
    {
      check: 'full list (generic + secretlint, as the server runs it)',
      short: per(full, short, 2000),
      long: per(full, long, 200),
    },
    {
      check: 'secretlint’s own lintSource (preset, async)',
      short: await lint(short, 500),
      long: await lint(long, 100),
    },
  ]
  const load = (specifier: string) => {
    const samples: number[] = []
    for (let r = 0; r < runs; r += 1) {
      const out = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t)`,
        ],
        { encoding: 'utf8' },
      )
      samples.push(Number(out.stdout.trim()))
    }
    return median(samples)
  }
  const loads = {
    preset: load('@secretlint/secretlint-rule-preset-recommend'),
    generic: load(new URL('../integrations/shared/secret-rules.mjs', import.meta.url).href),
  }
  console.log(
    `\ncost of one check, ms (median of ${runs}), clean text of ${short.length} B and ${long.length} B`,
  )
  console.log('| check | short | 8 KB |')
  console.log('| --- | ---: | ---: |')
  for (const r of rows) console.log(`| ${r.check} | ${f2(r.short)} | ${f2(r.long)} |`)
  console.log(
    `import in a fresh process, ms (median of ${runs}): secretlint preset ${f2(loads.preset)}, generic rules ${f2(loads.generic)}`,
  )
  return { rows, loads }
}
