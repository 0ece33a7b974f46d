/*
 * `powercontext server run` as a child process on an ephemeral loopback port (needs the build:
 * `npm test` runs it first), for tests and benchmarks with several servers on one database.
 */
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { PowerContextClientError } from '../src/client/index.js'

const BIN = fileURLToPath(new URL('../bin/powercontext.js', import.meta.url))
/** The built CLI entry the servers run (tests check it exists first). */
export const DIST_MAIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))

/** Outcomes a racing request may legitimately get. */
export const RACE_CODES = new Set(['revision_conflict', 'state_conflict'])

/** A started server: its base URL, its process and its stderr so far. */
export interface ServerProcess {
  readonly url: string
  readonly proc: ChildProcess
  readonly stderr: () => string
}

/**
 * Every server child still running: killed when this process exits, even by a crash that skips
 * `stopAll` (an uncaught error in a benchmark would otherwise leave servers running, and
 * ticking, under the next run's measurements).
 */
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const p of running) p.kill('SIGKILL')
})

/** Servers started by one test file; `stopAll` in afterAll. */
export class ServerProcesses {
  readonly #procs: ChildProcess[] = []
  readonly #homes: string[] = []

  /**
   * Starts a server on `databaseUrl`; resolves once it listens. Its data directory (settings file,
   * extraction budget) is a fresh temporary one, never the user's: a `server-settings.json` left
   * there (e.g. `extract_with` by `powercontext setup`) would change what the server does.
   */
  start(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
    const home = mkdtempSync(join(tmpdir(), 'pc-server-home-'))
    this.#homes.push(home)
    return this.#start(BIN, ['--database', databaseUrl], { POWERCONTEXT_HOME: home, ...extraEnv })
  }

  /**
   * Starts a server on the embedded SQLite database of `dataDir`; `bin` runs another build of the
   * CLI (e.g. a benchmark comparing with the main checkout).
   */
  startDataDir(dataDir: string, extraEnv: Record<string, string> = {}, bin = BIN) {
    return this.#start(bin, ['--data-dir', dataDir], extraEnv)
  }

  #start(
    bin: string,
    database: readonly string[],
    extraEnv: Record<string, string>,
  ): Promise<ServerProcess> {
    const env = { ...process.env }
    delete env['POWERCONTEXT_SERVER_AUTH_TOKEN']
    delete env['POWERCONTEXT_SERVER_DATA_DIR']
    const proc = spawn(
      process.execPath,
      [bin, 'server', 'run', ...database, '--host', '127.0.0.1', '--port', '0'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...env, POWERCONTEXT_SERVER_LOG_LEVEL: 'warn', ...extraEnv },
      },
    )
    this.#procs.push(proc)
    running.add(proc)
    proc.once('exit', () => running.delete(proc))
    let stderr = ''
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 60_000)
      proc.stderr!.setEncoding('utf8')
      proc.stderr!.on('data', (chunk: string) => {
        stderr += chunk
        const m = /listening on (http:\/\/\S+)/.exec(stderr)
        if (m !== null) {
          clearTimeout(timer)
          resolve({ url: m[1]!, proc, stderr: () => stderr })
        }
      })
      proc.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`server exited with ${code}: ${stderr}`))
      })
    })
  }

  /** Stops every server (SIGTERM) and waits for them to exit. */
  async stopAll(): Promise<void> {
    const procs = this.#procs.splice(0)
    for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM')
    await Promise.all(
      procs.map((p) => new Promise((r) => (p.exitCode === null ? p.once('exit', r) : r(null)))),
    )
    for (const home of this.#homes.splice(0)) rmSync(home, { recursive: true, force: true })
  }
}

/** Runs `call`; a PowerContext error with a racing code resolves to undefined. */
export async function raced<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call()
  } catch (err) {
    if (err instanceof PowerContextClientError && RACE_CODES.has(err.code)) return undefined
    throw err
  }
}
