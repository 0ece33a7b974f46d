/**
 * `powercontext setup <host>`: installs the hooks, the MCP entry and the project-memory skill
 * into the host's settings (where: the host's adapter, `hosts/<host>/adapter.ts`), merged with what is there, idempotent, with a backup of each
 * file it changes; optionally the Git `post-commit` hook. Nothing is written with `dryRun`.
 */
import { chmod, readFile } from 'node:fs/promises'

import { resolveScope } from '../../../integrations/shared/scope.mjs'
import type { HostFiles } from './agent-hosts.js'
import { hookScripts, renderHooks, runsOurHook, SKILL_NAME, skillSource } from './agent-hosts.js'
import type { FoundFile } from './config-files.js'
import { jsonText, parseJsonSettings, readConfigFile, writeConfigFile } from './config-files.js'
import { gitExcludeChange } from './git-exclude.js'
import { gitHookBlock, mergeGitHook, postCommitPath } from './git-hook.js'
import { mergeHooks } from './hook-merge.js'
import type { FileChange, HostAdapter, HostSetup } from './hosts/host-adapter.js'
import type { AgentHost } from './hosts/index.js'
import { HOST_ADAPTERS } from './hosts/index.js'

export type { FileChange } from './hosts/host-adapter.js'

/** What `setup` is asked to do. */
export interface SetupOptions {
  readonly host: AgentHost
  /** A project directory, or undefined for the user's own settings. */
  readonly project: string | undefined
  readonly serverUrl: string
  /** True when the URL was given (then the hooks are told it; else they use their default). */
  readonly serverUrlGiven: boolean
  /** True when a token is in use: the MCP entries then send `POWERCONTEXT_CLIENT_API_TOKEN`. */
  readonly withToken: boolean
  /** Let the agent call our write tools without the host asking (read tools always are). */
  readonly allowWrites: boolean
  readonly dryRun: boolean
  /** Also install `capture git` as the `post-commit` hook of this repository directory. */
  readonly gitHook: string | undefined
  readonly env?: NodeJS.ProcessEnv
}

/** The report of a setup run. */
export interface SetupReport {
  readonly host: AgentHost
  readonly level: 'user' | 'project'
  readonly dryRun: boolean
  readonly files: readonly FileChange[]
  /** What stands in the way of the hooks running (e.g. a config that turns them off). */
  readonly warnings: readonly string[]
}

async function commit(
  o: SetupOptions,
  file: FoundFile,
  part: FileChange['part'],
  text: string | null,
  detail: string,
): Promise<FileChange> {
  if (text === null)
    return { path: file.path, part, status: 'unchanged', detail: 'already installed', backup: null }
  const status = file.text === null ? 'created' : 'updated'
  const backup = o.dryRun ? null : await writeConfigFile(file, text)
  return { path: file.path, part, status, detail, backup }
}

async function setupHooks(o: SetupOptions, h: HostSetup, host: HostAdapter, files: HostFiles) {
  const env = o.serverUrlGiven ? { POWERCONTEXT_CLIENT_SERVER_URL: o.serverUrl } : {}
  const render = (e: Readonly<Record<string, string>>) => renderHooks(files, e)
  const wanted = host.wantedHooks?.(h, env, render) ?? render(env)
  const file = await readConfigFile(files.hooksFile)
  const merged = mergeHooks(
    parseJsonSettings(file),
    wanted,
    runsOurHook(files.host, hookScripts(wanted)),
  )
  const what = merged.changes.map((c) => `${c.action} ${c.event}`)
  let settings = merged.settings
  if (host.editHookSettings !== undefined) {
    const edit = host.editHookSettings(settings, h)
    settings = edit.settings
    what.push(...edit.what)
  }
  return commit(o, file, 'hooks', what.length === 0 ? null : jsonText(settings), what.join(', '))
}

/**
 * The scope the MCP entry names (`X-PowerContext-Scope`): the project's, resolved as the hooks
 * resolve it (with the user's environment, so Git is found), or none for the user's own settings.
 */
const mcpScope = (o: SetupOptions): string | undefined =>
  o.project === undefined
    ? undefined
    : resolveScope({ cwd: o.project, env: { ...process.env, ...o.env }, host: o.host }).scope_id

async function setupMcp(o: SetupOptions, h: HostSetup, host: HostAdapter, files: HostFiles) {
  const file = await readConfigFile(files.mcpFile)
  const edit = host.writeMcpEntry(file, h)
  return commit(o, file, 'mcp', edit.text, edit.detail)
}

/** The package's skill, copied whole over the installed one when they differ. */
async function setupSkill(o: SetupOptions, files: HostFiles): Promise<FileChange> {
  const file = await readConfigFile(files.skillFile)
  const wanted = await readFile(skillSource(files), 'utf8')
  const verb = file.text === null ? 'installed' : 'updated'
  return commit(o, file, 'skill', file.text === wanted ? null : wanted, `${verb} ${SKILL_NAME}`)
}

async function setupGitHook(o: SetupOptions, repo: string): Promise<FileChange> {
  const file = await readConfigFile(await postCommitPath(repo))
  const text = mergeGitHook(file, gitHookBlock(o.serverUrl))
  const change = await commit(
    o,
    file,
    'git-hook',
    text,
    `post-commit runs capture git → ${o.serverUrl}`,
  )
  if (text !== null && !o.dryRun) await chmod(file.path, 0o755)
  return change
}

/**
 * Installs everything for one host; each file is read, merged and written on its own.
 * @throws PowerContextError `invalid_request` when a settings file does not parse (that file
 *   and the ones after it are left as they are).
 */
export async function runSetup(o: SetupOptions): Promise<SetupReport> {
  const host = HOST_ADAPTERS[o.host]
  const env = o.env ?? process.env
  const files = host.files(o.project, env)
  const h: HostSetup = {
    project: o.project,
    serverUrl: o.serverUrl,
    withToken: o.withToken,
    allowWrites: o.allowWrites,
    dryRun: o.dryRun,
    env,
    scopeId: mcpScope(o),
  }
  const changes = [
    await setupHooks(o, h, host, files),
    await setupMcp(o, h, host, files),
    await setupSkill(o, files),
  ]
  const warnings: string[] = []
  if (host.afterSetup !== undefined) {
    const after = await host.afterSetup(h, files)
    changes.push(...after.changes)
    warnings.push(...after.warnings)
  }
  if (o.gitHook !== undefined) changes.push(await setupGitHook(o, o.gitHook))
  if (o.project !== undefined) {
    // Files that hold this machine's paths or server should not be committed by accident.
    const exclude = await gitExcludeChange(o.project, host.machineFiles(files))
    if (exclude !== undefined)
      changes.push(
        await commit(
          o,
          exclude.file,
          'git-exclude',
          exclude.text,
          `excluded ${exclude.added.join(', ')}`,
        ),
      )
  }
  return { host: o.host, level: files.level, dryRun: o.dryRun, files: changes, warnings }
}
