/**
 * Claude Code's `permissions.allow` rules for our MCP tools (`mcp__powercontext__<tool>`): `setup`
 * owns exactly those rules — it adds the ones wanted and drops ours that are no longer wanted
 * (a rerun without `--allow-writes` takes the write tools back); every other rule, and every
 * other key of `permissions`, stays as it was. Pure function on parsed JSON.
 */
import { MCP_SERVER_NAME } from '../../agent-hosts.js'

type Json = Record<string, unknown>

/** The merged settings and the rules added and removed (both empty when nothing changed). */
export interface AllowMerge {
  readonly settings: Json
  readonly added: readonly string[]
  readonly removed: readonly string[]
}

const OURS = `mcp__${MCP_SERVER_NAME}__`

/**
 * Puts `wanted` into `settings.permissions.allow`.
 * @throws Error when `permissions` or `permissions.allow` is not of the documented shape.
 */
export function mergeAllowRules(settings: Json, wanted: readonly string[]): AllowMerge {
  const permissions = settings['permissions'] ?? {}
  if (typeof permissions !== 'object' || permissions === null || Array.isArray(permissions))
    throw new Error('"permissions" is not an object')
  const allow = (permissions as Json)['allow'] ?? []
  if (!Array.isArray(allow) || allow.some((r) => typeof r !== 'string'))
    throw new Error('"permissions.allow" is not an array of strings')
  const current = allow as string[]
  const removed = current.filter((r) => r.startsWith(OURS) && !wanted.includes(r))
  const added = wanted.filter((r) => !current.includes(r))
  if (added.length === 0 && removed.length === 0) return { settings, added, removed }
  const next = [...current.filter((r) => !removed.includes(r)), ...added]
  return { settings: { ...settings, permissions: { ...permissions, allow: next } }, added, removed }
}
