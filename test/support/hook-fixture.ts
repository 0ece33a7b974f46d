/**
 * What the hook tests run against: a temporary git repository with an origin, a real server with
 * a few memories in the repository's scope, a second real server that requires a token, and the
 * misbehaving loopback server of hook-harness.ts.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, beforeAll } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { startMisbehavingServer } from './hook-harness.js'

export interface CapturedSource {
  readonly source: { readonly source_id: string }
  readonly position: number
  readonly content: string
  readonly media_type: string
  readonly metadata: Record<string, unknown>
}

export interface HookFixture {
  readonly server: RunningServer
  readonly authServer: RunningServer
  readonly bad: Awaited<ReturnType<typeof startMisbehavingServer>>
  /** A clean environment (no user git config) pointing the hook at `url`. */
  envFor(url: string, extra?: Record<string, string>): Record<string, string | undefined>
  /** The sources captured in the scope, oldest first. */
  sources(): Promise<CapturedSource[]>
  close(): Promise<void>
}

export async function startHookFixture(options: {
  readonly base: string
  readonly repo: string
  readonly origin: string
  readonly scopeId: string
  readonly authToken: string
  readonly memories: readonly { kind: string; text: string }[]
}): Promise<HookFixture> {
  const { base, repo } = options
  const baseEnv = { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' }
  mkdirSync(repo)
  execFileSync('git', ['init', '-q', repo], { env: baseEnv })
  execFileSync('git', ['remote', 'add', 'origin', options.origin], { cwd: repo, env: baseEnv })
  const open = (dir: string, authToken?: string) =>
    startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: join(base, dir),
      logLevel: 'silent',
      ...(authToken === undefined ? {} : { authToken }),
    })
  const server = await open('data')
  const authServer = await open('data-auth', options.authToken)
  const bad = await startMisbehavingServer(server.url)
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const res = await post('/v1/memory/remember', {
    scope_id: options.scopeId,
    entries: options.memories,
  })
  if (res.status !== 200) throw new Error(`remember failed: ${res.status}`)
  return {
    server,
    authServer,
    bad,
    envFor: (url, extra = {}) => ({ ...baseEnv, POWERCONTEXT_CLIENT_SERVER_URL: url, ...extra }),
    sources: async () => {
      const list = await post('/v1/sources/list', { scope_id: options.scopeId, limit: 100 })
      return ((await list.json()) as { sources: CapturedSource[] }).sources
    },
    close: async () => {
      await server.stop()
      await authServer.stop()
      await bad.close()
    },
  }
}

/** The agent hosts whose hook programs the tests run: `integrations/<host>/hooks/`. */
export type HookHost = 'claude-code' | 'codex'

/** The bearer token the fixture's second server (`authServer`) requires. */
const AUTH_TOKEN = 'hook-fixture-token-0123456789'

/** What {@link useHookFixture} gives a test file: its directories and, inside tests, the fixture. */
export interface HookFixtureLifecycle extends Omit<HookFixture, 'close'> {
  /** The host's hook program (`integrations/<host>/hooks/powercontext-hook.mjs`). */
  readonly hook: string
  /** The token `authServer` requires. */
  readonly authToken: string
  /** The test file's temporary directory (real path), removed after the file. */
  readonly base: string
  /** The git repository inside `base`, named as the origin's last path segment. */
  readonly repo: string
}

/**
 * Registers the hook fixture of one test file for `host`'s hook program: a temporary directory
 * holding a repository with `origin`, the fixture started in `beforeAll` and closed (and the
 * directory removed) in `afterAll`. Its servers can be read only inside tests.
 */
export function useHookFixture(
  host: HookHost,
  options: Omit<Parameters<typeof startHookFixture>[0], 'base' | 'repo' | 'authToken'>,
): HookFixtureLifecycle {
  const hook = fileURLToPath(
    new URL(`../../integrations/${host}/hooks/powercontext-hook.mjs`, import.meta.url),
  )
  const base = realpathSync(mkdtempSync(join(tmpdir(), `pc-${host}-hooks-`)))
  const repo = join(base, basename(options.origin).replace(/\.git$/, ''))
  const start = { ...options, authToken: AUTH_TOKEN, base, repo }
  let started: HookFixture | undefined
  beforeAll(async () => {
    started = await startHookFixture(start)
  })
  afterAll(async () => {
    await started?.close()
    rmSync(base, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 })
  })
  const fx = (): HookFixture => {
    if (started === undefined) throw new Error('the hook fixture starts in beforeAll')
    return started
  }
  return {
    hook,
    authToken: AUTH_TOKEN,
    base,
    repo,
    get server() {
      return fx().server
    },
    get authServer() {
      return fx().authServer
    },
    get bad() {
      return fx().bad
    },
    envFor: (url, extra) => fx().envFor(url, extra),
    sources: () => fx().sources(),
  }
}
