/**
 * SQLite open time with and without the open-time `quick_check`: writes
 * `--memories` memories (default 20,000, in batches of 100) to a temp file, then opens it with
 * `integrityCheck` false and true, `--rounds` times each (default 3), and prints the median.
 * `npm run bench:open -- --memories 100000`.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

import { openSqliteBackend } from '../src/storage/sqlite/index.js'
import { writeSampleMemories } from './sqlite-sample.js'

const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
  },
})
const memories = Number(values.memories)
const rounds = Number(values.rounds)
const dir = mkdtempSync(join(tmpdir(), 'pc-bench-open-'))
const file = join(dir, 'powercontext.db')
try {
  await writeSampleMemories(file, memories)
  const mb = statSync(file).size / 1e6
  for (const integrityCheck of [false, true]) {
    const times: number[] = []
    for (let r = 0; r < rounds; r += 1) {
      const t = performance.now()
      const backend = await openSqliteBackend({ database: file, vectorAnn: false, integrityCheck })
      times.push(performance.now() - t)
      await backend.close()
    }
    times.sort((a, b) => a - b)
    const median = times[Math.floor(times.length / 2)] ?? 0
    console.log(
      `open ${memories} memories (${mb.toFixed(1)} MB), integrityCheck ${integrityCheck}: median ${median.toFixed(0)} ms of ${rounds}`,
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
