/**
 * `powercontext setup claude-code|codex`: installs the hooks, the MCP entry and the project-memory
 * skill into the host's settings (see {@link hostFiles}), merged with what is there, idempotent, with a backup of each
 * file it changes; optionally the Git `post-commit` hook. Nothing is written with `dryRun`.
 */
import { chmod, readFile } from 'node:fs/promises'
import { isDeepStrictEqual } from 'node:util'

import { resolveScope } from '../../../integrations/shared/scope.mjs'
import type { AgentHost, HostFiles } from './agent-hosts.js'
import {
  hookScripts,
  hostFiles,
  MCP_SERVER_NAME,
  renderHooks,
  runsOurHook,
  SKILL_NAME,
  skillSource,
} from './agent-hosts.js'
import { isLoopbackUrl, withHttpPrompt } from './claude-http-hooks.js'
import { mergeAllowRules } from './claude-permissions.js'
import {
  enableCodexHooks,
  hooksTurnedOff,
  parseCodexConfig,
  setCodexMcpServer,
} from './codex-config.js'
import { trustOurCodexHooks } from './codex-trust.js'
import type { FoundFile } from './config-files.js'
import { jsonText, parseJsonSettings, readConfigFile, writeConfigFile } from './config-files.js'
import { gitExcludeChange } from './git-exclude.js'
import { gitHookBlock, mergeGitHook, postCommitPath } from './git-hook.js'
import { mergeHooks } from './hook-merge.js'
import { claudeAllowRules, claudeMcpEntry, codexMcpEntry } from './mcp-entries.js'

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

/** What happened to one file. */
export interface FileChange {
  readonly path: string
  readonly part: 'hooks' | 'mcp' | 'skill' | 'git-hook' | 'git-exclude' | 'trust'
  readonly status: 'created' | 'updated' | 'unchanged'
  /** One line on what changed (or why nothing did). */
  readonly detail: string
  /** Copy of the previous content, when the file existed and changed (not with dry run). */
  readonly backup: string | null
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

async function setupHooks(o: SetupOptions, files: HostFiles): Promise<FileChange> {
  // Claude Code with a server on this machine: UserPromptSubmit posts to the server (http form).
  const http = files.host === 'claude-code' && isLoopbackUrl(o.serverUrl)
  const env = {
    ...(o.serverUrlGiven ? { POWERCONTEXT_CLIENT_SERVER_URL: o.serverUrl } : {}),
    ...(http ? { POWERCONTEXT_HOOKS_FORM: 'http' } : {}),
  }
  const rendered = renderHooks(files, env)
  const wanted = http ? withHttpPrompt(rendered, o.serverUrl, o.withToken) : rendered
  const file = await readConfigFile(files.hooksFile)
  const merged = mergeHooks(
    parseJsonSettings(file),
    wanted,
    runsOurHook(files.host, hookScripts(wanted)),
  )
  const what = merged.changes.map((c) => `${c.action} ${c.event}`)
  let settings = merged.settings
  if (files.host === 'claude-code') {
    const rules = mergeAllowRules(settings, claudeAllowRules(o.allowWrites))
    settings = rules.settings
    if (rules.added.length > 0) what.push(`allowed ${toolNames(rules.added)}`)
    if (rules.removed.length > 0) what.push(`no longer allowed ${toolNames(rules.removed)}`)
  }
  return commit(o, file, 'hooks', what.length === 0 ? null : jsonText(settings), what.join(', '))
}

/** `mcp__powercontext__a, mcp__powercontext__b` → `a, b`. */
const toolNames = (rules: readonly string[]): string =>
  rules.map((r) => r.slice(r.lastIndexOf('__') + 2)).join(', ')

/**
 * The scope the MCP entry names (`X-PowerContext-Scope`): the project's, resolved as the hooks
 * resolve it (with the user's environment, so Git is found), or none for the user's own settings.
 */
const mcpScope = (o: SetupOptions): string | undefined =>
  o.project === undefined
    ? undefined
    : resolveScope({ cwd: o.project, env: { ...process.env, ...o.env }, host: o.host }).scope_id

async function setupClaudeMcp(o: SetupOptions, files: HostFiles): Promise<FileChange> {
  const file = await readConfigFile(files.mcpFile)
  const settings = parseJsonSettings(file)
  const servers = (settings['mcpServers'] ?? {}) as Record<string, unknown>
  const entry = claudeMcpEntry(o.serverUrl, o.withToken, mcpScope(o))
  const current = servers[MCP_SERVER_NAME]
  if (isDeepStrictEqual(current, entry)) return commit(o, file, 'mcp', null, '')
  const next = { ...settings, mcpServers: { ...servers, [MCP_SERVER_NAME]: entry } }
  const verb = current === undefined ? 'added' : 'updated'
  return commit(
    o,
    file,
    'mcp',
    jsonText(next),
    `${verb} server ${MCP_SERVER_NAME} → ${String(entry['url'])}`,
  )
}

async function setupCodexMcp(o: SetupOptions, files: HostFiles): Promise<FileChange> {
  const file = await readConfigFile(files.mcpFile)
  const entry = codexMcpEntry(o.serverUrl, o.withToken, o.allowWrites, mcpScope(o))
  const server = setCodexMcpServer(file, entry)
  const features = enableCodexHooks({ path: file.path, text: server.text })
  const what = [
    ...(server.changed
      ? [
          `${server.how === 'appended' ? 'added' : 'updated'} [mcp_servers.${MCP_SERVER_NAME}] → ${entry.url}`,
        ]
      : []),
    ...(features.changed ? ['set [features] hooks = true'] : []),
  ]
  const rewritten = server.how === 'rewritten' || features.how === 'rewritten'
  return commit(
    o,
    file,
    'mcp',
    server.changed || features.changed ? features.text : null,
    `${what.join(', ')}${rewritten ? ' (file re-serialised: its comments are in the backup)' : ''}`,
  )
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
  const files = hostFiles(o.host, o.project, o.env)
  const changes = [
    await setupHooks(o, files),
    await (o.host === 'claude-code' ? setupClaudeMcp(o, files) : setupCodexMcp(o, files)),
    await setupSkill(o, files),
  ]
  const warnings: string[] = []
  if (o.host === 'codex') {
    const configs = [
      files.mcpFile,
      ...(o.project === undefined ? [] : [hostFiles('codex', undefined, o.env).mcpFile]),
    ]
    for (const path of configs) {
      const off = hooksTurnedOff(parseCodexConfig(await readConfigFile(path)))
      if (off !== undefined)
        warnings.push(
          `${path} turns Codex hooks off ([features] ${off}): PowerContext's hooks will not run until that line is removed`,
        )
    }
    if (!o.dryRun) {
      const trust = await trustOurCodexHooks(files, o.project, o.env ?? process.env)
      changes.push({
        path: trust.path,
        part: 'trust',
        status: trust.status,
        detail: trust.detail,
        backup: null,
      })
      warnings.push(...trust.warnings)
    }
  }
  if (o.gitHook !== undefined) changes.push(await setupGitHook(o, o.gitHook))
  if (o.project !== undefined) {
    // The hook commands hold this machine's paths; Claude Code's `.mcp.json` names this machine's
    // server. Neither should be committed by accident.
    const own = o.host === 'claude-code' ? [files.hooksFile, files.mcpFile] : [files.hooksFile]
    const exclude = await gitExcludeChange(o.project, own)
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
