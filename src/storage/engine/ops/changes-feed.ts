import type { DialectTx } from '../../spi/dialect-tx.js'
import type { ChangesResult } from '../../spi/memory-backend.js'
import { toRedactionEntry } from '../../spi/redaction-types.js'
import { skippedInChangesTx } from '../journal/journal-checks.js'
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
