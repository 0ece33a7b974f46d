/**
 * First run: set-up is `npm ci` (which also builds, through `prepare`) and
 * `npm start` (which serves); `npm test` passes on a machine without MariaDB, whose suites then
 * skip naming why, unless CI or POWERCONTEXT_TEST_MARIADB_URL require them (then they fail).
 * Each is run for real: `npm start` and vitest as child processes.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'pc-first-run-'))
const children: ChildProcess[] = []

afterAll(() => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // the group is gone already
    }
  }
  rmSync(root, { recursive: true, force: true })
})

/** The environment of a child: the caller's, without vitest's own variables, `overrides` applied. */
function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1' }
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('VITEST') && k !== 'NODE_ENV' && k !== 'TEST') env[k] = v
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

function run(
  cmd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  const child = spawn(cmd, args, { cwd: ROOT, env, detached: true })
  children.push(child)
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out }))
  })
}

describe('set-up is two commands', () => {
  it('npm ci builds: the prepare script runs the build', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(pkg.scripts['prepare']).toBe('npm run build')
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const start = readme.indexOf('## Quick start')
    const quickStart = readme.slice(start, readme.indexOf('\n## ', start + 1))
    const commands = [...quickStart.matchAll(/^(npm [a-z]+)/gm)].map((m) => m[1])
    expect(commands.slice(0, 2)).toEqual(['npm ci', 'npm start'])
  })

  it('npm start serves on the data directory until SIGTERM', async () => {
    const child = spawn('npm', ['start'], {
      cwd: ROOT,
      detached: true,
      env: childEnv({
        POWERCONTEXT_HOME: join(root, 'home'),
        POWERCONTEXT_SERVER_PORT: '0',
        POWERCONTEXT_SERVER_HOST: '127.0.0.1',
        POWERCONTEXT_SERVER_DATA_DIR: undefined,
        POWERCONTEXT_SERVER_DATABASE_URL: undefined,
        POWERCONTEXT_SERVER_AUTH_TOKEN: undefined,
      }),
    })
    children.push(child)
    let err = ''
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString()
        const m = /listening on (http:\/\/\S+)/.exec(err)
        if (m !== null) resolve(m[1]!)
      })
      child.on('close', (code) => reject(new Error(`npm start exited ${code}: ${err}`)))
    })
    const live = await fetch(`${url}/health/live`)
    expect(live.status).toBe(200)
    const closed = new Promise<number | null>((r) => child.on('close', r))
    process.kill(-child.pid!, 'SIGTERM')
    await closed
  })
})

describe('npm test without MariaDB', () => {
  const vitest = (env: Record<string, string | undefined>) =>
    run(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', 'test/conformance/mariadb.test.ts'],
      // MYSQL_TCP_PORT=1: the default server is unreachable, as on a machine without MariaDB.
      childEnv({ POWERCONTEXT_TEST_MARIADB_URL: undefined, MYSQL_TCP_PORT: '1', ...env }),
    )

  it('its suites skip, naming the reason, when nothing requires them', async () => {
    const r = await vitest({ CI: undefined })
    expect(r.code, r.out).toBe(0)
    expect(r.out).toMatch(/skipped 1: no MariaDB at 127\.0\.0\.1:1 \(.*\); start it/)
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('0 passed, 0 failed, 1 skipped')
  })

  it('in CI, or with POWERCONTEXT_TEST_MARIADB_URL, an absent MariaDB fails the run', async () => {
    const ci = await vitest({ CI: 'true' })
    expect(ci.code).not.toBe(0)
    expect(ci.out).toContain('MariaDB is required here')
    expect(ci.out.trimEnd().split('\n').at(-1)).toBe('0 passed, 1 failed, 0 skipped')
    const given = await vitest({
      CI: undefined,
      POWERCONTEXT_TEST_MARIADB_URL: 'mysql://root@127.0.0.1:1/test',
    })
    expect(given.code).not.toBe(0)
    expect(given.out).toContain('MariaDB is required here')
  })
})
