import type { Memory } from '../core/memory-model.js'
import type { MemoryBackend } from '../storage/spi/memory-backend.js'
import { RECENT_LIMIT_MAX } from '../storage/spi/memory-backend.js'

/**
 * Kinds of the session-start brief, in the order they are shown: what a new session must not
 * contradict first (constraints), then how the user wants things done (preferences), then the
 * decisions taken.
 */
export const BRIEF_KINDS = ['constraint', 'preference', 'decision'] as const
/** Memories read per kind before ordering (more than the 8 items shown, so repeats can drop). */
export const BRIEF_READ_PER_KIND = 16
/**
 * Source ids of captured user prompts (the agent hooks' and the Python reference plugins'): a
 * memory citing one was stated by the user.
 */
const USER_PROMPT_SOURCE = /^(?:claude-code|codex)-user-prompt:/u

/**
 * Whether a memory was stated rather than inferred: remembered directly (no source: an agent's
 * `remember_memory`, the CLI, the API) or taken from what the user said (it cites a captured
 * prompt). Memories extracted from commits, turn outcomes or other content are not.
 */
export const isStated = (m: Pick<Memory, 'sources'>): boolean =>
  m.sources.length === 0 || m.sources.some((s) => USER_PROMPT_SOURCE.test(s.sourceId))

/**
 * The brief's candidates in the order they are shown: by kind (constraints, preferences,
 * decisions), within a kind the stated ones first, then most recently changed first (the
 * backend's order). Each kind is read on its own, so a burst of newer memories of one kind never
 * pushes the standing ones of another out. `extra` widens each read (versions to be left out).
 */
export async function briefMemories(
  backend: MemoryBackend,
  scopeIds: readonly string[],
  extra: number,
): Promise<Memory[]> {
  const limit = Math.min(BRIEF_READ_PER_KIND + extra, RECENT_LIMIT_MAX)
  const perKind = await Promise.all(
    BRIEF_KINDS.map((kind) => backend.recent({ scopeIds, kinds: [kind], limit })),
  )
  return perKind.flatMap(({ memories }) => [
    ...memories.filter(isStated),
    ...memories.filter((m) => !isStated(m)),
  ])
}
