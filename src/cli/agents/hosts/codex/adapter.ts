/**
 * Codex, per its documentation: hooks in `$CODEX_HOME/hooks.json` (default `~/.codex`) or
 * `<project>/.codex/hooks.json`; the MCP server as `[mcp_servers.powercontext]` in the
 * `config.toml` beside it (`url`, the name of the token's variable `bearer_token_env_var`, with
 * `--allow-writes` `default_tools_approval_mode = "approve"`, and a project's scope in
 * `http_headers`), with `[features] hooks = true` (`config.ts`); the skill in
 * `$CODEX_HOME/skills/` or the repository's `.agents/skills/`. Codex runs a hook only once its
 * hash is trusted: `setup` records that trust and `doctor` checks it, asking Codex itself
 * (`trust.ts`, `app-server.ts`).
 */
import { join } from 'node:path'

import { hostProfile } from '../../../../../integrations/shared/hosts.mjs'
import { homeOf, MCP_SERVER_NAME, pluginDirOf, skillUnder } from '../../agent-hosts.js'
import { readConfigFile } from '../../config-files.js'
import { mcpEntryView, mcpUrl, scopeHeader, TOKEN_ENV } from '../../mcp-entries.js'
import type { FileChange, HostAdapter, HostFiles, HostSetup } from '../host-adapter.js'
import {
  codexMcpServer,
  enableCodexHooks,
  hooksTurnedOff,
  parseCodexConfig,
  setCodexMcpServer,
} from './config.js'
import { codexTrustCheck, trustOurCodexHooks } from './trust.js'

/** Codex's `[mcp_servers.powercontext]` table (and its `http_headers` table for a scope). */
export type CodexMcpEntry = Readonly<Record<string, string | Readonly<Record<string, string>>>> & {
  readonly url: string
}

/** Codex's `[mcp_servers.powercontext]` table, with the project's scope when one is given. */
export function codexMcpEntry(
  serverUrl: string,
  withToken: boolean,
  allowWrites: boolean,
  scopeId?: string,
): CodexMcpEntry {
  return {
    url: mcpUrl(serverUrl),
    ...(withToken ? { bearer_token_env_var: TOKEN_ENV } : {}),
    ...(allowWrites ? { default_tools_approval_mode: 'approve' } : {}),
    ...(scopeId === undefined ? {} : { http_headers: scopeHeader(scopeId) }),
  }
}

const id = 'codex'

const files = (project: string | undefined, env: NodeJS.ProcessEnv): HostFiles => {
  const codexHome = env['CODEX_HOME'] || join(homeOf(env), '.codex')
  const dir = project === undefined ? codexHome : join(project, '.codex')
  return {
    host: id,
    level: project === undefined ? 'user' : 'project',
    hooksFile: join(dir, 'hooks.json'),
    mcpFile: join(dir, 'config.toml'),
    pluginDir: pluginDirOf(id),
    skillFile: skillUnder(project === undefined ? codexHome : join(project, '.agents')),
  }
}

/** The config files that turn hooks off (the installation's, and the user's for a project). */
async function hooksOffWarnings(o: HostSetup, at: HostFiles): Promise<string[]> {
  const configs = [
    at.mcpFile,
    ...(o.project === undefined ? [] : [files(undefined, o.env).mcpFile]),
  ]
  const warnings: string[] = []
  for (const path of configs) {
    const off = hooksTurnedOff(parseCodexConfig(await readConfigFile(path)))
    if (off !== undefined)
      warnings.push(
        `${path} turns Codex hooks off ([features] ${off}): PowerContext's hooks will not run until that line is removed`,
      )
  }
  return warnings
}

export const codex: HostAdapter = {
  profile: hostProfile(id),
  extractionCli: 'codex',
  files,
  readMcpEntry: (file) =>
    mcpEntryView(codexMcpServer(parseCodexConfig(file)), 'url', 'http_headers'),
  writeMcpEntry(file, o) {
    const entry = codexMcpEntry(o.serverUrl, o.withToken, o.allowWrites, o.scopeId)
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
    return {
      text: server.changed || features.changed ? features.text : null,
      detail: `${what.join(', ')}${rewritten ? ' (file re-serialised: its comments are in the backup)' : ''}`,
    }
  },
  // The hook commands hold this machine's paths; the config names no machine path.
  machineFiles: (at) => [at.hooksFile],
  async hooksOff(at) {
    const off = hooksTurnedOff(parseCodexConfig(await readConfigFile(at.mcpFile)))
    return off === undefined
      ? undefined
      : `hooks are turned off in ${at.mcpFile} ([features] ${off})`
  },
  async afterSetup(o, at) {
    const warnings = await hooksOffWarnings(o, at)
    const changes: FileChange[] = []
    if (!o.dryRun) {
      const trust = await trustOurCodexHooks(at, o.project, o.env)
      changes.push({
        path: trust.path,
        part: 'trust',
        status: trust.status,
        detail: trust.detail,
        backup: null,
      })
      warnings.push(...trust.warnings)
    }
    return { changes, warnings }
  },
  checks: [
    {
      name: 'hook-trust',
      run: (levels, project, installedAt) => codexTrustCheck(levels, project, installedAt),
    },
  ],
}
