/**
 * `powercontext doctor <host>`: the server checks of `doctor`, then what an agent host
 * needs — MCP answers `tools/list`, the hooks are installed and point at files that exist, the MCP
 * entry points at this server (and, in a project, sends the project's scope), the project-memory skill is installed and current, the project's scope resolves to a valid scope id, and the host's
 * own checks (its adapter's `checks`) — each failure explained in one line. Reads only; never writes a file.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'

import { resolveScope } from '../../../integrations/shared/scope.mjs'
import { createPowerContextClient } from '../../client/index.js'
import { checkScopeId } from '../../core/ids.js'
import { SCOPE_HEADER } from '../../mcp/mcp-identity.js'
import { runDoctor } from '../doctor-command.js'
import { projectScope } from '../project-scope.js'
import type { HostFiles } from './agent-hosts.js'
import {
  hookScripts,
  MCP_SERVER_NAME,
  renderHooks,
  runsOurHook,
  scriptPaths,
  SKILL_NAME,
  skillSource,
} from './agent-hosts.js'
import { parseJsonSettings, readConfigFile } from './config-files.js'
import { installedHooks } from './hook-merge.js'
import type { HostAdapter, McpEntryView } from './hosts/host-adapter.js'
import type { AgentHost } from './hosts/index.js'
import { HOST_ADAPTERS, hostFiles } from './hosts/index.js'
import { mcpUrl } from './mcp-entries.js'

/** One line of the report. */
export interface AgentCheck {
  readonly name: string
  readonly status: 'pass' | 'fail' | 'skip'
  readonly detail: string
}

/** What `doctor <host> --json` prints. */
export interface AgentDoctorReport {
  readonly host: AgentHost
  readonly server_url: string
  readonly ok: boolean
  readonly checks: readonly AgentCheck[]
}

/** The adapter of the host whose files these are. */
const adapterOf = (files: HostFiles): HostAdapter => HOST_ADAPTERS[files.host as AgentHost]

/** Our hooks in the project's and the user's settings: every event, existing files. */
async function hooksCheck(levels: readonly HostFiles[]): Promise<AgentCheck> {
  const host = levels[0]?.host as AgentHost
  const wanted = renderHooks(levels[0] as HostFiles, {})
  const isOurs = runsOurHook(host, hookScripts(wanted))
  const fail = (detail: string): AgentCheck => ({ name: 'hooks', status: 'fail', detail })
  for (const files of levels) {
    const found = installedHooks(parseJsonSettings(await readConfigFile(files.hooksFile)), isOurs)
    if (found.size === 0) continue
    const missing = Object.keys(wanted).filter((e) => !found.has(e))
    if (missing.length > 0)
      return fail(
        `${files.hooksFile} lacks the ${missing.join(', ')} hook; run \`powercontext setup ${host}\` again`,
      )
    for (const [event, commands] of found)
      for (const command of commands) {
        const node = /^(?:\w+=\S+ )*('[^']+'|\S+)/.exec(command)?.[1]?.replace(/^'|'$/g, '')
        const gone = [...scriptPaths(command), ...(node?.startsWith('/') ? [node] : [])].filter(
          (p) => !existsSync(p),
        )
        if (gone.length > 0)
          return fail(
            `the ${event} hook in ${files.hooksFile} runs ${gone[0]}, which does not exist; run \`powercontext setup ${host}\` again`,
          )
      }
    const off = await adapterOf(files).hooksOff?.(files)
    if (off !== undefined) return fail(off)
    return {
      name: 'hooks',
      status: 'pass',
      detail: `${[...found.keys()].join(', ')} in ${files.hooksFile}`,
    }
  }
  return fail(
    `no PowerContext hooks in ${levels.map((l) => l.hooksFile).join(' or ')}; run \`powercontext setup ${host}\` (or --user)`,
  )
}

/** The first level (project, then user) whose hooks file holds our hooks. */
async function levelWithOurHooks(levels: readonly HostFiles[]): Promise<HostFiles | undefined> {
  const first = levels[0] as HostFiles
  const isOurs = runsOurHook(first.host, hookScripts(renderHooks(first, {})))
  for (const files of levels)
    if (installedHooks(parseJsonSettings(await readConfigFile(files.hooksFile)), isOurs).size > 0)
      return files
  return undefined
}

/** The `X-PowerContext-Scope` an entry sends. */
function scopeHeaderOf(entry: McpEntryView): string | undefined {
  const headers = entry.headers as Record<string, unknown> | undefined
  const value = typeof headers === 'object' && headers !== null ? headers[SCOPE_HEADER] : undefined
  return typeof value === 'string' ? value : undefined
}

/**
 * Our MCP entry in the host's config, pointing at the server checked; a project-level entry's
 * scope header must name the project's scope as it resolves now (a changed origin changes it).
 */
async function mcpEntryCheck(
  levels: readonly HostFiles[],
  serverUrl: string,
  project: string,
): Promise<AgentCheck> {
  const host = levels[0]?.host as AgentHost
  for (const files of levels) {
    const entry = adapterOf(files).readMcpEntry(await readConfigFile(files.mcpFile))
    if (entry === undefined) continue
    const url = entry.url
    if (url !== mcpUrl(serverUrl))
      return {
        name: 'mcp-entry',
        status: 'fail',
        detail: `${files.mcpFile} points ${MCP_SERVER_NAME} at ${String(url)}, not ${mcpUrl(serverUrl)}; run \`powercontext setup ${host} --server-url ${serverUrl}\``,
      }
    const named = scopeHeaderOf(entry)
    const scope = resolveScope({ cwd: project, env: process.env, host }).scope_id
    if (files.level === 'project' && named !== undefined && named !== scope)
      return {
        name: 'mcp-entry',
        status: 'fail',
        detail: `${files.mcpFile} sends ${SCOPE_HEADER} ${named}, but the project's scope is ${scope} now; run \`powercontext setup ${host}\` again`,
      }
    const sends = named === undefined ? 'no scope header' : `scope ${named}`
    return {
      name: 'mcp-entry',
      status: 'pass',
      detail: `${MCP_SERVER_NAME} → ${String(url)} in ${files.mcpFile} (${sends})`,
    }
  }
  return {
    name: 'mcp-entry',
    status: 'fail',
    detail: `no ${MCP_SERVER_NAME} MCP server in ${levels.map((l) => l.mcpFile).join(' or ')}; run \`powercontext setup ${host}\``,
  }
}

/** The project's (else the user's) copy of the skill, the same as the package's. */
async function skillCheck(levels: readonly HostFiles[]): Promise<AgentCheck> {
  const host = levels[0]?.host as AgentHost
  const wanted = await readFile(skillSource(levels[0] as HostFiles), 'utf8')
  for (const files of levels) {
    const found = await readConfigFile(files.skillFile)
    if (found.text === null) continue
    if (found.text !== wanted)
      return {
        name: 'skill',
        status: 'fail',
        detail: `${files.skillFile} is not this version's ${SKILL_NAME} skill; run \`powercontext setup ${host}${files.level === 'user' ? ' --user' : ''}\` again`,
      }
    return { name: 'skill', status: 'pass', detail: `${SKILL_NAME} in ${files.skillFile}` }
  }
  return {
    name: 'skill',
    status: 'fail',
    detail: `no ${SKILL_NAME} skill in ${levels.map((l) => l.skillFile).join(' or ')}; run \`powercontext setup ${host}\``,
  }
}

function scopeCheck(project: string): AgentCheck {
  const scope = projectScope(project)
  try {
    checkScopeId(scope)
    return { name: 'scope', status: 'pass', detail: `${project} is scope ${scope}` }
  } catch (err) {
    return {
      name: 'scope',
      status: 'fail',
      detail: `${project} resolves to an unusable scope id: ${(err as Error).message}`,
    }
  }
}

/** The server URL a host is set up for: its project or user MCP entry, else undefined. */
export async function installedServerUrl(
  levels: readonly HostFiles[],
): Promise<string | undefined> {
  for (const files of levels) {
    try {
      const entry = adapterOf(files).readMcpEntry(await readConfigFile(files.mcpFile))
      const url = entry?.url
      if (typeof url === 'string' && url.endsWith('/mcp')) return url.slice(0, -'/mcp'.length)
    } catch {
      // an unreadable file is reported by the checks
    }
  }
  return undefined
}

/** The settings levels doctor looks at: the project's, then the user's. */
export const doctorLevels = (host: AgentHost, project: string): HostFiles[] => [
  hostFiles(host, project),
  hostFiles(host, undefined),
]

/**
 * Runs every check. Server checks come first; the MCP check is skipped when the server is not
 * reachable; a settings file that does not parse fails its check with the reason.
 */
export async function runAgentDoctor(o: {
  host: AgentHost
  project: string
  serverUrl: string
  token: string | undefined
}): Promise<AgentDoctorReport> {
  const levels = doctorLevels(o.host, o.project)
  const client = createPowerContextClient({ baseUrl: o.serverUrl, token: o.token })
  // The server checks include `/mcp`; a host's doctor checks no local data directory.
  const server = await runDoctor(client, { serverUrl: o.serverUrl, token: o.token })
  const checks: AgentCheck[] = [...server.checks]
  const guarded = async (name: string, run: () => Promise<AgentCheck>): Promise<AgentCheck> => {
    try {
      return await run()
    } catch (err) {
      return { name, status: 'fail', detail: String((err as Error)?.message ?? err) }
    }
  }
  checks.push(await guarded('hooks', () => hooksCheck(levels)))
  for (const check of HOST_ADAPTERS[o.host].checks ?? [])
    checks.push(
      await guarded(check.name, async () => ({
        name: check.name,
        ...(await check.run(levels, o.project, await levelWithOurHooks(levels))),
      })),
    )
  checks.push(await guarded('mcp-entry', () => mcpEntryCheck(levels, o.serverUrl, o.project)))
  checks.push(await guarded('skill', () => skillCheck(levels)))
  checks.push(scopeCheck(o.project))
  return {
    host: o.host,
    server_url: o.serverUrl,
    ok: checks.every((c) => c.status !== 'fail'),
    checks,
  }
}
