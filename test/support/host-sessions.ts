/**
 * What the multi-session real-host tests share (a project set up with the git hook, headless
 * Claude Code turns in it, commits by a user, a server polled until the flush or the hook has run):
 * `test/hosts/claude-code-memory.test.ts` and the freshness workflow (`freshness-flow.ts`).
 */
import { execFileSync } from 'node:child_process'

import { expect } from 'vitest'

import type { HostFixture, TestProject } from './host-fixture.js'
import { CLAUDE_QUIET_ENV, type HostHome, type HostRun, runClaude } from './host-runner.js'

/** The session id `claude -p --output-format json` reports. */
export const sessionOf = (run: HostRun): string =>
  (JSON.parse(run.stdout) as { session_id: string }).session_id

/**
 * `git -C dir ARGS…` as the user of `home` (whose HOME the post-commit hook's `powercontext`
 * reads), with a committer identity; its trimmed stdout.
 */
export function gitAs(home: HostHome, dir: string): (...args: string[]) => string {
  const env = {
    ...process.env,
    HOME: home.home,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  }
  return (...args) => execFileSync('git', ['-C', dir, ...args], { env, encoding: 'utf8' }).trim()
}

/**
 * `powercontext --server-url URL setup HOST --project DIR --git-hook --extract-with none` (the
 * server, not setup, chooses how to extract), which must succeed.
 */
export async function setupWithGitHook(
  fx: HostFixture,
  host: 'claude-code' | 'codex',
  home: HostHome,
  serverUrl: string,
  dir: string,
): Promise<void> {
  const setup = await fx.cli(
    home,
    '--server-url',
    serverUrl,
    'setup',
    host,
    '--project',
    dir,
    '--git-hook',
    '--extract-with',
    'none',
  )
  expect(setup.code, setup.stderr).toBe(0)
}

/** Headless Claude Code turns in `dir` against the fixture's scripted model. */
export function claudeTurns(
  fx: HostFixture,
  home: HostHome,
  dir: string,
): (prompt: string, args?: string[]) => Promise<HostRun> {
  return (prompt, args = []) =>
    runClaude(prompt, {
      home,
      cwd: dir,
      modelUrl: fx.model.url,
      proxyEnv: fx.guard.env(),
      args,
      // Our tools listed whole (not behind Claude Code's tool search), as a scripted call needs;
      // no API retries, so a fault of the scripted model shows at once.
      env: { ENABLE_TOOL_SEARCH: 'false', CLAUDE_CODE_MAX_RETRIES: '0' },
      timeoutMs: 120_000,
    })
}

/** A project of the fixture set up for Claude Code with the git hook, and how to work in it. */
export interface ClaudeProject extends TestProject {
  readonly home: HostHome
  /** One headless turn (see {@link claudeTurns}). */
  readonly turn: (prompt: string, args?: string[]) => Promise<HostRun>
  /** `git` in the project as its user (see {@link gitAs}). */
  readonly git: (...args: string[]) => string
}

/** A new project and HOME, set up for Claude Code by {@link setupWithGitHook} against `serverUrl`. */
export async function claudeProject(
  fx: HostFixture,
  serverUrl: string,
  name: string,
): Promise<ClaudeProject> {
  const p = fx.project(name)
  const home = fx.home()
  await setupWithGitHook(fx, 'claude-code', home, serverUrl, p.dir)
  return { ...p, home, turn: claudeTurns(fx, home, p.dir), git: gitAs(home, p.dir) }
}

/**
 * The environment of a server's extraction runs of `claude -p` against the scripted Messages
 * server at `modelUrl`: a HOME of their own, no traffic but the model's, the egress guard.
 */
export const extractionEnv = (
  fx: HostFixture,
  home: HostHome,
  modelUrl: string,
): Record<string, string> => ({
  HOME: home.home,
  ANTHROPIC_BASE_URL: modelUrl,
  ANTHROPIC_API_KEY: 'sk-ant-test-extraction',
  ...CLAUDE_QUIET_ENV,
  ...fx.guard.env(),
})

/** `POST url()+path` with a JSON body, which must answer 200; its JSON. */
export function poster(url: () => string) {
  return async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${url()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await res.text()
    expect(res.status, `${path}: ${text}`).toBe(200)
    return JSON.parse(text) as Record<string, unknown>
  }
}

/**
 * `read()` until `done` holds, every 500 ms for at most 2 minutes (the server flushes and the git
 * hook captures by themselves); throws naming `what` when it never holds.
 */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
): Promise<T> {
  let v = await read()
  for (let i = 0; i < 240 && !done(v); i++) {
    await new Promise((r) => setTimeout(r, 500))
    v = await read()
  }
  if (!done(v)) throw new Error(`${what} never held: ${JSON.stringify(v)}`)
  return v
}
