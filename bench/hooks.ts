/**
 * Hook benchmark: what a prompt costs the agent with PowerContext's hooks.
 *
 * - Fills a fresh file database (temp dir) with `--size` LoCoMo-derived memories in one scope.
 * - Server side, in-process on that database: `--queries` LoCoMo questions, each through
 *   `runtime.prepareContext` (8,000 bytes, what the hook asks) and `runtime.search` (limit 8),
 *   interleaved in rotating order after `--warmup`; p50/p95 of wall and CPU time and the ratios
 *   prepare / search (CPU time is what a busy machine leaves comparable).
 * - Then starts the real server (`startServer`) on that database, on 127.0.0.1, and a temporary
 *   git repository whose origin resolves to the scope, and spawns the Claude Code hook program
 *   (`integrations/claude-code/hooks/powercontext-hook.mjs`) `--runs` times with a
 *   `UserPromptSubmit` payload (a new LoCoMo question each run: recall, then prompt capture, as
 *   installed), interleaved with `node -e 0` (the floor: starting Node at all). Wall time from
 *   spawn to exit; p50/p95 of each, the hook's p50 over the floor, and the share of runs that
 *   injected a context.
 *
 * Usage: `npm run bench:hooks [-- --size 10000 --queries 300 --warmup 30 --runs 60]`.
 * Prints a table, then one JSON line with every figure.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { startServer } from '../src/http/server-run.js'
import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { f1, f2, type Stats, stats, timed, type Timing } from './bench-stats.js'

const SCOPE = 'git:github.com/bench/hooks'
const ORIGIN = 'git@github.com:bench/hooks.git'
const BATCH = 100
const SEED = 1
const HOOK = fileURLToPath(
  new URL('../integrations/claude-code/hooks/powercontext-hook.mjs', import.meta.url),
)

interface Options {
  size: number
  queries: number
  warmup: number
  runs: number
}

function parseOptions(argv: readonly string[]): Options {
  const opts: Options = { size: 10_000, queries: 300, warmup: 30, runs: 60 }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] = arg.includes('=') ? arg.split('=', 2) : [arg, undefined]
    const key = flag?.replace(/^--/, '') as keyof Options
    if (!(key in opts)) throw new Error(`unknown argument ${arg}`)
    const n = Number(inline ?? argv[++i])
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer`)
    opts[key] = n
  }
  return opts
}

const progress = (message: string): void => void process.stderr.write(`[bench:hooks] ${message}\n`)

/** Spawn → exit wall time of one process, with its stdout. */
function timeProcess(
  args: readonly string[],
  input: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    child.on('error', reject)
    child.on('close', () => resolve({ ms: performance.now() - started, stdout, stderr }))
    child.stdin.on('error', () => undefined)
    child.stdin.end(input)
  })
}

async function serverSide(runtime: MemoryRuntime, opts: Options) {
  const questions = locomoQuestions(opts.warmup + opts.queries, SEED).map((q) => q.question)
  const prepare: Timing = { ms: [], cpu: [] }
  const search: Timing = { ms: [], cpu: [] }
  let ready = 0
  for (const [i, query] of questions.entries()) {
    const measured = i >= opts.warmup
    const viaPrepare = async () => {
      const r = await timed(prepare, measured, () =>
        runtime.prepareContext({ scopeId: SCOPE, query, maxBytes: 8000 }),
      )
      if (measured && r.status === 'ready') ready++
    }
    const viaSearch = () =>
      timed(search, measured, () => runtime.search({ scopeId: SCOPE, query, limit: 8 }))
    if (i % 2 === 0) await viaPrepare().then(viaSearch)
    else await viaSearch().then(viaPrepare)
  }
  return {
    prepare: stats(prepare.ms),
    search: stats(search.ms),
    prepareCpu: stats(prepare.cpu),
    searchCpu: stats(search.cpu),
    readyShare: ready / opts.queries,
  }
}

async function hookRuns(url: string, repo: string, home: string, opts: Options) {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    POWERCONTEXT_CLIENT_SERVER_URL: url,
  }
  const questions = locomoQuestions(opts.runs + 5, SEED + 1).map((q) => q.question)
  const hookMs: number[] = []
  const floorMs: number[] = []
  let injected = 0
  let diagnostics = 0
  for (const [i, question] of questions.entries()) {
    const measured = i >= 5
    const payload = JSON.stringify({
      session_id: 'bench',
      transcript_path: null,
      cwd: repo,
      permission_mode: 'default',
      hook_event_name: 'UserPromptSubmit',
      prompt: question,
    })
    const hook = async () => {
      const r = await timeProcess([HOOK], payload, env)
      if (!measured) return
      hookMs.push(r.ms)
      if (r.stdout.includes('additionalContext')) injected++
      if (r.stderr !== '') diagnostics++
    }
    const floor = async () => {
      const r = await timeProcess(['-e', '0'], '', env)
      if (measured) floorMs.push(r.ms)
    }
    if (i % 2 === 0) {
      await hook()
      await floor()
    } else {
      await floor()
      await hook()
    }
  }
  return {
    hook: stats(hookMs),
    floor: stats(floorMs),
    injectedShare: injected / opts.runs,
    diagnostics,
  }
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2))
  const dir = mkdtempSync(join(os.tmpdir(), 'powercontext-bench-hooks-'))
  try {
    const dataDir = join(dir, 'data')
    const runtime = await MemoryRuntime.open({ dataDir })
    progress(`filling ${opts.size} memories`)
    const texts = memoryTexts(opts.size, SEED)
    for (let i = 0; i < texts.length; i += BATCH) {
      await runtime.remember({
        scopeId: SCOPE,
        entries: texts.slice(i, i + BATCH).map((text) => ({ kind: 'fact', text })),
      })
    }
    progress(`server side: ${opts.queries} prepare and search calls`)
    const server = await serverSide(runtime, opts)
    await runtime.close()

    const repo = join(dir, 'repo')
    mkdirSync(repo)
    const gitEnv = { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' }
    execFileSync('git', ['init', '-q', repo], { env: gitEnv })
    execFileSync('git', ['remote', 'add', 'origin', ORIGIN], { cwd: repo, env: gitEnv })
    const running = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
    progress(`hook: ${opts.runs} UserPromptSubmit runs beside node -e 0`)
    const hooks = await hookRuns(running.url, repo, dir, opts).finally(() => running.stop())

    const row = (name: string, s: Stats) =>
      `${name.padEnd(34)} ${f2(s.p50).padStart(8)} ${f2(s.p95).padStart(8)}`
    const out = [
      `memories ${opts.size}, node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map(f2).join(' ')}`,
      `${''.padEnd(34)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`,
      row('runtime.prepareContext (8000 B)', server.prepare),
      row('runtime.search (limit 8)', server.search),
      row('  CPU time: prepareContext', server.prepareCpu),
      row('  CPU time: search', server.searchCpu),
      row('hook UserPromptSubmit spawn→exit', hooks.hook),
      row('node -e 0 spawn→exit (floor)', hooks.floor),
      `prepare p50 / search p50: ${f2(server.prepare.p50 / server.search.p50)} (target ≤ 1.5); ` +
        `in CPU time: ${f2(server.prepareCpu.p50 / server.searchCpu.p50)}`,
      `hook p50 − floor p50: ${f1(hooks.hook.p50 - hooks.floor.p50)} ms (target ≤ 60)`,
      `prepare ready: ${f2(server.readyShare)}; hook runs that injected a context: ${f2(hooks.injectedShare)}; with a diagnostic: ${hooks.diagnostics}`,
    ]
    process.stdout.write(`${out.join('\n')}\n`)
    process.stdout.write(
      `${JSON.stringify({ bench: 'hooks', options: opts, server, hooks, load: os.loadavg() })}\n`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
