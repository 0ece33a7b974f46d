/**
 * Asks Codex itself whether it will run our hooks, and records its trust in them, through its
 * own (experimental) `codex app-server` protocol — JSON-RPC lines on stdio: `initialize`,
 * `config/read` (the effective config with its layers: is the project's `.codex` loaded, are
 * hooks on), `hooks/list` (each hook with its key, current hash and trust status) and
 * `config/batchWrite` (saves `hooks.state.<key>.trusted_hash`, the hash Codex computed: we never
 * compute one). The executable is `POWERCONTEXT_CODEX_BIN`, else `codex` on PATH.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

import type { TomlTable } from 'smol-toml'

import { PACKAGE_ROOT } from '../../agent-hosts.js'
import { hooksTurnedOff } from './config.js'

/** One hook as `hooks/list` describes it (the fields we read). */
export interface CodexHook {
  readonly key: string
  readonly eventName: string
  readonly command?: string
  readonly source: string
  readonly enabled: boolean
  readonly currentHash: string
  readonly trustStatus: 'managed' | 'untrusted' | 'trusted' | 'modified'
}

/** One layer of `config/read` (user file, project `.codex`, system…). */
export interface CodexLayer {
  readonly name: { readonly type: string; readonly file?: string; readonly dotCodexFolder?: string }
  readonly config: Record<string, unknown>
  /** Set when Codex does not load this layer, with Codex's own step (e.g. trust the project). */
  readonly disabledReason?: string
}

/** The effective config for a directory, with the layers it came from. */
export interface CodexConfigView {
  readonly config: Record<string, unknown>
  readonly layers: readonly CodexLayer[]
}

/** One skill as Codex lists it (`skills/list`). */
export interface CodexSkill {
  readonly name: string
  readonly path: string
  readonly scope: string
}

/** A running app-server; `close` ends it. */
export interface CodexAppServer {
  readConfig(cwd: string): Promise<CodexConfigView>
  listHooks(cwd: string): Promise<CodexHook[]>
  /** The skills Codex loads in `cwd`: each SKILL.md path and its scope (`repo`, `user`, `system`). */
  listSkills(cwd: string): Promise<CodexSkill[]>
  /** Saves Codex's trust in these hooks (their current hashes) in the user's config. */
  trustHooks(hooks: readonly CodexHook[]): Promise<void>
  close(): void
}

/** The Codex executable setup and doctor ask. */
export const codexBin = (env: NodeJS.ProcessEnv = process.env): string =>
  env['POWERCONTEXT_CODEX_BIN'] || 'codex'

const TIMEOUT_MS = 30_000

/**
 * Starts `codex app-server` and initialises it.
 * @throws Error when Codex cannot be started (not installed) or does not answer in time.
 */
export async function openCodexAppServer(
  env: NodeJS.ProcessEnv = process.env,
): Promise<CodexAppServer> {
  const child = spawn(codexBin(env), ['app-server'], {
    cwd: PACKAGE_ROOT,
    env,
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  let failure: Error | undefined
  const fail = (err: Error): void => {
    failure ??= err
    for (const p of pending.values()) p.reject(err)
    pending.clear()
  }
  child.on('error', (err) => fail(new Error(`cannot run ${codexBin(env)}: ${err.message}`)))
  child.on('exit', (code) => fail(new Error(`codex app-server exited (${code})`)))
  child.stdin.on('error', () => undefined)
  createInterface({ input: child.stdout }).on('line', (line) => {
    let msg: { id?: number; result?: unknown; error?: { message?: string } }
    try {
      msg = JSON.parse(line) as typeof msg
    } catch {
      return
    }
    const p = msg.id === undefined ? undefined : pending.get(msg.id)
    if (p === undefined) return
    pending.delete(msg.id as number)
    if (msg.error !== undefined) p.reject(new Error(`codex: ${msg.error.message ?? 'error'}`))
    else p.resolve(msg.result)
  })
  let next = 0
  const call = <T>(method: string, params: unknown): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (failure !== undefined) return reject(failure)
      const id = ++next
      const timer = setTimeout(() => fail(new Error(`codex ${method}: no answer`)), TIMEOUT_MS)
      pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      })
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`)
    })
  const close = (): void => {
    child.removeAllListeners('exit')
    child.kill()
  }
  try {
    await call('initialize', {
      clientInfo: { name: 'powercontext', title: null, version: '1' },
      capabilities: null,
    })
    child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`)
  } catch (err) {
    close()
    throw err
  }
  return {
    readConfig: (cwd) => call<CodexConfigView>('config/read', { includeLayers: true, cwd }),
    listHooks: async (cwd) => {
      const r = await call<{ data: { cwd: string; hooks: CodexHook[] }[] }>('hooks/list', {
        cwds: [cwd],
      })
      return r.data.flatMap((d) => d.hooks)
    },
    listSkills: async (cwd) => {
      const r = await call<{ data: { skills: CodexSkill[] }[] }>('skills/list', { cwds: [cwd] })
      return r.data.flatMap((d) => d.skills)
    },
    trustHooks: async (hooks) => {
      if (hooks.length === 0) return
      const value = Object.fromEntries(hooks.map((h) => [h.key, { trusted_hash: h.currentHash }]))
      await call('config/batchWrite', {
        edits: [{ keyPath: 'hooks.state', value, mergeStrategy: 'upsert' }],
      })
    },
    close,
  }
}

/** Runs `work` with an app-server, closing it after; null when Codex cannot be started. */
export async function withCodexAppServer<T>(
  work: (codex: CodexAppServer) => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ result: T } | { error: Error }> {
  let codex: CodexAppServer
  try {
    codex = await openCodexAppServer(env)
  } catch (err) {
    return { error: err as Error }
  }
  try {
    return { result: await work(codex) }
  } finally {
    codex.close()
  }
}

/** The layers that turn hooks off, named by their file. */
export function layersTurningHooksOff(view: CodexConfigView): string[] {
  return view.layers
    .filter(
      (l) => l.disabledReason === undefined && hooksTurnedOff(l.config as TomlTable) !== undefined,
    )
    .map((l) =>
      l.name.file !== undefined
        ? l.name.file
        : l.name.dotCodexFolder !== undefined
          ? `${l.name.dotCodexFolder}/config.toml`
          : l.name.type,
    )
}

/**
 * Why Codex does not load the project's `.codex` folder (it loads it only in a trusted project),
 * in Codex's words; undefined when it does.
 */
export function projectLayerDisabled(view: CodexConfigView, project: string): string | undefined {
  const layer = view.layers.find(
    (l) => l.name.dotCodexFolder?.replace(/\/\.codex\/?$/, '') === project,
  )
  if (layer === undefined) return 'Codex does not see its .codex folder'
  return layer.disabledReason
}
