/*
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the `COMMIT` that
 * takes the WAL past 1,000 pages: it copies every page of the WAL into the database file and
 * fsyncs it, synchronously, on the connection's thread — ≈ half the time of a large write's COMMIT
 * (`remember` of 100 × 8 KB), added to a request's stall at random. So the server's connection
 * turns the automatic checkpoint off and a worker thread, on its own connection to the same file,
 * runs `PRAGMA wal_checkpoint(PASSIVE)` after writes once the WAL is that large: a passive
 * checkpoint takes no lock a writer needs (WAL), and commits stay as durable as before (each is
 * fsynced to the WAL under `synchronous = FULL`; the checkpoint fsyncs the database file). If the
 * worker cannot run, the connection's automatic checkpoint is turned back on, so the WAL never
 * grows without bound.
 */
import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

import type Database from 'better-sqlite3'

/** WAL pages past which a checkpoint runs (SQLite's own automatic-checkpoint default). */
export const CHECKPOINT_PAGES = 1000

/**
 * Bytes of WAL file kept when a write starts the WAL over after a checkpoint (`journal_size_limit`):
 * SQLite otherwise keeps the file at its largest, and its size would stop telling how much the
 * WAL holds — every later write would look due. Small writes still reuse the kept megabyte.
 */
export const WAL_KEPT_BYTES = 1024 * 1024

/**
 * Least time between two checkpoints, ms: when one cannot copy the whole WAL (a reader still uses
 * it), the WAL is not started over and stays large; the writes of that time go with the next.
 */
const CHECKPOINT_GAP_MS = 1000

// The worker's program: plain CommonJS, so it runs the same from the sources and from dist/.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file, { fileMustExist: true })
db.pragma('busy_timeout = 5000')
db.pragma('synchronous = FULL')
db.pragma('wal_autocheckpoint = 0')
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close()
    parentPort.close()
    return
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
    parentPort.postMessage('done')
  } catch (err) {
    parentPort.postMessage('failed: ' + err.message)
  }
})
`

/**
 * Checkpoints one database file's WAL in a worker thread (started once the WAL is large). The
 * caller runs {@link checkpoint} holding the connection's transaction lock (awaiting, so the event
 * loop stays free): no transaction of this connection is open while it runs, so the next write
 * finds the WAL fully copied and starts it over from the beginning instead of growing it.
 */
export class WalCheckpointer {
  readonly #db: Database.Database
  readonly #file: string
  readonly #driver: string
  readonly #threshold: number
  #worker: Worker | undefined
  #failed = false
  #running = false
  #lastRun = Number.NEGATIVE_INFINITY
  #done: (() => void) | undefined

  /**
   * Turns the connection's automatic checkpoint off; {@link checkpoint} takes over. `driver` is the
   * module the worker loads (better-sqlite3; a test names a missing one to see the fallback).
   */
  constructor(
    db: Database.Database,
    file: string,
    driver = createRequire(import.meta.url).resolve('better-sqlite3'),
  ) {
    this.#db = db
    this.#file = file
    this.#driver = driver
    this.#threshold = CHECKPOINT_PAGES * (db.pragma('page_size', { simple: true }) as number)
    db.pragma('wal_autocheckpoint = 0')
    db.pragma(`journal_size_limit = ${WAL_KEPT_BYTES}`)
  }

  /** After a committed write: true when a checkpoint should run (the WAL is large). */
  due(): boolean {
    if (this.#failed || this.#running) return false
    if (performance.now() - this.#lastRun < CHECKPOINT_GAP_MS) return false
    return walBytes(this.#file) >= this.#threshold
  }

  /** Runs one passive checkpoint in the worker; resolves when it is done (never rejects). */
  checkpoint(): Promise<void> {
    if (this.#failed || this.#running) return Promise.resolve()
    this.#worker ??= this.#start()
    this.#running = true
    return new Promise<void>((resolve) => {
      this.#done = resolve
      this.#worker?.postMessage('checkpoint')
    })
  }

  #settle(): void {
    this.#running = false
    this.#lastRun = performance.now()
    const done = this.#done
    this.#done = undefined
    done?.()
  }

  #start(): Worker {
    const workerData = { file: this.#file, driver: this.#driver }
    const worker = new Worker(WORKER, { eval: true, workerData })
    worker.unref()
    worker.on('message', (m: string) => {
      if (m !== 'done') this.#fail()
      this.#settle()
    })
    worker.once('error', () => this.#fail())
    worker.once('exit', () => {
      if (this.#worker === worker) this.#fail()
    })
    return worker
  }

  /** The worker cannot checkpoint: the connection checkpoints itself again, as SQLite does. */
  #fail(): void {
    if (!this.#failed) {
      this.#failed = true
      const worker = this.#worker
      this.#worker = undefined
      void worker?.terminate()
      if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`)
    }
    this.#settle()
  }

  /** Stops the worker (called holding the transaction lock, so no checkpoint is under way). */
  async stop(): Promise<void> {
    const worker = this.#worker
    this.#worker = undefined
    this.#failed = true
    if (worker === undefined) return
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    // Held while it closes: unreferenced, a process with nothing else to do would exit here,
    // before the close resolves (a script's last `await backend.close()` left unsettled).
    worker.ref()
    worker.postMessage('close')
    await exited
  }
}

function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size
  } catch {
    return 0
  }
}
