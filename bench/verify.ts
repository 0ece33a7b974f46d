/**
 * What finding damage costs (docs/storage.md#damage-verify-and-salvage): writes `--memories`
 * memories (default 10,000, in batches of 100, every tenth updated once) to a temp file, then
 * times, `--rounds` times each (default 3, median printed): SQLite's `quick_check`, its full
 * `integrity_check`, the background check (`integrity_check`
 * plus the key-shape scan, in a worker thread) and `admin verify` (integrity_check plus every
 * row check). `npm run bench:verify -- --memories 100000`.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

import Database from 'better-sqlite3'

import { openSqliteBackend } from '../src/storage/sqlite/index.js'
import { runDamageCheck } from '../src/storage/sqlite/sqlite-damage-check.js'
import { writeSampleMemories } from './sqlite-sample.js'

const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
  },
})
const memories = Number(values.memories)
const rounds = Number(values.rounds)
const dir = mkdtempSync(join(tmpdir(), 'pc-bench-verify-'))
const file = join(dir, 'powercontext.db')

async function median(label: string, work: () => unknown): Promise<void> {
  const times: number[] = []
  for (let r = 0; r < rounds; r += 1) {
    const t = performance.now()
    await work()
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  const m = times[Math.floor(times.length / 2)] ?? 0
  console.log(`${label}: median ${m.toFixed(0)} ms of ${rounds}`)
}

try {
  await writeSampleMemories(file, memories, 10)
  console.log(`${memories} memories, ${(statSync(file).size / 1e6).toFixed(1)} MB`)
  const db = new Database(file, { readonly: true })
  await median('quick_check (main thread)', () => db.pragma('quick_check'))
  await median('integrity_check (main thread)', () => db.pragma('integrity_check'))
  db.close()
  await median('background damage check (worker thread, wall time)', () => runDamageCheck(file))
  const backend = await openSqliteBackend({ database: file, vectorAnn: false })
  await median('admin verify (integrity_check + every row check)', () => backend.verify())
  await backend.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
