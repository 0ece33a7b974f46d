/**
 * Search quality on LoCoMo (the public long-conversation memory benchmark): this retrieval
 * protocol, run through the real runtime.
 *
 * 1. One scope per conversation; every dialogue turn becomes one `fact` memory with the text
 *    `"[<session date_time>] <speaker>: <text>"`, remembered in batches of 100 (no model).
 * 2. Every question of categories 1–4 whose evidence holds at least one id of the form `D<n>:<m>`
 *    searches its scope with the question text, `limit = 10`, in the mode under test.
 * 3. Hit@10 = share of questions with an evidence turn among the hits; MRR = mean 1/rank of the
 *    first evidence hit (0 if none); Recall@10 = mean share of the (distinct, well-formed)
 *    evidence ids found. A turn whose text repeats an earlier turn of its scope is the same
 *    memory, so both ids count as found when that memory is hit.
 *
 * All scopes live in one database and are loaded before the first search.
 *
 * With `--via prepare`, every question also asks `prepareContext` of its scope (8,000 bytes, what
 * the agent hooks inject) and the run reports, beside search's Hit@10, the share of questions with
 * an evidence turn among the prepared context's items (what the agent actually sees), the items
 * and bytes it holds on average, and how many evidence items were truncated.
 *
 * Usage: `npm run bench:locomo [-- --mode fts|hybrid] [--via search|prepare] [--data PATH]`; the
 * LoCoMo dev split (`locomo-dev.json`, not shipped with this repository) is `--data PATH`, else
 * the file named by `POWERCONTEXT_LOCOMO_DATA`. Prints a table per
 * conversation and overall, then one JSON line with every figure.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'

import { PowerContextError } from '../src/core/errors.js'
import { PREPARE_MAX_ITEMS } from '../src/core/prepared-context.js'
import { MemoryRuntime } from '../src/runtime/memory-runtime.js'

const LIMIT = 10
const BATCH = 100
const EVIDENCE_ID = /^D\d+:\d+$/
const DEFAULT_DATA = process.env['POWERCONTEXT_LOCOMO_DATA']
const MODES = ['fts', 'hybrid'] as const
type Mode = (typeof MODES)[number]
const VIAS = ['search', 'prepare'] as const
type Via = (typeof VIAS)[number]
/** The hooks' recall budget (integrations/shared/budgets.mjs `RECALL_MAX_BYTES`). */
const PREPARE_MAX_BYTES = 8000

interface Options {
  readonly mode: Mode
  readonly via: Via
  readonly data: string
}

interface Turn {
  readonly speaker: string
  readonly dia_id: string
  readonly text: string
}

interface Qa {
  readonly question: string
  readonly evidence?: readonly string[]
  readonly category: number
}

interface Conversation {
  readonly sample_id: string
  readonly conversation: Readonly<Record<string, unknown>>
  readonly qa: readonly Qa[]
}

/** Sums over the questions of one conversation (or all of them). */
interface Tally {
  questions: number
  hits: number
  reciprocalRanks: number
  recall: number
  searchMs: number
  /** Questions with an evidence turn among the first {@link PREPARE_MAX_ITEMS} hits. */
  hitsAtItems: number
  /** `--via prepare`: questions with an evidence turn among the prepared items. */
  inContext: number
  /** `--via prepare`: items and content bytes over all questions, truncated evidence items. */
  items: number
  bytes: number
  truncatedEvidence: number
}

const emptyTally = (): Tally => ({
  questions: 0,
  hits: 0,
  reciprocalRanks: 0,
  recall: 0,
  searchMs: 0,
  hitsAtItems: 0,
  inContext: 0,
  items: 0,
  bytes: 0,
  truncatedEvidence: 0,
})

interface Row {
  readonly name: string
  readonly memories: number
  readonly questions: number
  readonly hitAt10: number
  readonly mrr: number
  readonly recallAt10: number
  readonly meanSearchMs: number
  readonly hitAtItems: number
  readonly inContext: number
  readonly meanItems: number
  readonly meanBytes: number
  readonly truncatedEvidence: number
}

function parseOptions(argv: readonly string[]): Options {
  let mode: Mode = 'fts'
  let via: Via = 'search'
  let data = DEFAULT_DATA === undefined ? undefined : resolve(DEFAULT_DATA)
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] = arg.includes('=') ? arg.split('=', 2) : [arg, undefined]
    const value = (): string => {
      const v = inline ?? argv[++i]
      if (v === undefined || v === '') throw new Error(`${flag} needs a value`)
      return v
    }
    switch (flag) {
      case '--mode': {
        const m = value()
        if (!(MODES as readonly string[]).includes(m)) {
          throw new Error(`--mode must be one of ${MODES.join(', ')}`)
        }
        mode = m as Mode
        break
      }
      case '--via': {
        const v = value()
        if (!(VIAS as readonly string[]).includes(v)) {
          throw new Error(`--via must be one of ${VIAS.join(', ')}`)
        }
        via = v as Via
        break
      }
      case '--data':
        data = resolve(value())
        break
      default:
        throw new Error(`unknown argument ${arg}`)
    }
  }
  if (data === undefined)
    throw new Error('give the LoCoMo dev split with --data PATH or POWERCONTEXT_LOCOMO_DATA')
  return { mode, via, data }
}

const scopeOf = (conv: Conversation): string => `locomo-${conv.sample_id}`

/** The protocol texts of one conversation, with the dialogue id of each turn. */
function turnsOf(conv: Conversation): { diaId: string; text: string }[] {
  const sessions = Object.keys(conv.conversation)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b)
  return sessions.flatMap((s) => {
    const dateTime = conv.conversation[`session_${s}_date_time`] as string
    const turns = conv.conversation[`session_${s}`] as readonly Turn[]
    return turns.map((t) => ({ diaId: t.dia_id, text: `[${dateTime}] ${t.speaker}: ${t.text}` }))
  })
}

function row(name: string, memories: number, t: Tally): Row {
  const n = Math.max(1, t.questions)
  return {
    name,
    memories,
    questions: t.questions,
    hitAt10: t.hits / n,
    mrr: t.reciprocalRanks / n,
    recallAt10: t.recall / n,
    meanSearchMs: t.searchMs / n,
    hitAtItems: t.hitsAtItems / n,
    inContext: t.inContext / n,
    meanItems: t.items / n,
    meanBytes: t.bytes / n,
    truncatedEvidence: t.truncatedEvidence,
  }
}

function table(rows: readonly Row[], via: Via): string {
  const prepared = via === 'prepare'
  const header = [
    'conversation',
    'memories',
    'questions',
    'Hit@10',
    'MRR',
    'Recall@10',
    'ms/search',
    ...(prepared
      ? [`Hit@${PREPARE_MAX_ITEMS}`, 'in context', 'items', 'bytes', 'cut evidence']
      : []),
  ]
  const body = rows.map((r) => [
    r.name,
    String(r.memories),
    String(r.questions),
    r.hitAt10.toFixed(3),
    r.mrr.toFixed(3),
    r.recallAt10.toFixed(3),
    r.meanSearchMs.toFixed(2),
    ...(prepared
      ? [
          r.hitAtItems.toFixed(3),
          r.inContext.toFixed(3),
          r.meanItems.toFixed(2),
          r.meanBytes.toFixed(0),
          String(r.truncatedEvidence),
        ]
      : []),
  ])
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((cells) => cells[c]!.length)))
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`
  const rule = `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`
  return [line(header), rule, ...body.map(line)].join('\n')
}

/** Remembers every turn of one conversation in its own scope; returns dialogue id → memory id. */
async function load(runtime: MemoryRuntime, conv: Conversation): Promise<Map<string, string>> {
  const scopeId = scopeOf(conv)
  const turns = turnsOf(conv)
  const memoryOf = new Map<string, string>()
  for (let i = 0; i < turns.length; i += BATCH) {
    const batch = turns.slice(i, i + BATCH)
    const { results } = await runtime.remember({
      scopeId,
      entries: batch.map((t) => ({ kind: 'fact', text: t.text })),
    })
    results.forEach((r, k) => memoryOf.set(batch[k]!.diaId, r.memory.memoryRef.artifactId))
  }
  return memoryOf
}

/** Runs the scored questions of one conversation against its scope. */
async function evaluate(
  runtime: MemoryRuntime,
  conv: Conversation,
  memoryOf: ReadonlyMap<string, string>,
  opts: Options,
): Promise<Tally> {
  const tally = emptyTally()
  for (const qa of conv.qa) {
    if (qa.category < 1 || qa.category > 4 || typeof qa.question !== 'string') continue
    const evidence = [...new Set((qa.evidence ?? []).filter((e) => EVIDENCE_ID.test(e)))]
    if (evidence.length === 0) continue
    const started = performance.now()
    const { hits } = await runtime.search({
      scopeId: scopeOf(conv),
      query: qa.question,
      limit: LIMIT,
      mode: opts.mode,
    })
    tally.searchMs += performance.now() - started
    const ranked = hits.map((h) => h.memoryRef.artifactId)
    const ranks = evidence.map((e) => {
      const id = memoryOf.get(e)
      return id === undefined ? -1 : ranked.indexOf(id)
    })
    const found = ranks.filter((r) => r >= 0)
    tally.questions += 1
    tally.recall += found.length / evidence.length
    if (found.length > 0) {
      tally.hits += 1
      tally.reciprocalRanks += 1 / (Math.min(...found) + 1)
      if (Math.min(...found) < PREPARE_MAX_ITEMS) tally.hitsAtItems += 1
    }
    if (opts.via === 'prepare') {
      const ids = new Set(evidence.map((e) => memoryOf.get(e)))
      const prepared = await runtime.prepareContext({
        scopeId: scopeOf(conv),
        query: qa.question,
        maxBytes: PREPARE_MAX_BYTES,
      })
      const cited = prepared.items.filter((item) => ids.has(item.memoryRef.artifactId))
      if (cited.length > 0) tally.inContext += 1
      tally.truncatedEvidence += cited.filter((item) => item.truncated).length
      tally.items += prepared.items.length
      tally.bytes += prepared.contentBytes
    }
  }
  return tally
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2))
  let conversations: Conversation[]
  try {
    conversations = JSON.parse(readFileSync(opts.data, 'utf8')) as Conversation[]
  } catch (err) {
    throw new Error(`cannot read the LoCoMo split at ${opts.data} (use --data PATH)`, {
      cause: err,
    })
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'powercontext-bench-locomo-'))
  const runtime = await MemoryRuntime.open({ dataDir: dir })
  const started = performance.now()
  try {
    const rows: Row[] = []
    const total = emptyTally()
    let memories = 0
    // Every scope is loaded before the first search, so all questions see the same index (bm25
    // statistics are per database, not per scope).
    const loaded: Map<string, string>[] = []
    for (const conv of conversations) {
      process.stderr.write(`[bench:locomo] loading ${conv.sample_id}\n`)
      loaded.push(await load(runtime, conv))
    }
    for (const [c, conv] of conversations.entries()) {
      process.stderr.write(`[bench:locomo] searching ${conv.sample_id}\n`)
      const memoryOf = loaded[c]!
      const tally = await evaluate(runtime, conv, memoryOf, opts)
      const count = new Set(memoryOf.values()).size
      rows.push(row(conv.sample_id, count, tally))
      memories += count
      for (const k of Object.keys(total) as (keyof Tally)[]) total[k] += tally[k]
    }
    const overall = row('overall', memories, total)
    console.log(
      `\nLoCoMo retrieval (${opts.data})\nmode ${opts.mode}, limit ${LIMIT}` +
        (opts.via === 'prepare' ? `, and prepared context (${PREPARE_MAX_BYTES} bytes)` : '') +
        '; ' +
        `${overall.questions} questions over ${conversations.length} conversations\n`,
    )
    console.log(table([...rows, overall], opts.via))
    console.log()
    const secs = (performance.now() - started) / 1000
    const round = (_k: string, v: unknown): unknown =>
      typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(4)) : v
    console.log(
      JSON.stringify(
        {
          bench: 'locomo',
          mode: opts.mode,
          via: opts.via,
          limit: LIMIT,
          data: opts.data,
          questions: overall.questions,
          hitAt10: overall.hitAt10,
          mrr: overall.mrr,
          recallAt10: overall.recallAt10,
          ...(opts.via === 'prepare'
            ? {
                prepareMaxBytes: PREPARE_MAX_BYTES,
                hitAtItems: overall.hitAtItems,
                inContext: overall.inContext,
                meanItems: overall.meanItems,
                meanBytes: overall.meanBytes,
                truncatedEvidence: overall.truncatedEvidence,
              }
            : {}),
          conversations: rows,
          totalSecs: secs,
        },
        round,
      ),
    )
  } catch (err) {
    if (err instanceof PowerContextError && err.code === 'capability_not_supported') {
      console.error(
        `search mode ${opts.mode} is not available in this runtime (capability_not_supported): ` +
          `${err.message}`,
      )
      process.exitCode = 2
      return
    }
    throw err
  } finally {
    await runtime.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
