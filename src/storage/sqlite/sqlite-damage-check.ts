/*
 * The background damage check of a SQLite file (docs/storage.md#damage-verify-and-salvage):
 * SQLite's full `integrity_check` (which, unlike the open-time `quick_check`, compares every index
 * with its table, so a flipped byte in a key column shows) and a scan of the key columns for ids
 * no write stores. It runs in a worker thread on its own read-only connection: it takes no lock
 * from writers (WAL) and never blocks the server's event loop, whatever the file's size.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/** Key columns whose values are ids (printable ASCII, 1–128 characters) in every written row. */
export const KEY_COLUMNS: readonly (readonly [string, string])[] = [
  ['memories', 'memory_id'],
  ['memories', 'scope_id'],
  ['memory_versions', 'memory_id'],
  ['memory_versions', 'scope_id'],
  ['memory_changes', 'memory_id'],
  ['memory_changes', 'scope_id'],
  ['memory_heads', 'memory_id'],
  ['memory_heads', 'scope_id'],
]

/** At most this many problems are listed per check (SQLite's own default is 100). */
const MAX_PROBLEMS = 20

// The worker's program: plain CommonJS, so it runs the same from the sources and from dist/.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const problems = []
let db
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  for (const r of db.pragma('integrity_check(' + workerData.max + ')')) {
    for (const line of String(Object.values(r)[0]).split('\\n')) {
      const l = line.trim()
      if (l !== '' && l !== 'ok' && !/^\\*\\*\\* in database \\w+ \\*\\*\\*$/.test(l)) problems.push('SQLite integrity_check: ' + l)
    }
  }
  for (const [table, column] of workerData.keys) {
    const bad = db.prepare('SELECT rowid AS id, ' + column + ' AS v FROM ' + table + ' NOT INDEXED WHERE typeof(' + column + ") <> 'text' OR " + column + " GLOB '*[^!-~]*' OR length(" + column + ') NOT BETWEEN 1 AND 128 LIMIT ' + workerData.max).all()
    for (const b of bad) problems.push(table + ' row ' + b.id + ': ' + column + ' is not a well-formed id (' + JSON.stringify(String(b.v)) + ')')
  }
} catch (err) {
  problems.push('damage check stopped: ' + err.message)
} finally {
  if (db !== undefined) db.close()
}
parentPort.postMessage(problems)
`

/**
 * Runs the damage check of the file at `file` in a worker thread; resolves with the problems
 * found (empty when sound). Never rejects: a check that cannot run is one problem.
 */
export function runDamageCheck(file: string): Promise<string[]> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { file, driver, keys: KEY_COLUMNS, max: MAX_PROBLEMS },
    })
    let settled = false
    const done = (problems: string[]): void => {
      if (settled) return
      settled = true
      resolve(problems)
    }
    worker.once('message', (problems: string[]) => done(problems))
    worker.once('error', (err) => done([`damage check stopped: ${err.message}`]))
    worker.once('exit', (code) => done(code === 0 ? [] : [`damage check stopped: exit ${code}`]))
  })
}
