/**
 * CLI start-up benchmark: wall time of the built binary, each run a fresh
 * process, beside `node -e 0` (the floor: starting Node itself). Target: `--version`, `--help` and
 * `--server-url` commands within 3× the floor.
 *
 * - Runs `npm run build` first unless `--no-build`, so `dist/` is what it measures.
 * - Starts the real server (`startServer`) in this process on 127.0.0.1, port 0, on a temp data
 *   directory with one memory; the CLI children reach it over loopback. A local `list` on a temp
 *   data directory (opens SQLite) is measured too, for comparison.
 * - `--rounds` rounds (default 20) after 2 warm-up rounds; every round runs each case once, in
 *   rotating order, so load drifts hit every case alike. Each child is timed from spawn to exit.
 *
 * Usage: `npm run bench:cli [-- --rounds 20]`. Prints a table, then one JSON line.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { createPowerContextClient } from '../src/client/index.js'
import { startServer } from '../src/http/server-run.js'
import { f2, stats } from './bench-stats.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/powercontext.js')
const SCOPE = 'bench-cli'
const WARMUP = 2

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}

function timed(args: readonly string[]): Promise<number> {
  const start = performance.now()
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, POWERCONTEXT_CLIENT_SERVER_URL: '', POWERCONTEXT_CLIENT_API_TOKEN: '' },
  })
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = performance.now() - start
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))
      else resolve(ms)
    })
  })
}

async function main(): Promise<void> {
  const rounds = option('rounds', 20)
  if (!process.argv.includes('--no-build')) execFileSync('npm', ['run', 'build'], { cwd: ROOT })
  const tmp = mkdtempSync(join(os.tmpdir(), 'pc-bench-cli-'))
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(tmp, 'server'),
    logLevel: 'silent',
  })
  try {
    const client = createPowerContextClient({ baseUrl: server.url })
    await client.remember({
      scope_id: SCOPE,
      entries: [{ kind: 'fact', text: 'bench cli memory' }],
    })
    const cases: readonly (readonly [string, readonly string[]])[] = [
      ['node -e 0 (floor)', ['-e', '0']],
      ['powercontext --version', [BIN, '--version']],
      ['powercontext --help', [BIN, '--help']],
      [
        '--server-url … search',
        [BIN, '--server-url', server.url, 'search', '--scope', SCOPE, 'cli'],
      ],
      ['--server-url … list', [BIN, '--server-url', server.url, 'list', '--scope', SCOPE]],
      [
        'local list (opens SQLite)',
        [BIN, '--data-dir', join(tmp, 'local'), 'list', '--scope', SCOPE],
      ],
    ]
    const samples = cases.map(() => [] as number[])
    for (let round = 0; round < WARMUP + rounds; round += 1) {
      for (let k = 0; k < cases.length; k += 1) {
        const i = (round + k) % cases.length
        const ms = await timed(cases[i]![1])
        if (round >= WARMUP) samples[i]!.push(ms)
      }
    }
    const floor = stats(samples[0]!).p50
    const rows = cases.map(([name], i) => {
      const s = stats(samples[i]!)
      return { name, p50: s.p50, p95: s.p95, ratio: s.p50 / floor }
    })
    const load = os.loadavg()[0]!
    console.log(`CLI start-up, ${rounds} rounds, load average ${load.toFixed(2)}`)
    console.log('| case | p50 (ms) | p95 (ms) | p50 / node -e 0 |')
    console.log('| --- | ---: | ---: | ---: |')
    for (const r of rows)
      console.log(`| ${r.name} | ${f2(r.p50)} | ${f2(r.p95)} | ${f2(r.ratio)}× |`)
    console.log(JSON.stringify({ bench: 'cli', rounds, load, rows }))
  } finally {
    await server.stop()
    rmSync(tmp, { recursive: true, force: true })
  }
}

await main()
