/**
 * Cost of `admin redact` on SQLite (docs/storage.md "Redaction"): for each of `--sizes`, a file
 * database holds that many LoCoMo-derived memories (`remember` in batches of 100); one version is
 * then redacted and the redaction's transaction and its erase steps (FTS5 optimize, VACUUM, WAL
 * checkpoint) are timed, `--runs` times on fresh versions. The erase rewrites the whole file, so
 * its cost grows with the database's size.
 *
 * Usage: `npm run bench:redact [-- --sizes 1000,10000,50000 --runs 3]`. Prints a table, then one
 * JSON line.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

import { openSqliteBackend } from '../src/storage/sqlite/index.js'
import { parseFlags, positiveInt } from './bench-args.js'
import { memoryTexts } from './bench-data.js'
import { f2, stats } from './bench-stats.js'

const SCOPE = 'bench-redact'
const opts = { sizes: [1000, 10_000, 50_000], runs: 3 }
parseFlags(process.argv.slice(2), {
  '--sizes': (v, flag) => (opts.sizes = (v ?? '').split(',').map((s) => positiveInt(flag, s))),
  '--runs': (v, flag) => (opts.runs = positiveInt(flag, v)),
})

const rows: Record<string, unknown>[] = []
for (const size of opts.sizes) {
  const dir = mkdtempSync(join(os.tmpdir(), 'pc-bench-redact-'))
  const file = join(dir, 'bench.db')
  const backend = await openSqliteBackend({ database: file })
  try {
    const texts = memoryTexts(size)
    const refs = []
    for (let i = 0; i < texts.length; i += 100) {
      const entries = texts.slice(i, i + 100).map((text) => ({ kind: 'fact', text }))
      const r = await backend.remember({ scopeId: SCOPE, entries })
      refs.push(...r.results.map((x) => x.memory.memoryRef))
    }
    const total: number[] = []
    const erase: number[] = []
    for (let run = 0; run < opts.runs; run += 1) {
      const ref = refs[run * 7]!
      const started = performance.now()
      const r = await backend.redact({ scopeId: SCOPE, target: { memoryRef: ref } })
      total.push(performance.now() - started)
      erase.push(r.erasure?.ms ?? 0)
    }
    const t = stats(total)
    const e = stats(erase)
    rows.push({ size, fileMB: statSync(file).size / 2 ** 20, totalP50: t.p50, eraseP50: e.p50 })
    console.log(
      `${String(size).padStart(6)} memories  file ${f2(statSync(file).size / 2 ** 20)} MB  redact p50 ${f2(t.p50)} ms (erase ${f2(e.p50)} ms)`,
    )
  } finally {
    await backend.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
console.log(JSON.stringify({ bench: 'redact', runs: opts.runs, rows }))
