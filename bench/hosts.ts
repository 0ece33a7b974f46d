/**
 * Host benchmark: what our integration adds to a real headless agent turn.
 *
 * - Starts a real `powercontext server run` child (embedded SQLite, temp dir) with a few
 *   constraints, decisions, preferences and facts in one project's scope, the scripted model
 *   servers of the real-host tests (Anthropic Messages for Claude Code, OpenAI Responses for
 *   Codex) and the egress guard (any address beyond loopback is refused and counted).
 * - Two git projects with the same origin (the same scope): one set up with `powercontext setup
 *   <host> --project` (hooks + MCP server; for Codex a trusted project whose hooks Codex trusts),
 *   one without anything. Then `--runs` interleaved pairs of the same one-reply turn (`claude -p`
 *   / `codex exec`), alternating which goes first; wall time from spawn to exit.
 * - Prints per host the median and p95 of each form, the difference of the medians (ms added per
 *   turn), and the bytes our hooks injected per turn (the UTF-8 size of the prepared-context
 *   blocks in the model's first request: `role: "system"` for Claude Code, `developer` input
 *   for Codex).
 *
 * Usage: `npm run bench:hosts [-- --runs 10 --hosts claude-code,codex --server up|down|hung]`
 * (needs `npm run build`). `--debug DIR` (Claude Code) writes each turn's `claude --debug-file`
 * log to DIR (`with-N.log`, `without-N.log`): the timestamps of the MCP connection, each hook's
 * start and end and the model request, to see where the added time goes. `--server down` sets the integration up against a loopback port where
 * nothing listens, `hung` against one that accepts and never answers: what a turn then costs.
 * The last line states the milliseconds added per turn.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { ServerProcesses } from '../harness/server-process.js'
import { startAnthropicServer, systemMessages } from '../test/support/anthropic-server.js'
import { EgressGuard } from '../test/support/egress-guard.js'
import {
  type HostHome,
  hostHome,
  type HostRun,
  runClaude,
  runCodex,
  writeCodexConfig,
} from '../test/support/host-runner.js'
import type { ScriptedModelServer } from '../test/support/model-turns.js'
import { developerInput, startResponsesServer } from '../test/support/responses-server.js'
import { parseFlags, positiveInt } from './bench-args.js'
import { f1, stats } from './bench-stats.js'

const CLI = fileURLToPath(new URL('../bin/powercontext.js', import.meta.url))
const BIN_DIR = fileURLToPath(new URL('../node_modules/.bin', import.meta.url))
const ORIGIN = 'git@github.com:bench/hosts.git'
const SCOPE = 'git:github.com/bench/hosts'
const PROMPT = 'How do refunds reach the payment provider, and how should I test it?'
const MEMORIES = [
  { kind: 'constraint', text: 'Never log card numbers; mask all but the last four digits.' },
  { kind: 'decision', text: 'Refunds go through the ledger service, never straight to the PSP.' },
  { kind: 'decision', text: 'Payment webhooks are retried with exponential backoff, 8 times.' },
  { kind: 'preference', text: 'Prefer table-driven tests over one test per case.' },
  { kind: 'preference', text: 'Use the ledger sandbox for every refund test.' },
  { kind: 'fact', text: 'The PSP sandbox resets every night at 02:00 UTC.' },
  { kind: 'fact', text: 'Refund requests above 10,000 EUR need a second approver.' },
]

type Host = 'claude-code' | 'codex'
const opts = {
  runs: 10,
  hosts: ['claude-code', 'codex'] as Host[],
  server: 'up',
  debug: undefined as string | undefined,
}
parseFlags(process.argv.slice(2), {
  '--runs': (v, f) => (opts.runs = positiveInt(f, v)),
  '--hosts': (v) => (opts.hosts = (v ?? '').split(',').filter(Boolean) as Host[]),
  '--server': (v) => {
    if (!['up', 'down', 'hung'].includes(v ?? '')) throw new Error('--server: up, down or hung')
    opts.server = v as string
  },
  '--debug': (v) => {
    if (!v) throw new Error('--debug needs a directory')
    mkdirSync(v, { recursive: true })
    opts.debug = v
  },
})

/** A loopback port that accepts connections and never answers (`hung`), or where none listens. */
async function unreachableUrl(kind: 'down' | 'hung'): Promise<{ url: string; close: () => void }> {
  const sockets: Socket[] = []
  const server = createServer((s) => void sockets.push(s.on('error', () => undefined)))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  const close = (): void => {
    for (const s of sockets) s.destroy()
    server.close()
  }
  if (kind === 'down') close()
  return { url: `http://127.0.0.1:${port}`, close }
}

const base = mkdtempSync(join(os.tmpdir(), 'pc-bench-hosts-'))
const servers = new ServerProcesses()
const guard = await new EgressGuard().start()

function project(name: string): string {
  const dir = join(base, name)
  mkdirSync(dir)
  execFileSync('git', ['init', '-q', dir])
  execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', ORIGIN])
  return dir
}

function cli(home: HostHome, ...args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: {
      PATH: `${BIN_DIR}:${process.env['PATH'] ?? ''}`,
      HOME: home.home,
      CODEX_HOME: home.codexHome,
      ...guard.env(),
    },
  })
}

const BLOCK = /Project memory of scope [^]*?END_POWERCONTEXT_PREPARED_CONTEXT_V1/g

/**
 * The prepared-context blocks one request carried (each hook's injection; Claude Code puts them
 * in a `role: "system"` message beside its own environment text, Codex in `developer` input).
 */
function injected(host: Host, body: Record<string, unknown> | undefined): string[] {
  const texts = host === 'claude-code' ? systemMessages(body) : developerInput(body)
  return texts.flatMap((t) => t.match(BLOCK) ?? [])
}

interface HostResult {
  readonly host: Host
  readonly with: number[]
  readonly without: number[]
  readonly bytes: number[]
}

async function bench(host: Host, serverUrl: string): Promise<HostResult> {
  const model: ScriptedModelServer =
    host === 'claude-code' ? await startAnthropicServer() : await startResponsesServer()
  const withDir = project(`${host}-with`)
  const withoutDir = project(`${host}-without`)
  const homes = {
    with: hostHome(join(base, `${host}-home-with`)),
    without: hostHome(join(base, `${host}-home-without`)),
  }
  if (host === 'codex')
    for (const [h, dir] of [
      [homes.with, withDir],
      [homes.without, withoutDir],
    ] as const)
      writeCodexConfig(h, model.url, `[projects."${dir}"]\ntrust_level = "trusted"\n`)
  cli(homes.with, 'setup', host, '--project', withDir, '--server-url', serverUrl)
  let turns = 0
  const turn = (form: 'with' | 'without'): Promise<HostRun> => {
    const debug =
      opts.debug === undefined || host !== 'claude-code'
        ? []
        : ['--debug-file', join(opts.debug, `${form}-${turns++}.log`)]
    const o = {
      args: debug,
      home: homes[form],
      cwd: form === 'with' ? withDir : withoutDir,
      modelUrl: model.url,
      proxyEnv: guard.env(),
    }
    return host === 'claude-code' ? runClaude(PROMPT, o) : runCodex(PROMPT, o)
  }
  const result: HostResult = { host, with: [], without: [], bytes: [] }
  const once = async (form: 'with' | 'without'): Promise<void> => {
    model.reset()
    model.turns({ text: 'Through the ledger service.' })
    const run = await turn(form)
    if (run.code !== 0) throw new Error(`${host} ${form}: exit ${run.code}: ${run.stderr}`)
    result[form].push(run.ms)
    if (form === 'with')
      result.bytes.push(
        injected(host, model.bodies()[0]).reduce((n, b) => n + Buffer.byteLength(b, 'utf8'), 0),
      )
  }
  await once('with') // warm-up pair: first starts read the binaries from disk
  await once('without')
  result.with.length = result.without.length = result.bytes.length = 0
  for (let i = 0; i < opts.runs; i++) {
    const order: ('with' | 'without')[] = i % 2 === 0 ? ['with', 'without'] : ['without', 'with']
    for (const form of order) await once(form)
    process.stderr.write('.')
  }
  process.stderr.write('\n')
  await model.close()
  return result
}

try {
  const server = await servers.startDataDir(join(base, 'data'))
  const res = await fetch(`${server.url}/v1/memory/remember`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scope_id: SCOPE, entries: MEMORIES }),
  })
  if (res.status !== 200) throw new Error(`remember: ${res.status}`)
  const target = opts.server === 'up' ? undefined : await unreachableUrl(opts.server as 'down')
  const results: HostResult[] = []
  for (const host of opts.hosts) results.push(await bench(host, target?.url ?? server.url))
  target?.close()

  console.log(
    `runs: ${opts.runs} interleaved pairs per host, ${os.cpus().length} cores, server ${opts.server}`,
  )
  console.log('host          with p50  with p95  without p50  without p95  added p50  bytes/turn')
  const added: string[] = []
  for (const r of results) {
    const w = stats(r.with)
    const wo = stats(r.without)
    const diff = w.p50 - wo.p50
    const bytes = stats(r.bytes).p50
    console.log(
      `${r.host.padEnd(12)}  ${f1(w.p50).padStart(8)}  ${f1(w.p95).padStart(8)}  ${f1(wo.p50).padStart(11)}  ${f1(wo.p95).padStart(11)}  ${f1(diff).padStart(9)}  ${String(bytes).padStart(10)}`,
    )
    added.push(
      `${r.host} +${Math.round(diff)} ms (${Math.round(w.p50)} vs ${Math.round(wo.p50)} ms, ${bytes} bytes injected)`,
    )
  }
  if (guard.attempts.length > 0) console.log(`egress attempts: ${guard.attempts.join(', ')}`)
  console.log(`added per turn by PowerContext: ${added.join('; ')}`)
} finally {
  await servers.stopAll()
  await guard.close()
  // A detached Stop worker of the last turn may still write there: give it a moment, then leave
  // what it still holds (the figures are printed already).
  try {
    rmSync(base, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 })
  } catch (err) {
    console.error(`left ${base}: ${(err as Error).message}`)
  }
}
