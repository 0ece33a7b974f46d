/**
 * What the real-host tests (test/hosts) share within one file: a `powercontext server run` child
 * on loopback (embedded SQLite), the scripted model server of the host, the egress guard (checked
 * empty after every test), an address where nothing listens and a server that accepts and never
 * answers; per test, a fresh git repository (its own scope, from its origin) and a fresh HOME.
 * `setup` runs as a user runs it: the built CLI in a child process, with that HOME.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, afterEach, beforeAll, expect } from 'vitest'

import { DIST_MAIN, type ServerProcess, ServerProcesses } from '../../harness/server-process.js'
import { startAnthropicServer } from './anthropic-server.js'
import { EgressGuard } from './egress-guard.js'
import { type HostHome, hostHome, type HostRun, runHost } from './host-runner.js'
import type { ModelReply, ScriptedModelServer } from './model-turns.js'
import { startResponsesServer } from './responses-server.js'
import { tempDirs } from './temp-git.js'

const CLI = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url))

/** The memories {@link HostFixture.seeded} puts in a project's scope. */
export const SEEDED = {
  preference: 'Prefer table-driven tests over one test per case in the payments code.',
  decision: 'Refunds go through the ledger service, never straight to the PSP.',
} as const

/** The scripted turn of the tool tests: `search_memory`, `remember_memory` of `remembered`, `answer`. */
export const TOOL_TURN = {
  remembered: 'Payment webhooks are retried with exponential backoff, at most 8 times.',
  answer: 'Refunds go via the ledger.',
  replies: (scope: string): ModelReply[] => [
    { tool: 'mcp__powercontext__search_memory', input: { scope_id: scope, query: 'refunds' } },
    {
      tool: 'mcp__powercontext__remember_memory',
      input: { scope_id: scope, entries: [{ kind: 'decision', text: TOOL_TURN.remembered }] },
    },
    { text: TOOL_TURN.answer },
  ],
} as const

/** The scripted turn of the `--allow-writes` tests: `remember_memory` of a constraint, then text. */
export const REMEMBER_TURN = {
  remembered: 'Use the ledger sandbox for every refund test.',
  prompt: 'Remember: refund tests use the ledger sandbox.',
  replies: (scope: string): ModelReply[] => [
    {
      tool: 'mcp__powercontext__remember_memory',
      input: { scope_id: scope, entries: [{ kind: 'constraint', text: REMEMBER_TURN.remembered }] },
    },
    { text: 'Remembered.' },
  ],
} as const

/** The servers a hook must survive, by name: nothing listening, and accepting but never answering. */
export const unreachable = (
  fx: HostFixture,
): readonly (readonly ['down' | 'hung', () => string])[] => [
  ['down', () => fx.downUrl],
  ['hung', () => fx.hungUrl],
]

/** A captured source as `POST /v1/sources/list` returns it. */
export interface StoredSource {
  readonly source: { readonly source_id: string; readonly kind?: string }
  readonly content: string
  readonly media_type: string
  readonly metadata: Record<string, unknown>
}

/** Whether a captured source is a turn's outcome (what the Stop hook captures). */
export const isOutcome = (s: StoredSource): boolean =>
  s.media_type === 'application/vnd.powercontext.task-outcome+json'

/** A project of one test: its directory (a git work tree) and the scope its origin gives. */
export interface TestProject {
  readonly dir: string
  readonly scope: string
}

export interface HostFixture {
  readonly model: ScriptedModelServer
  readonly guard: EgressGuard
  /** The real server. */
  readonly server: ServerProcess
  /** A loopback address where nothing listens (connection refused). */
  readonly downUrl: string
  /** A loopback server that accepts connections and never answers. */
  readonly hungUrl: string
  /** Another server child (e.g. one that requires a token), stopped with the file's. */
  startServer(env: Record<string, string>): Promise<ServerProcess>
  /** A new git repository with origin `git@github.com:acme/<name>.git` (scope `git:github.com/acme/<name>`). */
  project(name: string): TestProject
  /** A new sealed HOME (and CODEX_HOME). */
  home(): HostHome
  /** `powercontext ARGS…` as a child with this HOME (and `codex` on PATH, for its app-server). */
  cli(home: HostHome, ...args: string[]): Promise<HostRun>
  /** `powercontext setup HOST --server-url <the server> ARGS…`, which must succeed quietly; its stdout. */
  setup(host: 'claude-code' | 'codex', home: HostHome, ...args: string[]): Promise<string>
  /** A new project whose scope holds {@link SEEDED}'s preference and decision. */
  seeded(name: string): Promise<TestProject>
  /** Adds memories to a scope through the HTTP API. */
  remember(scope: string, entries: readonly { kind: string; text: string }[]): Promise<void>
  /** The sources captured in a scope. */
  sources(scope: string): Promise<StoredSource[]>
  /**
   * The sources of a scope once `ready` holds for them (the Stop hook captures in a detached
   * worker that may still run when the host has exited), or as they are after `waitMs`.
   */
  sourcesWhen(
    scope: string,
    ready: (sources: StoredSource[]) => boolean,
    waitMs?: number,
  ): Promise<StoredSource[]>
  /** Asserts the scope holds the prompt once and a source with the turn's answer (its outcome). */
  expectTurnCaptured(scope: string, prompt: string, answer: string): Promise<void>
  /** The texts of the active memories of a scope. */
  memories(scope: string): Promise<string[]>
}

let unique = 0

/** A TCP server that takes connections and never writes a byte. */
async function hungServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((s) => {
    sockets.add(s)
    s.on('error', () => undefined)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}

/** A loopback port that was free a moment ago (nothing listens there). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/**
 * Registers the file's servers (beforeAll/afterAll) and the egress check (afterEach) for the
 * host `provider` speaks to: `anthropic` (Claude Code) or `openai` (Codex).
 */
export function useHostFixture(provider: 'anthropic' | 'openai', prefix: string): HostFixture {
  const temp = tempDirs(prefix)
  const servers = new ServerProcesses()
  const state = {} as {
    model: ScriptedModelServer
    guard: EgressGuard
    server: ServerProcess
    hung: Awaited<ReturnType<typeof hungServer>>
    downUrl: string
  }
  beforeAll(async () => {
    execFileSync('test', ['-f', DIST_MAIN]) // the servers run the build
    ;[state.model, state.guard, state.server, state.hung] = await Promise.all([
      provider === 'anthropic' ? startAnthropicServer() : startResponsesServer(),
      new EgressGuard().start(),
      servers.startDataDir(temp.make()),
      hungServer(),
    ])
    state.downUrl = `http://127.0.0.1:${await freePort()}`
  })
  afterEach(() => {
    const attempts = state.guard.attempts.splice(0)
    state.model.reset()
    expect(attempts, 'the host tried to reach an address beyond loopback').toEqual([])
  })
  afterAll(async () => {
    await Promise.all([state.model?.close(), state.guard?.close(), state.hung?.close()])
    await servers.stopAll()
    temp.removeAll()
  })
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${state.server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as Record<string, unknown>
  }
  const cli = (home: HostHome, ...args: string[]): Promise<HostRun> =>
    runHost(process.execPath, [CLI, ...args], {
      cwd: home.home,
      env: {
        PATH: `${BIN_DIR}:${process.env['PATH'] ?? ''}`,
        HOME: home.home,
        CODEX_HOME: home.codexHome,
        ...state.guard.env(),
      },
    })
  const gitEnv = { PATH: process.env['PATH'] ?? '', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' }
  const fixture: HostFixture = {
    get model() {
      return state.model
    },
    get guard() {
      return state.guard
    },
    get server() {
      return state.server
    },
    get downUrl() {
      return state.downUrl
    },
    get hungUrl() {
      return state.hung.url
    },
    startServer: (env) => servers.startDataDir(temp.make(), env),
    project(name) {
      const repoName = `${name}-${process.pid}-${++unique}`
      const dir = join(realpathSync(temp.make()), repoName)
      mkdirSync(dir)
      execFileSync('git', ['init', '-q', dir], { env: gitEnv })
      execFileSync('git', ['remote', 'add', 'origin', `git@github.com:acme/${repoName}.git`], {
        cwd: dir,
        env: gitEnv,
      })
      return { dir, scope: `git:github.com/acme/${repoName}` }
    },
    home: () => hostHome(temp.make()),
    cli,
    setup: async (host, home, ...args) => {
      const run = await cli(home, 'setup', host, '--server-url', state.server.url, ...args)
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      return run.stdout
    },
    seeded: async (name) => {
      const p = fixture.project(name)
      await fixture.remember(p.scope, [
        { kind: 'preference', text: SEEDED.preference },
        { kind: 'decision', text: SEEDED.decision },
      ])
      return p
    },
    remember: async (scope, entries) => {
      await post('/v1/memory/remember', { scope_id: scope, entries })
    },
    sources: async (scope) =>
      (await post('/v1/sources/list', { scope_id: scope, limit: 100 }))[
        'sources'
      ] as StoredSource[],
    sourcesWhen: async (scope, ready, waitMs = 15_000) => {
      const until = Date.now() + waitMs
      for (;;) {
        const sources = await fixture.sources(scope)
        if (ready(sources) || Date.now() > until) return sources
        await new Promise((r) => setTimeout(r, 100))
      }
    },
    expectTurnCaptured: async (scope, prompt, answer) => {
      const sources = await fixture.sourcesWhen(
        scope,
        (all) =>
          all.some((s) => s.content === prompt) && all.some((s) => s.content.includes(answer)),
      )
      expect(
        sources.filter((s) => s.content === prompt),
        'the prompt',
      ).toHaveLength(1)
      expect(
        sources.some((s) => s.content.includes(answer)),
        'the outcome',
      ).toBe(true)
    },
    memories: async (scope) =>
      (
        (await post('/v1/memory/list', { scope_id: scope, limit: 100 }))['memories'] as {
          text: string
        }[]
      ).map((m) => m.text),
  }
  return fixture
}

/** How many times `needle` occurs in `hay`. */
export const occurrences = (hay: string, needle: string): number =>
  needle === '' ? 0 : hay.split(needle).length - 1
