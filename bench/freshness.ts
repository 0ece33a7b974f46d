/**
 * Freshness benchmark (docs/agents.md "Freshness"): prepared-context recall (a query, the hooks'
 * `UserPromptSubmit` path) p50/p95 in a scope without anchors and in one where every memory is
 * anchored to code, on the embedded SQLite backend. The goal: anchoring never slows the hook —
 * p50 with anchors ≤ 1.2 × p50 without.
 *
 * One file database, three scopes filled with the same `--memories` LoCoMo memory texts:
 * - `plain`: memories remembered without sources (no anchors);
 * - `anchored`: `--outcomes` task-outcome sources (3 paths each of a pool of 2,000), each cited by
 *   memories in turn, then `--commits` Git change sources (2 paths each) captured after them, so
 *   most memories are marked possibly stale and every recall runs the freshness lookup in full;
 * - `evidence`: the same task outcomes cited the same way, but no later commit: what having
 *   evidence costs apart from anchoring (the versions' sources are read and checked).
 * Then `--queries` LoCoMo questions are prepared in the three scopes, interleaved, after
 * `--warmup`; wall and CPU time of each prepare. The ratios: anchored / plain (the goal) and
 * anchored / evidence (anchoring alone). The fill uses `synchronous = NORMAL` (speed of the fill
 * only; reads are unaffected).
 *
 * Usage: `npm run bench:freshness [-- --memories 10000 --commits 5000 --outcomes 1000
 * --queries 300 --warmup 30]`
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

import { TASK_OUTCOME_MEDIA_TYPE } from '../src/core/extraction-rules.js'
import { GIT_CHANGE_MEDIA_TYPE, gitChangeSource } from '../src/core/git-change.js'
import { prepareContext } from '../src/runtime/context-preparer.js'
import type { RememberEntry } from '../src/storage/spi/memory-backend.js'
import { SqliteMemoryBackend } from '../src/storage/sqlite/sqlite-memory-backend.js'
import { parseFlags, positiveInt } from './bench-args.js'
import { locomoQuestions, memoryTexts, mulberry32 } from './bench-data.js'
import { f2, stats } from './bench-stats.js'

const opts = { memories: 10_000, commits: 5000, outcomes: 1000, queries: 300, warmup: 30 }
parseFlags(process.argv.slice(2), {
  '--memories': (v, f) => (opts.memories = positiveInt(f, v)),
  '--commits': (v, f) => (opts.commits = positiveInt(f, v)),
  '--outcomes': (v, f) => (opts.outcomes = positiveInt(f, v)),
  '--queries': (v, f) => (opts.queries = positiveInt(f, v)),
  '--warmup': (v, f) => (opts.warmup = positiveInt(f, v)),
})

const PATHS = Array.from({ length: 2000 }, (_, i) => `src/module-${i % 50}/file-${i}.ts`)
const rng = mulberry32(7)
const pick = (n: number): string[] => {
  const out = new Set<string>()
  while (out.size < n) out.add(PATHS[Math.floor(rng() * PATHS.length)]!)
  return [...out]
}
const SCOPES = ['plain', 'anchored', 'evidence'] as const
type Scope = (typeof SCOPES)[number]
const EVIDENCE_SCOPES: readonly Scope[] = ['anchored', 'evidence']
const hex = (i: number, width = 40): string => i.toString(16).padStart(width, '0')

async function fill(backend: SqliteMemoryBackend, texts: readonly string[]): Promise<void> {
  const started = performance.now()
  for (let i = 0; i < opts.outcomes; i++) {
    const changedPaths = pick(3)
    for (const scopeId of EVIDENCE_SCOPES)
      await backend.captureSource({
        scopeId,
        sourceId: `outcome-${i}`,
        content: JSON.stringify({
          task: `task ${i}`,
          outcome: 'done',
          summary: `summary ${i}`,
          changed_paths: changedPaths,
          git_head: hex(i + 1),
        }),
        mediaType: TASK_OUTCOME_MEDIA_TYPE,
      })
  }
  for (const scopeId of SCOPES) {
    for (let i = 0; i < texts.length; i += 100) {
      const entries: RememberEntry[] = texts.slice(i, i + 100).map((text, j) => ({
        kind: 'fact',
        text,
        ...(EVIDENCE_SCOPES.includes(scopeId)
          ? {
              sources: [
                { name: 'content' as const, sourceId: `outcome-${(i + j) % opts.outcomes}` },
              ],
            }
          : {}),
      }))
      await backend.remember({ scopeId, entries })
    }
  }
  await new Promise((r) => setTimeout(r, 5))
  for (let i = 0; i < opts.commits; i++) {
    const c = gitChangeSource({
      commit: hex(1_000_000 + i),
      parents: [hex(999_999 + i)],
      authorDate: '2026-12-01T10:00:00+00:00',
      message: `change ${i}`,
      paths: pick(2).map((path) => ({ status: 'M', path, additions: 1, deletions: 1 })),
    })
    await backend.captureSource({
      scopeId: 'anchored',
      sourceId: c.sourceId,
      content: c.content,
      mediaType: GIT_CHANGE_MEDIA_TYPE,
      metadata: c.metadata,
    })
  }
  console.log(`fill: ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'pc-bench-freshness-'))
  const database = join(dir, 'bench.sqlite')
  try {
    const filling = await SqliteMemoryBackend.open({ database, synchronous: 'NORMAL' })
    await fill(filling, memoryTexts(opts.memories))
    await filling.close()
    const backend = await SqliteMemoryBackend.open({ database })
    const questions = locomoQuestions(opts.queries + opts.warmup).map((q) => q.question)
    const times = { plain: [], anchored: [], evidence: [] } as Record<Scope, number[]>
    const cpu = { plain: [], anchored: [], evidence: [] } as Record<Scope, number[]>
    const lookups: number[] = []
    let marked = 0
    for (const [i, query] of questions.entries()) {
      for (const scopeId of SCOPES) {
        const c0 = process.cpuUsage()
        const t0 = performance.now()
        const r = await prepareContext(backend, { scopeId, query })
        const ms = performance.now() - t0
        const c = process.cpuUsage(c0)
        if (i >= opts.warmup) {
          times[scopeId].push(ms)
          cpu[scopeId].push((c.user + c.system) / 1000)
        }
        if (scopeId !== 'anchored') continue
        marked += r.items.filter((it) => it.stale !== undefined).length
        const refs = r.items.map((it) => it.memoryRef)
        const t1 = performance.now()
        await backend.freshness({ scopeId, refs })
        if (i >= opts.warmup) lookups.push(performance.now() - t1)
      }
    }
    await backend.close()
    const wall = Object.fromEntries(SCOPES.map((s) => [s, stats(times[s])])) as Record<
      Scope,
      ReturnType<typeof stats>
    >
    const cpu50 = Object.fromEntries(SCOPES.map((s) => [s, stats(cpu[s]).p50])) as Record<
      Scope,
      number
    >
    console.log(
      `memories ${opts.memories} per scope, commits ${opts.commits}, outcomes ${opts.outcomes}, ` +
        `queries ${opts.queries} (warmup ${opts.warmup}); load average ${os.loadavg().map(f2).join(' ')}`,
    )
    for (const s of SCOPES)
      console.log(
        `prepare ${s.padEnd(8)}: p50 ${f2(wall[s].p50)} ms, p95 ${f2(wall[s].p95)} ms, ` +
          `CPU p50 ${f2(cpu50[s])} ms`,
      )
    console.log(`freshness lookup alone (the rendered items): p50 ${f2(stats(lookups).p50)} ms`)
    console.log(`stale items rendered: ${marked} (all queries)`)
    const ratio = (a: Scope, b: Scope) =>
      `p50 ${f2(wall[a].p50 / wall[b].p50)}, CPU p50 ${f2(cpu50[a] / cpu50[b])}`
    console.log(`ratio anchored / plain:    ${ratio('anchored', 'plain')} (goal ≤ 1.2)`)
    console.log(`ratio anchored / evidence: ${ratio('anchored', 'evidence')} (anchoring alone)`)
    console.log(`ratio evidence / plain:    ${ratio('evidence', 'plain')} (having evidence)`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
