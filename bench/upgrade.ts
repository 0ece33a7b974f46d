/**
 * Upgrade benchmark: `admin upgrade-from-reference` of a Python-reference SQLite
 * database of `--scopes` × `--entries` entries (default 100 × 1,000 = 100,000 entries; 20 %
 * revised, 5 % deactivated, a source per 10 entries, the memory cursor at the end), written by
 * `test/fixtures/reference/make_reference_db.py --profile bench` and cached in the temp dir.
 *
 * Each phase runs in a fresh child process with a 128 MB V8 heap cap (a phase whose memory grew with
 * the data would fail), so its peak RSS (`maxRSS`) is its own:
 * - `baseline`: open and close a runtime on an empty data directory (the process floor);
 * - `read floor`: read every reference row the upgrade reads, in the same pages, and parse every
 *   payload (no writes) — the reading floor;
 * - `upgrade`: the upgrade itself (preflight + one transaction per scope), a progress line on
 *   stderr every second;
 * - `verify`, `export` (to a file) and `import` (into a fresh directory) of the result.
 *
 * Usage: `npm run bench:upgrade [-- --scopes 100 --entries 1000 --keep DIR]`. Prints a table, then
 * one JSON line with every figure. Absolute times vary with the machine's load; the ratios to the
 * read floor in the same run are the comparable figures.
 */
import { execFileSync, fork } from 'node:child_process'
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import Database from 'better-sqlite3'

import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { paged } from '../src/storage/engine/maintenance/paged.js'
import { parseExportLine } from '../src/storage/engine/maintenance/row-transfer.js'
import { f1, int } from './bench-stats.js'

const SCRIPT = fileURLToPath(
  new URL('../test/fixtures/reference/make_reference_db.py', import.meta.url),
)

/** V8 heap limit of every phase's process (MB). */
const HEAP_CAP_MB = 128

interface Phase {
  readonly phase: string
  readonly ms: number
  readonly maxRssMb: number
  readonly detail: string
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback
}

async function readFloor(reference: string): Promise<string> {
  const db = new Database(reference, { readonly: true })
  let rows = 0
  let bytes = 0
  const scan = async (table: string, columns: string, size: number, parse: (r: Row) => void) => {
    const sql = `SELECT rowid AS k, ${columns} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?`
    const page = async (after: number, limit: number) => db.prepare(sql).all(after, limit) as Row[]
    for await (const r of paged(0, size, page, (x) => Number(x['k']))) {
      parse(r)
      rows += 1
    }
  }
  const json = (v: unknown): void => {
    const b = v as Buffer
    JSON.parse(b.toString('utf8'))
    bytes += b.length
  }
  await scan('pc_sources', 'payload', 200, (r) => json(r['payload']))
  await scan('pc_artifacts', 'content', 4, (r) => json(r['content']))
  await scan('pc_memory_entry_versions', 'text, source_refs, artifact_refs', 500, (r) => {
    json(r['source_refs'])
    json(r['artifact_refs'])
    bytes += String(r['text']).length
  })
  db.close()
  return `${int(rows)} rows, ${f1(bytes / 1e6)} MB parsed`
}

type Row = Record<string, unknown>

async function child(phase: string, reference: string, dir: string): Promise<void> {
  const started = performance.now()
  let detail = ''
  if (phase === 'baseline') {
    const rt = await MemoryRuntime.open({ dataDir: join(dir, 'baseline') })
    await rt.close()
  } else if (phase === 'read floor') {
    detail = await readFloor(reference)
  } else if (phase === 'upgrade') {
    const rt = await MemoryRuntime.open({ dataDir: join(dir, 'upgraded') })
    let last = 0
    const report = await rt.upgradeFromReference(reference, {
      onProgress: (p) => {
        const now = performance.now()
        if (now - last < 1000) return
        last = now
        process.stderr.write(
          `  ${p.phase}: ${p.phase === 'upgrade' ? `scope ${p.scopesDone + 1}/${p.scopesTotal}, ${int(p.versions)} versions` : `${p.scopesDone} scopes read`} (${f1((now - started) / 1000)} s)\n`,
        )
      },
    })
    await rt.close()
    if (report.outcome !== 'upgraded') throw new Error(`upgrade ended ${report.outcome}`)
    const m = report.moved
    detail = `${int(m.entries)} entries, ${int(m.versions)} versions, ${int(m.sources)} sources, ${int(m.scopes)} scopes`
  } else if (phase === 'verify') {
    const rt = await MemoryRuntime.open({ dataDir: join(dir, 'upgraded') })
    const v = await rt.verify()
    await rt.close()
    if (!v.ok) throw new Error(`verify failed: ${v.problems.slice(0, 3).join('; ')}`)
    detail = `ok, ${int(v.counts.versions)} versions`
  } else if (phase === 'export') {
    const rt = await MemoryRuntime.open({ dataDir: join(dir, 'upgraded') })
    const out = createWriteStream(join(dir, 'export.jsonl'))
    const counts = await rt.exportRows(async (r) => {
      if (!out.write(`${JSON.stringify(r)}\n`))
        await new Promise<void>((ok) => out.once('drain', () => ok()))
    })
    await new Promise<void>((ok) => out.end(() => ok()))
    await rt.close()
    detail = `${int(Object.values(counts).reduce((a, b) => a + b, 0))} rows, ${f1(statSync(join(dir, 'export.jsonl')).size / 1e6)} MB`
  } else if (phase === 'import') {
    const { createInterface } = await import('node:readline')
    const { createReadStream } = await import('node:fs')
    const rt = await MemoryRuntime.open({ dataDir: join(dir, 'imported') })
    async function* lines() {
      let n = 0
      for await (const line of createInterface({
        input: createReadStream(join(dir, 'export.jsonl')),
      })) {
        n += 1
        if (line !== '') yield parseExportLine(line, n)
      }
    }
    const report = await rt.importRows(lines())
    await rt.close()
    detail = `${int(report.heads)} heads projected`
  }
  const result: Phase = {
    phase,
    ms: performance.now() - started,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    detail,
  }
  process.send?.(result)
}

function run(phase: string, reference: string, dir: string): Promise<Phase> {
  return new Promise((resolve, reject) => {
    const c = fork(
      fileURLToPath(import.meta.url),
      ['--child', phase, '--reference', reference, '--dir', dir],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        // A heap cap proves the phase's memory is bounded: one that needs more fails the bench.
        execArgv: [...process.execArgv, `--max-old-space-size=${HEAP_CAP_MB}`],
      },
    )
    let got: Phase | undefined
    c.on('message', (m) => (got = m as Phase))
    c.on('exit', (code) =>
      got === undefined ? reject(new Error(`${phase} exited ${code}`)) : resolve(got),
    )
  })
}

async function parent(): Promise<void> {
  const scopes = Number(arg('scopes', '100'))
  const entries = Number(arg('entries', '1000'))
  const reference = join(os.tmpdir(), `pc-bench-reference-${scopes}x${entries}.db`)
  if (!existsSync(reference)) {
    process.stderr.write(
      `writing the reference database ${reference} (≈ 1 min for 100,000 entries)…\n`,
    )
    execFileSync(
      'python3',
      [
        SCRIPT,
        reference,
        '--profile',
        'bench',
        '--scopes',
        String(scopes),
        '--entries',
        String(entries),
      ],
      {
        stdio: 'inherit',
      },
    )
  }
  const keep = arg('keep', '')
  const dir = keep === '' ? mkdtempSync(join(os.tmpdir(), 'pc-bench-upgrade-')) : keep
  const phases: Phase[] = []
  try {
    for (const phase of ['baseline', 'read floor', 'upgrade', 'verify', 'export', 'import']) {
      process.stderr.write(`${phase}…\n`)
      phases.push(await run(phase, reference, dir))
    }
  } finally {
    if (keep === '') rmSync(dir, { recursive: true, force: true })
  }
  const floor = phases.find((p) => p.phase === 'read floor')?.ms ?? 1
  console.log(
    `reference: ${scopes} scopes × ${entries} entries, ${f1(statSync(reference).size / 1e6)} MB; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  )
  console.log('| phase | time | × read floor | peak RSS | what |')
  console.log('| --- | ---: | ---: | ---: | --- |')
  for (const p of phases) {
    console.log(
      `| ${p.phase} | ${f1(p.ms / 1000)} s | ${f1(p.ms / floor)} | ${int(p.maxRssMb)} MB | ${p.detail} |`,
    )
  }
  console.log(JSON.stringify({ scopes, entries, phases }))
}

if (process.argv.includes('--child')) {
  await child(arg('child', ''), arg('reference', ''), arg('dir', ''))
} else {
  await parent()
}
