/**
 * What `setup` and `doctor` share for every agent host: the package's paths, the names of our
 * MCP server and skill, and the hooks to install, rendered from the plugin's own
 * `hooks/hooks.json` in `integrations/<host>/` (one source for the plugin and for `setup`):
 * `${CLAUDE_PLUGIN_ROOT}` (or `${PLUGIN_ROOT}`) becomes the absolute plugin directory and `node`
 * the absolute path of the Node that runs this CLI, so the host needs no PATH to start a hook.
 * Where each host keeps its files: its adapter (`hosts/<host>/adapter.ts`).
 */
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { HookGroup, HookTable } from './hook-merge.js'
import type { HostFiles } from './hosts/host-adapter.js'

export type { HostFiles } from './hosts/host-adapter.js'

/** Name of our MCP server entry in every host. */
export const MCP_SERVER_NAME = 'powercontext'

/** The package's root directory (`src/cli/agents` and `dist/cli/agents` are both three deep). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url))
/** The `powercontext` executable of this package. */
export const CLI_BIN = join(PACKAGE_ROOT, 'bin', 'powercontext.js')

/** The name of the skill `setup` installs. */
export const SKILL_NAME = 'project-memory'

/** The skill's source in the package: `integrations/<host>/skills/project-memory/SKILL.md`. */
export const skillSource = (files: HostFiles): string =>
  join(files.pluginDir, 'skills', SKILL_NAME, 'SKILL.md')

/** The home directory of `env` (`HOME`, else the OS's). */
export const homeOf = (env: NodeJS.ProcessEnv): string =>
  env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : homedir()

/** A host's plugin directory in the package: `integrations/<host>/`. */
export const pluginDirOf = (host: string): string => join(PACKAGE_ROOT, 'integrations', host)

/** Where the skill goes under a host's skills root (`<root>/skills/project-memory/SKILL.md`). */
export const skillUnder = (root: string): string => join(root, 'skills', SKILL_NAME, 'SKILL.md')

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
  (host: string, scripts: readonly string[]) =>
  (command: string): boolean =>
    command.includes(`integrations/${host}/`) && scripts.some((s) => command.includes(s))

/** The script paths a command runs (absolute `.mjs`/`.js` paths), for doctor. */
export function scriptPaths(command: string): string[] {
  return [...command.matchAll(/(?:"([^"]+\.m?js)"|'([^']+\.m?js)'|(\/[^\s'"]+\.m?js))/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? '',
  )
}
