/*
 * `powercontext server run` as a child process on an ephemeral loopback port (needs the build:
 * `npm test` runs it first), for tests and benchmarks with several servers on one database.
 */
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
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

/** Servers started by one test file; `stopAll` in afterAll. */
export class ServerProcesses {
  readonly #procs: ChildProcess[] = []

  /** Starts a server on `databaseUrl`; resolves once it listens. */
  start(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
    return this.#spawn(['--database', databaseUrl], extraEnv)
  }

  /** Starts a server on an embedded SQLite data directory; resolves once it listens. */
  startOnDataDir(dataDir: string, extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
    return this.#spawn(['--data-dir', dataDir], extraEnv)
  }

  #spawn(storage: readonly string[], extraEnv: Record<string, string>): Promise<ServerProcess> {
    const env = { ...process.env }
    delete env['POWERCONTEXT_SERVER_AUTH_TOKEN']
    delete env['POWERCONTEXT_SERVER_DATA_DIR']
    const proc = spawn(
      process.execPath,
      [BIN, 'server', 'run', ...storage, '--host', '127.0.0.1', '--port', '0'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...env, POWERCONTEXT_SERVER_LOG_LEVEL: 'warn', ...extraEnv },
      },
    )
    this.#procs.push(proc)
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
