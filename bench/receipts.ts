/**
 * Receipts benchmark: what recording receipts and reading them for the brief cost a prepare.
 *
 * - Fills a fresh file database (temp dir) with `--size` memories in one scope, a third each of
 *   kind constraint, preference and decision.
 * - The session-start brief (`runtime.prepareContext` without a query) `--calls` times with no
 *   receipt in the database, then again after `--receipts` recorded briefs of as many sessions
 *   (the standing memories are then read from the receipts).
 * - A recall (`--calls` LoCoMo-like questions) with and without a `receipt`, interleaved: the
 *   recording is written after the answer, so the two should not differ.
 * Wall and CPU time p50/p95 after `--warmup` calls each.
 *
 * Usage: `npm run bench:receipts [-- --size 2000 --receipts 2000 --calls 200 --warmup 20]`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'

import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { locomoQuestions, memoryTexts } from './bench-data.js'
import { f2, type Stats, stats, timed, type Timing } from './bench-stats.js'

const SCOPE = 'git:github.com/bench/receipts'
const KINDS = ['constraint', 'preference', 'decision'] as const
const OPTIONS = { size: 2000, receipts: 2000, calls: 200, warmup: 20 }

function parseOptions(argv: readonly string[]): typeof OPTIONS {
  const opts = { ...OPTIONS }
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]!.replace(/^--/, '') as keyof typeof OPTIONS
    const n = Number(argv[i + 1])
    if (!(key in opts) || !Number.isInteger(n) || n < 1) throw new Error(`bad argument ${argv[i]}`)
    opts[key] = n
  }
  return opts
}

const receipt = (session: string, event: string) => ({
  host: 'claude-code',
  sessionId: session,
  event,
})

async function measure(n: number, warmup: number, call: (i: number) => Promise<unknown>) {
  const t: Timing = { ms: [], cpu: [] }
  for (let i = 0; i < warmup + n; i++) await timed(t, i >= warmup, () => call(i))
  return { wall: stats(t.ms), cpu: stats(t.cpu) }
}

const opts = parseOptions(process.argv.slice(2))
const dir = mkdtempSync(join(os.tmpdir(), 'powercontext-bench-receipts-'))
try {
  const runtime = await MemoryRuntime.open({ dataDir: dir })
  const texts = memoryTexts(opts.size, 3)
  for (let i = 0; i < texts.length; i += 100) {
    const entries = texts.slice(i, i + 100).map((text, j) => ({ kind: KINDS[(i + j) % 3]!, text }))
    await runtime.remember({ scopeId: SCOPE, entries })
  }
  const brief = () => runtime.prepareContext({ scopeId: SCOPE })
  const before = await measure(opts.calls, opts.warmup, brief)
  for (let i = 0; i < opts.receipts; i++)
    await runtime.prepareContext({ scopeId: SCOPE, receipt: receipt(`s${i}`, 'session_start') })
  await runtime.receipts.settle()
  const after = await measure(opts.calls, opts.warmup, brief)
  const questions = locomoQuestions(opts.calls + opts.warmup, 4).map((q) => q.question)
  const plain: Timing = { ms: [], cpu: [] }
  const recorded: Timing = { ms: [], cpu: [] }
  for (const [i, query] of questions.entries()) {
    const keep = i >= opts.warmup
    const without = () =>
      timed(plain, keep, () => runtime.prepareContext({ scopeId: SCOPE, query }))
    const withReceipt = () =>
      timed(recorded, keep, () =>
        runtime.prepareContext({
          scopeId: SCOPE,
          query,
          receipt: receipt('r', 'user_prompt_submit'),
        }),
      )
    if (i % 2 === 0) await without().then(withReceipt)
    else await withReceipt().then(without)
  }
  await runtime.close()
  const row = (name: string, s: { wall: Stats; cpu: Stats }) =>
    `${name.padEnd(40)} ${f2(s.wall.p50).padStart(8)} ${f2(s.wall.p95).padStart(8)} ${f2(s.cpu.p50).padStart(8)}`
  const out = [
    `memories ${opts.size}, receipts ${opts.receipts}, node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map(f2).join(' ')}`,
    `${''.padEnd(40)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'CPU p50'.padStart(8)}`,
    row('brief, no receipts', before),
    row(`brief, ${opts.receipts} receipts`, after),
    row('recall, no receipt', { wall: stats(plain.ms), cpu: stats(plain.cpu) }),
    row('recall, receipt recorded', { wall: stats(recorded.ms), cpu: stats(recorded.cpu) }),
  ]
  process.stdout.write(`${out.join('\n')}\n`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
