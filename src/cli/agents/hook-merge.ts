/**
 * Merges PowerContext's hooks into a host's hook settings without touching anyone else's. Claude
 * Code (`settings.json`) and Codex (`hooks.json`) share one shape: `{hooks: {Event: [{matcher?,
 * hooks: [{type: "command", command, timeout?}]}]}}`. A handler is ours when its command runs one
 * of our hook scripts, or when it posts to our hook route (Claude Code's `type: "http"`); every
 * other handler, group, event and key stays exactly as it was. Pure functions on parsed JSON.
 */
import { isDeepStrictEqual } from 'node:util'

import { isOurHttpHook } from './claude-hook-route.js'

/** One handler of a hook group. */
export interface HookHandler {
  readonly type: string
  readonly command?: string
  readonly timeout?: number
  readonly [key: string]: unknown
}

/** One matcher group of an event. */
export interface HookGroup {
  readonly matcher?: string
  readonly hooks: readonly HookHandler[]
  readonly [key: string]: unknown
}

/** The hooks a host should run: event name → matcher groups. */
export type HookTable = Readonly<Record<string, readonly HookGroup[]>>

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** What a merge did to one event. */
export interface EventChange {
  readonly event: string
  readonly action: 'added' | 'updated' | 'removed'
}

/** The merged settings and what changed; `changes` is empty when nothing did. */
export interface HookMerge {
  readonly settings: Json
  readonly changes: readonly EventChange[]
}

const groupsOf = (hooks: Json, event: string): unknown[] => {
  const v = hooks[event]
  return Array.isArray(v) ? v : []
}

/**
 * Puts `wanted` into `settings.hooks`: for each event, our groups exactly as wanted, after the
 * groups of others; our handlers found elsewhere (another path, an older set of events) are
 * removed. When our groups are already there as wanted, the event is left as it is, wherever
 * they sit. `isOurs` tells our handlers by their command.
 * @throws Error when `settings.hooks` (or an event under it) is not of the documented shape;
 *   the caller reports the file and writes nothing.
 */
export function mergeHooks(
  settings: Json,
  wanted: HookTable,
  isOurs: (command: string) => boolean,
): HookMerge {
  const hooks = settings['hooks'] ?? {}
  if (!isObject(hooks)) throw new Error('"hooks" is not an object')
  const ours = (h: unknown): boolean => isOurHandler(h, isOurs)
  const changes: EventChange[] = []
  const next: Json = { ...hooks }
  for (const event of new Set([...Object.keys(hooks), ...Object.keys(wanted)])) {
    const groups = hooks[event] === undefined ? [] : hooks[event]
    if (!Array.isArray(groups)) throw new Error(`"hooks.${event}" is not an array`)
    const mine = groups.filter(
      (g) => isObject(g) && Array.isArray(g['hooks']) && g['hooks'].some(ours),
    )
    const want = wanted[event] ?? []
    const alreadyThere =
      mine.every((g) => (g as { hooks: unknown[] }).hooks.every(ours)) &&
      isDeepStrictEqual(mine, want)
    if (alreadyThere) continue
    const others = groupsOf(hooks, event).flatMap((g) => {
      if (!isObject(g) || !Array.isArray(g['hooks']) || !g['hooks'].some(ours)) return [g]
      const rest = g['hooks'].filter((h) => !ours(h))
      return rest.length === 0 ? [] : [{ ...g, hooks: rest }]
    })
    const merged = [...others, ...want]
    if (merged.length === 0) delete next[event]
    else next[event] = merged
    changes.push({
      event,
      action: mine.length === 0 ? 'added' : want.length === 0 ? 'removed' : 'updated',
    })
  }
  return { settings: changes.length === 0 ? settings : { ...settings, hooks: next }, changes }
}

/** Whether `h` is one of our handlers: a command running our hook, or a post to our route. */
const isOurHandler = (h: unknown, isOurs: (command: string) => boolean): boolean =>
  isObject(h) && ((typeof h['command'] === 'string' && isOurs(h['command'])) || isOurHttpHook(h))

/** Our handlers in the settings: event → the commands (or http hook URLs) found (for doctor). */
export function installedHooks(
  settings: Json,
  isOurs: (command: string) => boolean,
): Map<string, string[]> {
  const found = new Map<string, string[]>()
  const hooks = settings['hooks']
  if (!isObject(hooks)) return found
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue
    for (const g of groups) {
      if (!isObject(g) || !Array.isArray(g['hooks'])) continue
      for (const h of g['hooks'])
        if (isObject(h) && isOurHandler(h, isOurs))
          found.set(event, [...(found.get(event) ?? []), String(h['command'] ?? h['url'])])
    }
  }
  return found
}
