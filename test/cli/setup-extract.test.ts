/**
 * Set up in one step: `setup claude-code` (its CLI on PATH) writes `extract_with` to the data
 * directory's server settings file, and `server run` on that directory extracts with the user's
 * own `claude` (capabilities: provider, budget, automatic flush, backstop), its readiness saying
 * the CLI is not logged in in a fresh home; the environment wins over the file.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

const BIN = resolve('bin/powercontext.js')
const BIN_DIR = resolve('node_modules/.bin')
const dirs: string[] = []
const temp = (p: string): string => {
  const d = mkdtempSync(join(tmpdir(), p))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

async function serverCaps(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ caps: Record<string, unknown>; ready: Record<string, unknown> }> {
  const proc = spawn(
    process.execPath,
    [BIN, 'server', 'run', '--data-dir', dataDir, '--port', '0'],
    {
      env: { ...process.env, POWERCONTEXT_SERVER_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  try {
    const url = await new Promise<string>((ok, fail) => {
      let err = ''
      proc.stderr.on('data', (d: Buffer) => {
        err += d.toString()
        const m = /listening on (http:\/\/\S+)/.exec(err)
        if (m !== null) ok(m[1]!)
      })
      proc.once('exit', () => fail(new Error(err)))
    })
    const caps = (await (await fetch(`${url}/v1/capabilities`)).json()) as Record<string, unknown>
    const ready = (await (await fetch(`${url}/health/ready`)).json()) as Record<string, unknown>
    return { caps, ready }
  } finally {
    proc.kill('SIGTERM')
    await new Promise((r) => proc.once('exit', r))
  }
}

describe('setup --extract-with and the server settings file', () => {
  it('setup writes the host as the provider; server run reads it; env wins over the file', async () => {
    const home = temp('pc-setup-home-')
    const project = temp('pc-setup-project-')
    const dataDir = join(home, 'data')
    const env = { ...process.env, HOME: home, PATH: `${BIN_DIR}:${process.env['PATH'] ?? ''}` }
    const setup = spawnSync(
      process.execPath,
      [BIN, '--data-dir', dataDir, 'setup', 'claude-code', '--project', project],
      { env, encoding: 'utf8' },
    )
    expect(setup.status).toBe(0)
    expect(setup.stdout).toMatch(/extraction {2}claude-code: the server runs your own `claude -p`/)
    const file = join(dataDir, 'server-settings.json')
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ extract_with: 'claude-code' })

    const { caps, ready } = await serverCaps(dataDir, { HOME: home, PATH: env.PATH })
    const extraction = caps['extraction'] as Record<string, unknown>
    expect(extraction['provider']).toBe('claude-code')
    expect(extraction['mode']).toBe('model')
    expect(extraction['auto_flush']).toBe(true)
    expect(extraction['schedule_seconds']).toBe(900)
    expect(extraction['budget']).toMatchObject({ calls_per_day: 120, tokens_per_day: 1_500_000 })
    expect((ready['checks'] as Record<string, string>)['inference.generation']).toBe(
      'unavailable: claude is not logged in (run `claude auth login`)',
    )

    const overridden = await serverCaps(dataDir, {
      HOME: home,
      POWERCONTEXT_SERVER_EXTRACT_WITH: 'none',
    })
    expect((overridden.caps['extraction'] as Record<string, unknown>)['provider']).toBeNull()
  })

  it('without the CLI on PATH, setup leaves the provider unchanged and says how to choose', () => {
    const home = temp('pc-setup-home-')
    const project = temp('pc-setup-project-')
    const r = spawnSync(
      process.execPath,
      [BIN, '--data-dir', join(home, 'data'), 'setup', 'codex', '--project', project],
      { env: { ...process.env, HOME: home, PATH: '/nonexistent' }, encoding: 'utf8' },
    )
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('extraction  unchanged: `codex` is not on PATH; pass --extract-with')
  })
})
