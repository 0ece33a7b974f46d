import { checkLimit } from '../../../core/command-rules.js'
import { checkScopeId } from '../../../core/ids.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import {
  CHANGES_LIMIT_DEFAULT,
  CHANGES_LIMIT_MAX,
  type ChangesCommand,
  type ChangesResult,
} from '../../spi/memory-backend.js'
import { toRedactionEntry } from '../../spi/redaction-types.js'
import { skippedInChangesTx } from '../journal/journal-checks.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { changesInTx } from './changes.js'

/**
 * One page of the change feed: memory change rows, and the skipped sources and redactions that
 * took numbers of the same sequence in the range the page covers (`since < seq ≤ nextSince`), so
 * that paging reports each exactly once.
 */
export async function changesFeedInTx(
  tx: DialectTx,
  q: { scopeId: string; since: number; limit: number },
): Promise<ChangesResult> {
  const page = await changesInTx(tx, q)
  const skipped = await skippedInChangesTx(tx, q, page)
  const redacted =
    q.since < page.nextSince ? await tx.redactions.between(q.scopeId, q.since, page.nextSince) : []
  return {
    ...page,
    ...(skipped.length === 0 ? {} : { skippedSources: skipped }),
    ...(redacted.length === 0 ? {} : { redactions: redacted.map(toRedactionEntry) }),
  }
}

/** Checks changes: `since` (exclusive, default 0) and `limit` (default 1000, at most 10,000). */
export function checkChanges(cmd: ChangesCommand) {
  return {
    scopeId: checkScopeId(cmd.scopeId),
    since: checkLimit(cmd.since, 'since', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: CHANGES_LIMIT_MAX,
      fallback: CHANGES_LIMIT_DEFAULT,
    }),
  }
}

/** Change-log rows after `since` (exclusive; 0 = from the start), skips and redactions. */
export async function changes(run: TxRunner, cmd: ChangesCommand): Promise<ChangesResult> {
  const q = checkChanges(cmd)
  return run.read((tx) => changesFeedInTx(tx, q))
}
