/**
 * Freshness benchmark (docs/agents.md "Freshness"): prepared-context recall (a query, the hooks'
 * `UserPromptSubmit` path) p50/p95 in a scope without anchors and in one where every memory is
 * anchored to code, on the embedded SQLite backend. The goal: anchoring never slows the hook —
 * p50 with anchors ≤ 1.2 × p50 without.
 *
 * One file database, two scopes filled with the same `--memories` LoCoMo memory texts:
 * - `plain`: memories remembered without sources (no anchors);
 * - `anchored`: `--outcomes` task-outcome sources (3 paths each of a pool of 2,000), each cited by
 *   memories in turn, then `--commits` Git change sources (2 paths each) captured after them, so
 *   most memories are marked possibly stale and every recall runs the freshness lookup in full.
 * Then `--queries` LoCoMo questions are prepared in both scopes, interleaved, after `--warmup`.
 * The fill uses `synchronous = NORMAL` (speed of the fill only; reads are unaffected).
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
const hex = (i: number, width = 40): string => i.toString(16).padStart(width, '0')

async function fill(backend: SqliteMemoryBackend, texts: readonly string[]): Promise<void> {
  const started = performance.now()
  for (let i = 0; i < opts.outcomes; i++) {
    await backend.captureSource({
      scopeId: 'anchored',
      sourceId: `outcome-${i}`,
      content: JSON.stringify({
        task: `task ${i}`,
        outcome: 'done',
        summary: `summary ${i}`,
        changed_paths: pick(3),
        git_head: hex(i + 1),
      }),
      mediaType: TASK_OUTCOME_MEDIA_TYPE,
    })
  }
  for (const scopeId of ['plain', 'anchored']) {
    for (let i = 0; i < texts.length; i += 100) {
      const entries: RememberEntry[] = texts.slice(i, i + 100).map((text, j) => ({
        kind: 'fact',
        text,
        ...(scopeId === 'anchored'
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
    const times: Record<'plain' | 'anchored', number[]> = { plain: [], anchored: [] }
    const lookups: number[] = []
    let marked = 0
    for (const [i, query] of questions.entries()) {
      for (const scopeId of ['plain', 'anchored'] as const) {
        const t0 = performance.now()
        const r = await prepareContext(backend, { scopeId, query })
        const ms = performance.now() - t0
        if (i >= opts.warmup) times[scopeId].push(ms)
        if (scopeId !== 'anchored') continue
        marked += r.items.filter((it) => it.stale !== undefined).length
        const refs = r.items.map((it) => it.memoryRef)
        const t1 = performance.now()
        await backend.freshness({ scopeId, refs })
        if (i >= opts.warmup) lookups.push(performance.now() - t1)
      }
    }
    await backend.close()
    const plain = stats(times.plain)
    const anchored = stats(times.anchored)
    console.log(
      `memories ${opts.memories} per scope, commits ${opts.commits}, outcomes ${opts.outcomes}, ` +
        `queries ${opts.queries} (warmup ${opts.warmup}); load average ${os.loadavg().map(f2).join(' ')}`,
    )
    console.log(`prepare without anchors: p50 ${f2(plain.p50)} ms, p95 ${f2(plain.p95)} ms`)
    console.log(`prepare with anchors:    p50 ${f2(anchored.p50)} ms, p95 ${f2(anchored.p95)} ms`)
    console.log(`freshness lookup alone (the rendered items): p50 ${f2(stats(lookups).p50)} ms`)
    console.log(`stale items rendered: ${marked} (all queries)`)
    console.log(`p50 ratio (with / without): ${f2(anchored.p50 / plain.p50)} (goal ≤ 1.2)`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
