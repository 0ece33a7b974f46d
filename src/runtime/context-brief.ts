import { HOST_PROFILES } from '../../integrations/shared/hosts.mjs'
import type { Memory } from '../core/memory-model.js'
import { isActive } from '../core/memory-state.js'
import type { MemoryBackend } from '../storage/spi/memory-backend.js'
import { RECENT_LIMIT_MAX } from '../storage/spi/memory-backend.js'
import type { GivenMemory } from '../storage/spi/receipt-types.js'

/**
 * Kinds of the session-start brief, in the order they are shown: what a new session must not
 * contradict first (constraints), then how the user wants things done (preferences), then the
 * decisions taken.
 */
export const BRIEF_KINDS = ['constraint', 'preference', 'decision'] as const
/** Memories read per kind before ordering (more than the 8 items shown, so repeats can drop). */
export const BRIEF_READ_PER_KIND = 16
/**
 * Distinct sessions that must have been given a memory's current version (receipts) for it to be
 * standing: one session's brief alone does not make it so.
 */
export const BRIEF_STANDING_SESSIONS = 2
/** Receipts of the scopes the standing memories are counted over, the newest first. */
export const BRIEF_RECEIPTS_WINDOW = 500
/**
 * Source id prefixes of captured user prompts, one per agent host (the hooks' table, which the
 * Python reference plugins' ids match): a memory citing one was stated by the user.
 */
const USER_PROMPT_PREFIXES = Object.values(HOST_PROFILES).map((h) => h.promptSourcePrefix)
const isUserPrompt = (sourceId: string): boolean =>
  USER_PROMPT_PREFIXES.some((prefix) => sourceId.startsWith(prefix))

/**
 * Whether a memory was stated rather than inferred: remembered directly (no source: an agent's
 * `remember_memory`, the CLI, the API) or taken from what the user said (it cites a captured
 * prompt). Memories extracted from commits, turn outcomes or other content are not.
 */
export const isStated = (m: Pick<Memory, 'sources'>): boolean =>
  m.sources.length === 0 || m.sources.some((s) => isUserPrompt(s.sourceId))

/**
 * Standing memories of the scopes by kind: active memories whose current version the newest
 * {@link BRIEF_RECEIPTS_WINDOW} receipts show was given to at least {@link BRIEF_STANDING_SESSIONS} sessions (so neither forgotten nor
 * corrected since), most sessions first. A memory no longer readable is left out.
 */
async function standingMemories(
  backend: MemoryBackend,
  scopeIds: readonly string[],
  limit: number,
): Promise<Map<string, Memory[]>> {
  const given = await backend.receipts.given({
    scopeIds,
    kinds: [...BRIEF_KINDS],
    window: BRIEF_RECEIPTS_WINDOW,
    limit,
  })
  const read = await Promise.all(
    given.filter((g) => g.sessions >= BRIEF_STANDING_SESSIONS).map((g) => getActive(backend, g)),
  )
  const byKind = new Map<string, Memory[]>()
  for (const m of read) if (m !== undefined) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m])
  return byKind
}

/** The memory's current version when it is still active, else undefined. */
async function getActive(backend: MemoryBackend, g: GivenMemory): Promise<Memory | undefined> {
  const got = await backend.get({ scopeId: g.scopeId, memoryId: g.memoryId }).catch(() => undefined)
  return got !== undefined && isActive(got.memory.state) ? got.memory : undefined
}

/**
 * The brief's candidates in the order they are shown (docs/agents.md "Session brief"): by kind
 * (constraints, preferences, decisions); within a kind the standing memories first (given to
 * sessions before and not forgotten or corrected since, most sessions first), then the stated
 * ones, then most recently changed first (the backend's order). Each kind is read on its own, so
 * a burst of newer memories of one kind never pushes the standing ones of another out; standing
 * memories are read from the receipts, so a burst of newer ones of the same kind never pushes
 * them out either. `extra` widens each read (versions to be left out).
 */
export async function briefMemories(
  backend: MemoryBackend,
  scopeIds: readonly string[],
  extra: number,
): Promise<Memory[]> {
  const limit = Math.min(BRIEF_READ_PER_KIND + extra, RECENT_LIMIT_MAX)
  const [standing, ...perKind] = await Promise.all([
    standingMemories(backend, scopeIds, limit),
    ...BRIEF_KINDS.map((kind) => backend.recent({ scopeIds, kinds: [kind], limit })),
  ])
  return BRIEF_KINDS.flatMap((kind, i) => {
    const first = standing.get(kind) ?? []
    const seen = new Set(first.map((m) => m.memoryRef.artifactId))
    const rest = (perKind[i]?.memories ?? []).filter((m) => !seen.has(m.memoryRef.artifactId))
    return [...first, ...rest.filter(isStated), ...rest.filter((m) => !isStated(m))]
  })
}
