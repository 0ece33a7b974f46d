/**
 * The agent hosts `setup` and `doctor` know, one row each: the host's id (its folder under
 * `integrations/` and `hosts/`, its row of `integrations/shared/hosts.mjs`) → its adapter.
 */
import { claudeCode } from './claude-code/adapter.js'
import { codex } from './codex/adapter.js'
import type { HostAdapter, HostFiles } from './host-adapter.js'

export const HOST_ADAPTERS = {
  'claude-code': claudeCode,
  codex,
} as const satisfies Readonly<Record<string, HostAdapter>>

/** A host's id. */
export type AgentHost = keyof typeof HOST_ADAPTERS
/** The hosts' ids, in table order. */
export const AGENT_HOSTS = Object.keys(HOST_ADAPTERS) as readonly AgentHost[]

/** Whether `value` names a host of the table. */
export const isAgentHost = (value: string): value is AgentHost =>
  Object.hasOwn(HOST_ADAPTERS, value)

/** The files of `host` for the user (`project` undefined) or a project directory. */
export const hostFiles = (
  host: AgentHost,
  project: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): HostFiles => HOST_ADAPTERS[host].files(project, env)

/** The hosts' display names, joined (`Claude Code or Codex`). */
export const hostNames = (): string =>
  AGENT_HOSTS.map((h) => HOST_ADAPTERS[h].profile.displayName).join(' or ')
