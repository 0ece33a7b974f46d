/**
 * What the real-CLI extraction tests share: a temporary HOME with the PowerContext hooks set up
 * (user and project level, by the real `setup`) beside a foreign hook that touches a marker file,
 * and a sink that records any request our hooks would send. If a hook fired inside an extraction
 * run, the marker would exist or the sink would have a request.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { runSetup } from '../../src/cli/agents/agent-setup.js'
import type { PowerContextError } from '../../src/core/errors.js'
import { LoopbackListener } from './loopback-listener.js'

export const CLAUDE_BIN = join(process.cwd(), 'node_modules', '.bin', 'claude')
export const CODEX_BIN = join(process.cwd(), 'node_modules', '.bin', 'codex')

/** A loopback listener that counts every request (where our hooks would send theirs). */
export class HookSink extends LoopbackListener {
  protected readonly server: Server
  readonly paths: string[] = []
  constructor() {
    super()
    this.server = createServer((req, res) => {
      this.paths.push(`${req.method} ${req.url}`)
      req.resume()
      res.writeHead(503).end()
    })
  }

  /**
   * Waits until no request has arrived for `quietMs` (at most `maxMs`): a detached Stop worker of a
   * finished host run posts after the host exited, and must not land in the next test.
   */
  async settle(quietMs = 1500, maxMs = 30_000): Promise<void> {
    const end = Date.now() + maxMs
    let seen = this.paths.length
    let since = Date.now()
    while (Date.now() < end && Date.now() - since < quietMs) {
      await new Promise((r) => setTimeout(r, 100))
      if (this.paths.length !== seen) {
        seen = this.paths.length
        since = Date.now()
      }
    }
  }
}

/** The error a promise rejects with (it must reject). */
export function failureOf(p: Promise<unknown>): Promise<PowerContextError> {
  return p.then(
    () => {
      throw new Error('expected a failure')
    },
    (err: unknown) => err as PowerContextError,
  )
}

/** A temporary home and project with our hooks and a foreign marker hook at both levels. */
export interface HookedHome {
  readonly home: string
  readonly project: string
  readonly marker: string
  /** True when the foreign hook ran since the last reset. */
  fired(): boolean
  reset(): void
  cleanup(): void
}

function mergeHook(file: string, events: readonly string[], command: string, codex: boolean): void {
  const doc = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { hooks?: Record<string, unknown[]> })
    : {}
  doc.hooks ??= {}
  for (const event of events) {
    const groups = (doc.hooks[event] ??= [])
    groups.push({ ...(codex ? {} : { matcher: '' }), hooks: [{ type: 'command', command }] })
  }
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, JSON.stringify(doc, null, 2))
}

/** Sets up `host` in a fresh home and project, then adds the foreign hook to the same files. */
export async function hookedHome(
  host: 'claude-code' | 'codex',
  serverUrl: string,
): Promise<HookedHome> {
  const home = mkdtempSync(join(tmpdir(), 'pc-host-home-'))
  const project = mkdtempSync(join(tmpdir(), 'pc-host-project-'))
  const marker = join(home, 'foreign-hook-fired')
  const env = { HOME: home, CODEX_HOME: join(home, '.codex') }
  const base = {
    host,
    serverUrl,
    serverUrlGiven: true,
    withToken: false,
    allowWrites: false,
    dryRun: false,
    gitHook: undefined,
    env,
  }
  await runSetup({ ...base, project: undefined })
  await runSetup({ ...base, project })
  const events = ['SessionStart', 'UserPromptSubmit', 'Stop']
  const command = `touch ${marker}`
  const files =
    host === 'claude-code'
      ? [join(home, '.claude', 'settings.json'), join(project, '.claude', 'settings.json')]
      : [join(home, '.codex', 'hooks.json'), join(project, '.codex', 'hooks.json')]
  for (const f of files) mergeHook(f, events, command, host === 'codex')
  return {
    home,
    project,
    marker,
    fired: () => existsSync(marker),
    reset: () => rmSync(marker, { force: true }),
    cleanup: () => {
      rmSync(home, { recursive: true, force: true })
      rmSync(project, { recursive: true, force: true })
    },
  }
}
