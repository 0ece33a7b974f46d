/**
 * Whether Codex will run our hooks, asked of Codex itself (see codex-app-server.ts), for `setup`
 * (which then records Codex's trust in our hooks) and `doctor` (which names the step). Codex
 * skips a hook without a word when: the project is not trusted (its `.codex` is not loaded at
 * all), hooks are turned off (`[features] hooks = false` in any config layer), or the hook has
 * not been reviewed (no trusted hash, or the command changed since).
 */
import { homedir } from 'node:os'
import { join } from 'node:path'

import { hookScripts, renderHooks, runsOurHook } from '../../agent-hosts.js'
import type { HostFiles } from '../host-adapter.js'
import type { CodexAppServer, CodexHook } from './app-server.js'
import {
  codexBin,
  layersTurningHooksOff,
  projectLayerDisabled,
  withCodexAppServer,
} from './app-server.js'

/** What Codex says about our hooks at one level. */
export interface CodexHookState {
  /** Our hooks Codex lists at this level. */
  readonly ours: readonly CodexHook[]
  /** Why the project's `.codex` is not loaded, in Codex's words (project level only). */
  readonly projectDisabled: string | undefined
  /** The config files that turn hooks off. */
  readonly hooksOffIn: readonly string[]
}

const ORDER = ['sessionStart', 'userPromptSubmit', 'stop', 'preCompact']
const rank = (h: CodexHook): number => (ORDER.indexOf(h.eventName) + 99) % 99
/** `SessionStart, UserPromptSubmit, …` in the order a turn meets them. */
const eventsOf = (hooks: readonly CodexHook[]): string =>
  [...hooks]
    .sort((a, b) => rank(a) - rank(b))
    .map((h) => h.eventName.replace(/^./, (c) => c.toUpperCase()))
    .join(', ')

/** Hooks Codex would skip until they are reviewed. */
export const unreviewed = (hooks: readonly CodexHook[]): CodexHook[] =>
  hooks.filter((h) => h.trustStatus === 'untrusted' || h.trustStatus === 'modified')

async function stateOf(
  codex: CodexAppServer,
  files: HostFiles,
  project: string | undefined,
  home: string,
): Promise<CodexHookState> {
  const cwd = project ?? home
  const view = await codex.readConfig(cwd)
  const isOurs = runsOurHook('codex', hookScripts(renderHooks(files, {})))
  const ours = (await codex.listHooks(cwd)).filter(
    (h) => h.source === files.level && typeof h.command === 'string' && isOurs(h.command),
  )
  return {
    ours,
    projectDisabled: project === undefined ? undefined : projectLayerDisabled(view, project),
    hooksOffIn: layersTurningHooksOff(view),
  }
}

const homeOf = (env: NodeJS.ProcessEnv): string => env['HOME'] || homedir()

/** The step that makes Codex load a project. */
export const trustProjectStep = (project: string): string =>
  `start \`codex\` in ${project} once and trust the folder, then run \`powercontext setup codex\` again`

/** What `setup codex` did about Codex's trust in our hooks: a report line and warnings. */
export interface TrustOutcome {
  readonly status: 'updated' | 'unchanged'
  readonly path: string
  readonly detail: string
  readonly warnings: readonly string[]
}

/**
 * Records Codex's trust in our hooks (their current hashes, as Codex lists them) when the
 * project is trusted and hooks are on; otherwise says what stands in the way.
 */
export async function trustOurCodexHooks(
  files: HostFiles,
  project: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<TrustOutcome> {
  const path = join(env['CODEX_HOME'] || join(homeOf(env), '.codex'), 'config.toml')
  const r = await withCodexAppServer(async (codex) => {
    const state = await stateOf(codex, files, project, homeOf(env))
    const todo = unreviewed(state.ours)
    if (state.projectDisabled === undefined && state.hooksOffIn.length === 0)
      await codex.trustHooks(todo)
    return { state, todo }
  }, env)
  if ('error' in r)
    return {
      status: 'unchanged',
      path,
      detail: `not asked: ${r.error.message}`,
      warnings: [
        `Codex (${codexBin(env)}) could not be asked to trust the hooks: it runs them only once you review them (/hooks in codex)`,
      ],
    }
  const { state, todo } = r.result
  if (state.projectDisabled !== undefined)
    return {
      status: 'unchanged',
      path,
      detail: 'not trusted: Codex does not trust the project',
      warnings: [
        `Codex does not trust ${project}, so it loads neither its hooks nor its MCP server (${state.projectDisabled}): ${trustProjectStep(project ?? '')}`,
      ],
    }
  if (state.hooksOffIn.length > 0)
    return {
      status: 'unchanged',
      path,
      detail: 'not trusted: hooks are turned off',
      warnings: [],
    }
  if (todo.length === 0)
    return { status: 'unchanged', path, detail: 'Codex already trusts them', warnings: [] }
  return {
    status: 'updated',
    path,
    detail: `Codex now trusts ${eventsOf(todo)} (the hashes Codex computed, via codex app-server)`,
    warnings: [],
  }
}

/** Doctor's view: one line, pass/fail/skip, with the exact step. */
export async function codexTrustCheck(
  levels: readonly HostFiles[],
  project: string,
  installedAt: HostFiles | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: 'pass' | 'fail' | 'skip'; detail: string }> {
  const files = installedAt ?? levels[0]
  if (installedAt === undefined || files === undefined)
    return { status: 'skip', detail: 'no PowerContext hooks installed' }
  const atProject = files.level === 'project' ? project : undefined
  const r = await withCodexAppServer((codex) => stateOf(codex, files, atProject, homeOf(env)), env)
  if ('error' in r)
    return {
      status: 'skip',
      detail: `cannot ask Codex (${r.error.message}); set POWERCONTEXT_CODEX_BIN to the codex executable`,
    }
  const s = r.result
  if (s.projectDisabled !== undefined)
    return {
      status: 'fail',
      detail: `Codex does not trust ${project}: it skips the hooks in ${files.hooksFile} without a word (${s.projectDisabled}); ${trustProjectStep(project)}`,
    }
  if (s.hooksOffIn.length > 0)
    return {
      status: 'fail',
      detail: `${s.hooksOffIn.join(', ')} turns Codex hooks off ([features] hooks = false): remove that line`,
    }
  if (s.ours.length === 0)
    return {
      status: 'fail',
      detail: `Codex lists none of the hooks in ${files.hooksFile}; run \`powercontext setup codex\` again`,
    }
  const todo = unreviewed(s.ours)
  if (todo.length > 0)
    return {
      status: 'fail',
      detail: `Codex has not reviewed ${eventsOf(todo)} and skips them without a word: run \`powercontext setup codex${files.level === 'user' ? ' --user' : ''}\` again (it records Codex's trust) or review them with /hooks in codex`,
    }
  const off = s.ours.filter((h) => !h.enabled)
  if (off.length > 0)
    return {
      status: 'fail',
      detail: `${eventsOf(off)} are disabled in Codex: enable them with /hooks in codex`,
    }
  return { status: 'pass', detail: `Codex will run ${eventsOf(s.ours)} (trusted)` }
}
