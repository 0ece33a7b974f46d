/**
 * Where each agent host keeps what `setup` installs, per its documentation, and the hooks to
 * install, rendered from the plugin's own `hooks/hooks.json` in `integrations/<host>/` (one
 * source for the plugin and for `setup`): `${CLAUDE_PLUGIN_ROOT}` becomes the absolute plugin
 * directory and `node` the absolute path of the Node that runs this CLI, so the host needs no
 * PATH to start a hook.
 *
 * - Claude Code: hooks in `~/.claude/settings.json` (`--user`) or the project's
 *   `.claude/settings.local.json` (personal, not committed: the commands hold absolute paths of
 *   this machine); the MCP server in `~/.claude.json` `mcpServers` (user scope) or the project's
 *   `.mcp.json` (project scope, shared: a URL only, the token comes from the environment).
 * - Codex: hooks in `$CODEX_HOME/hooks.json` (default `~/.codex`) or `<project>/.codex/hooks.json`;
 *   the MCP server as `[mcp_servers.powercontext]` in the `config.toml` beside it.
 * - The project-memory skill (`integrations/<host>/skills/project-memory/SKILL.md`): Claude Code
 *   reads `~/.claude/skills/` and `<project>/.claude/skills/`; Codex reads `$CODEX_HOME/skills/`
 *   and the repository's `.agents/skills/`. The skill holds no machine path, so a project's copy
 *   can be committed.
 */
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { HookGroup, HookTable } from './hook-merge.js'

/** The hosts `setup` and `doctor` know. */
export const AGENT_HOSTS = ['claude-code', 'codex'] as const
export type AgentHost = (typeof AGENT_HOSTS)[number]

/** Name of our MCP server entry in every host. */
export const MCP_SERVER_NAME = 'powercontext'

/** The package's root directory (`src/cli/agents` and `dist/cli/agents` are both three deep). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url))
/** The `powercontext` executable of this package. */
export const CLI_BIN = join(PACKAGE_ROOT, 'bin', 'powercontext.js')

/** The files of one host installation. */
export interface HostFiles {
  readonly host: AgentHost
  readonly level: 'user' | 'project'
  /** Where the hooks go. */
  readonly hooksFile: string
  /** Where the MCP entry goes (JSON for Claude Code, TOML for Codex). */
  readonly mcpFile: string
  /** The plugin directory whose hook scripts the commands run. */
  readonly pluginDir: string
  /** Where the project-memory skill goes. */
  readonly skillFile: string
}

/** The name of the skill `setup` installs. */
export const SKILL_NAME = 'project-memory'

/** The skill's source in the package: `integrations/<host>/skills/project-memory/SKILL.md`. */
export const skillSource = (files: HostFiles): string =>
  join(files.pluginDir, 'skills', SKILL_NAME, 'SKILL.md')

/** The files of `host` for the user (`project` undefined) or a project directory. */
export function hostFiles(
  host: AgentHost,
  project: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): HostFiles {
  const home = env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : homedir()
  const pluginDir = join(PACKAGE_ROOT, 'integrations', host)
  const skill = (dir: string): string => join(dir, 'skills', SKILL_NAME, 'SKILL.md')
  if (host === 'claude-code') {
    return project === undefined
      ? {
          host,
          level: 'user',
          hooksFile: join(home, '.claude', 'settings.json'),
          mcpFile: join(home, '.claude.json'),
          pluginDir,
          skillFile: skill(join(home, '.claude')),
        }
      : {
          host,
          level: 'project',
          hooksFile: join(project, '.claude', 'settings.local.json'),
          mcpFile: join(project, '.mcp.json'),
          pluginDir,
          skillFile: skill(join(project, '.claude')),
        }
  }
  const codexHome = env['CODEX_HOME'] || join(home, '.codex')
  const dir = project === undefined ? codexHome : join(project, '.codex')
  return {
    host,
    level: project === undefined ? 'user' : 'project',
    hooksFile: join(dir, 'hooks.json'),
    mcpFile: join(dir, 'config.toml'),
    pluginDir,
    skillFile: skill(project === undefined ? codexHome : join(project, '.agents')),
  }
}

/** A word for a POSIX shell, single-quoted when it needs to be. */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`

const PLUGIN_ROOT = /\$\{(?:CLAUDE_)?PLUGIN_ROOT\}/g

/** A detached hook (`node "…/x.mjs" --detach`, the Stop hook) and the script it runs. */
const DETACHED = /^node\s+("[^"]+\.mjs")\s+--detach$/

/**
 * The hooks to install for a host: the plugin's table with absolute commands, and `env` (e.g.
 * the server URL) set in front of each command. Where the host runs commands with a POSIX shell
 * (`posix`), a detached hook runs as `sh integrations/shared/hook-detach.sh NODE SCRIPT`: the
 * hand-over to the background worker then starts no Node on the host's turn.
 * @throws Error when the plugin's hooks file is missing or malformed (a broken package).
 */
export function renderHooks(
  files: HostFiles,
  env: Readonly<Record<string, string>>,
  nodePath: string = process.execPath,
  posix: boolean = process.platform !== 'win32',
): HookTable {
  const pluginDir = files.pluginDir.replace(/\/$/, '')
  const detachScript = shellWord(join(pluginDir, '..', 'shared', 'hook-detach.sh'))
  const source = join(files.pluginDir, 'hooks', 'hooks.json')
  const parsed = JSON.parse(readFileSync(source, 'utf8')) as { hooks?: Record<string, unknown> }
  if (typeof parsed.hooks !== 'object' || parsed.hooks === null)
    throw new Error(`${source} has no hooks table`)
  const prefix = Object.entries(env)
    .map(([k, v]) => `${k}=${shellWord(v)} `)
    .join('')
  const table: Record<string, HookGroup[]> = {}
  for (const [event, groups] of Object.entries(parsed.hooks)) {
    table[event] = (groups as HookGroup[]).map((g) => ({
      ...g,
      hooks: g.hooks.map((h) => {
        if (typeof h.command !== 'string') return h
        const rooted = h.command.replace(PLUGIN_ROOT, pluginDir)
        const detached = posix ? DETACHED.exec(rooted) : null
        const command = detached
          ? `sh ${detachScript} ${shellWord(nodePath)} ${detached[1]}`
          : rooted.replace(/^node(?=\s)/, shellWord(nodePath))
        return { ...h, command: `${prefix}${command}` }
      }),
    }))
  }
  return table
}

/** The hook scripts a table runs (their file names), which tells our handlers apart. */
export function hookScripts(table: HookTable): string[] {
  const names = new Set<string>()
  for (const groups of Object.values(table))
    for (const g of groups)
      for (const h of g.hooks)
        for (const m of (h.command ?? '').matchAll(/[^\s'"]+\.m?js\b/g)) names.add(basename(m[0]))
  return [...names].filter((n) => n !== basename(CLI_BIN))
}

/** True when a command runs one of our hook scripts from an `integrations/<host>/` directory. */
export const runsOurHook =
  (host: AgentHost, scripts: readonly string[]) =>
  (command: string): boolean =>
    command.includes(`integrations/${host}/`) && scripts.some((s) => command.includes(s))

/** The script paths a command runs (absolute `.mjs`/`.js` paths), for doctor. */
export function scriptPaths(command: string): string[] {
  return [...command.matchAll(/(?:"([^"]+\.m?js)"|'([^']+\.m?js)'|(\/[^\s'"]+\.m?js))/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? '',
  )
}
