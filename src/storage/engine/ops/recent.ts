import { checkKinds, checkLimit } from '../../../core/command-rules.js'
import { invalidRequest } from '../../../core/errors.js'
import { checkScopeId } from '../../../core/ids.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { RecentCommand, RecentResult } from '../../spi/memory-backend.js'
import {
  RECENT_LIMIT_DEFAULT,
  RECENT_LIMIT_MAX,
  RECENT_SCOPES_MAX,
} from '../../spi/memory-backend.js'
import { versionRowProblems, viewOf } from '../version-codec.js'

/** A validated `recent` read. */
export interface CheckedRecent {
  readonly scopeIds: readonly string[]
  readonly kinds: string[] | undefined
  readonly limit: number
}

/**
 * Validates a `recent` read: 1–9 scope ids (a repeated one counts once), an optional kind filter,
 * `limit` 1–100 (default 16).
 * @throws PowerContextError `invalid_request`
 */
export function checkRecent(cmd: RecentCommand): CheckedRecent {
  const ids: unknown = cmd.scopeIds
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > RECENT_SCOPES_MAX)
    throw invalidRequest('scope_ids', `must hold 1–${RECENT_SCOPES_MAX} scope ids`)
  return {
    scopeIds: [...new Set(ids.map((id: unknown, i) => checkScopeId(id, `scope_ids[${i}]`)))],
    kinds: checkKinds(cmd.kinds),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: RECENT_LIMIT_MAX,
      fallback: RECENT_LIMIT_DEFAULT,
    }),
  }
}

/**
 * Active memories of the scopes, newest first, read in one snapshot. Like a search hit, a memory
 * whose stored version fails its checks (hash, canonical bytes) is left out rather than shown.
 */
export async function recentInTx(tx: DialectTx, q: CheckedRecent): Promise<RecentResult> {
  const rows = await tx.recentMemories(q)
  const current = await tx.loadCurrent(rows.map((r) => r.memoryId))
  const memories = rows.flatMap((r) => {
    const c = current.get(r.memoryId)
    // Same snapshot as the rows: only a version failing its checks is left out.
    if (c === undefined || versionRowProblems(c.version).length > 0) return []
    return [viewOf(c.version, c.row)]
  })
  return { memories }
}
