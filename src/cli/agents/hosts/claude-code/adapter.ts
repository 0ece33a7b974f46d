/**
 * Claude Code, per its documentation: hooks in `~/.claude/settings.json` (`--user`) or the
 * project's `.claude/settings.local.json` (personal, not committed: the commands hold absolute
 * paths of this machine); the MCP server in `~/.claude.json` `mcpServers` (user scope) or the
 * project's `.mcp.json` (project scope: a URL only, the token comes from the environment); the
 * skill in `~/.claude/skills/` or `<project>/.claude/skills/`. With a server on this machine the
 * `UserPromptSubmit` hook is Claude Code's http form (`http-hooks.ts`); the read tools (and the
 * write tools with `--allow-writes`) are allowed in `permissions.allow` (`permissions.ts`).
 */
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'

import { hostProfile } from '../../../../../integrations/shared/hosts.mjs'
import { homeOf, MCP_SERVER_NAME, pluginDirOf, skillUnder } from '../../agent-hosts.js'
import { jsonText, parseJsonSettings } from '../../config-files.js'
import {
  mcpEntryView,
  mcpUrl,
  READ_TOOLS,
  scopeHeader,
  TOKEN_ENV,
  WRITE_TOOLS,
} from '../../mcp-entries.js'
import type { HostAdapter } from '../host-adapter.js'
import { isLoopbackUrl, withHttpPrompt } from './http-hooks.js'
import { mergeAllowRules } from './permissions.js'

/** Claude Code's name of one of our tools (`mcp__<server>__<tool>`). */
export const claudeToolRule = (tool: string): string => `mcp__${MCP_SERVER_NAME}__${tool}`

/** The `permissions.allow` rules `setup` manages in Claude Code: read tools, and writes when asked. */
export const claudeAllowRules = (allowWrites: boolean): string[] =>
  [...READ_TOOLS, ...(allowWrites ? WRITE_TOOLS : [])].map(claudeToolRule)

/**
 * Claude Code's entry for this server URL: `{type: "http", url}` and, when a token is in use, a
 * header the host fills from `POWERCONTEXT_CLIENT_API_TOKEN` (`${…}` expansion, so the token is
 * never written; a `headersHelper` command would not run in a project the user has not trusted
 * in the interactive dialog, which `claude -p` never shows), with the project's scope when one
 * is given.
 */
export function claudeMcpEntry(
  serverUrl: string,
  withToken: boolean,
  scopeId?: string,
): Record<string, unknown> {
  const headers = {
    ...(withToken ? { Authorization: `Bearer \${${TOKEN_ENV}}` } : {}),
    ...scopeHeader(scopeId),
  }
  return {
    type: 'http',
    url: mcpUrl(serverUrl),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
  }
}

/** `mcp__powercontext__a, mcp__powercontext__b` → `a, b`. */
const toolNames = (rules: readonly string[]): string =>
  rules.map((r) => r.slice(r.lastIndexOf('__') + 2)).join(', ')

const id = 'claude-code'

export const claudeCode: HostAdapter = {
  profile: hostProfile(id),
  extractionCli: 'claude',
  files(project, env) {
    const pluginDir = pluginDirOf(id)
    if (project !== undefined)
      return {
        host: id,
        level: 'project',
        hooksFile: join(project, '.claude', 'settings.local.json'),
        mcpFile: join(project, '.mcp.json'),
        pluginDir,
        skillFile: skillUnder(join(project, '.claude')),
      }
    const home = homeOf(env)
    return {
      host: id,
      level: 'user',
      hooksFile: join(home, '.claude', 'settings.json'),
      mcpFile: join(home, '.claude.json'),
      pluginDir,
      skillFile: skillUnder(join(home, '.claude')),
    }
  },
  // A server on this machine: UserPromptSubmit posts to the server (http form).
  wantedHooks(o, env, render) {
    if (!isLoopbackUrl(o.serverUrl)) return render(env)
    const rendered = render({ ...env, POWERCONTEXT_HOOKS_FORM: 'http' })
    return withHttpPrompt(rendered, o.serverUrl, o.withToken)
  },
  editHookSettings(settings, o) {
    const rules = mergeAllowRules(settings, claudeAllowRules(o.allowWrites))
    return {
      settings: rules.settings,
      what: [
        ...(rules.added.length > 0 ? [`allowed ${toolNames(rules.added)}`] : []),
        ...(rules.removed.length > 0 ? [`no longer allowed ${toolNames(rules.removed)}`] : []),
      ],
    }
  },
  readMcpEntry: (file) =>
    mcpEntryView(
      (parseJsonSettings(file)['mcpServers'] as Record<string, unknown> | undefined)?.[
        MCP_SERVER_NAME
      ],
      'url',
      'headers',
    ),
  writeMcpEntry(file, o) {
    const settings = parseJsonSettings(file)
    const servers = (settings['mcpServers'] ?? {}) as Record<string, unknown>
    const entry = claudeMcpEntry(o.serverUrl, o.withToken, o.scopeId)
    const current = servers[MCP_SERVER_NAME]
    if (isDeepStrictEqual(current, entry)) return { text: null, detail: '' }
    const next = { ...settings, mcpServers: { ...servers, [MCP_SERVER_NAME]: entry } }
    const verb = current === undefined ? 'added' : 'updated'
    return {
      text: jsonText(next),
      detail: `${verb} server ${MCP_SERVER_NAME} → ${String(entry['url'])}`,
    }
  },
  // The hook commands hold this machine's paths; `.mcp.json` names this machine's server.
  machineFiles: (files) => [files.hooksFile, files.mcpFile],
}
