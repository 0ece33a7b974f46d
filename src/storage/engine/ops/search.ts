import { checkKinds, checkLimit } from '../../../core/command-rules.js'
import { invalidRequest } from '../../../core/errors.js'
import { checkScopeId } from '../../../core/ids.js'
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from '../../../core/search-rules.js'
import { normalizeQuery } from '../../../core/text-rules.js'
import { SEARCH_MODES, type SearchCommand, type SearchResult } from '../../spi/memory-backend.js'
import { searchInMode } from '../search/search-modes.js'
import type { TxRunner, VectorSupport } from '../vectors/vector-support.js'
import { markStaleHits } from './freshness.js'

/** Checks search: the mode (default `auto`), the query, `limit`, kinds. */
export function checkSearch(cmd: SearchCommand) {
  const mode = cmd.mode === undefined ? 'auto' : cmd.mode
  if (!(SEARCH_MODES as readonly unknown[]).includes(mode)) {
    throw invalidRequest('mode', `must be one of ${SEARCH_MODES.join(', ')}`)
  }
  return {
    mode,
    scopeId: checkScopeId(cmd.scopeId),
    query: normalizeQuery(cmd.query),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: SEARCH_LIMIT_MAX,
      fallback: SEARCH_LIMIT_DEFAULT,
    }),
    kinds: checkKinds(cmd.kinds),
  }
}

/**
 * Searches active memories. `auto` is hybrid when the embedding profile is ready and the scope's
 * vector projection is complete, else fts; an explicit `vector`/`hybrid` that cannot run fails
 * with `capability_not_supported`, never an empty result. See {@link searchInMode}.
 */
export async function search(
  run: TxRunner,
  vectors: VectorSupport,
  cmd: SearchCommand,
  fullTextProblem: string | null,
): Promise<SearchResult> {
  const { mode, ...checked } = checkSearch(cmd)
  const { mode: used, hits } = await searchInMode(
    run,
    vectors,
    checked,
    mode,
    fullTextProblem,
    // Possibly stale hits say so, read in the search's own transaction (docs/agents.md "Freshness").
    cmd.staleMarks === false
      ? undefined
      : (tx, result) =>
          markStaleHits(
            tx,
            checked.scopeId,
            result,
            typeof cmd.staleMarks === 'number' ? cmd.staleMarks : result.hits.length,
          ),
  )
  return { mode: used, hits }
}
