/**
 * The whole `verify`: the database's own integrity check, then every row check (verify.ts) and the
 * vector checks in one transaction. Every problem found is listed; a check that cannot finish
 * (a page the database cannot read) is listed too, never thrown, so `admin verify` always prints
 * a report.
 */
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { VerifyReport } from '../../spi/memory-backend.js'
import { withVectorChecks } from '../vectors/vector-checks.js'
import { verifyInTx } from './verify.js'

const NO_COUNTS = { memories: 0, versions: 0, heads: 0, changes: 0 }

/** Runs the checks; `integrity` is the database's own check, `inTx` the checks' transaction. */
export async function verifyReport(
  integrity: () => Promise<string[]>,
  inTx: <T>(work: (tx: DialectTx) => Promise<T>) => Promise<T>,
): Promise<VerifyReport> {
  let own: string[]
  try {
    own = await integrity()
  } catch (err) {
    own = [`integrity check stopped: ${(err as Error).message}`]
  }
  try {
    const report = await inTx(async (tx) => withVectorChecks(tx, await verifyInTx(tx)))
    if (own.length === 0) return report
    return { ...report, ok: false, problems: [...own, ...report.problems] }
  } catch (err) {
    return {
      ok: false,
      problems: [...own, `row checks stopped: ${(err as Error).message}`],
      counts: NO_COUNTS,
    }
  }
}
