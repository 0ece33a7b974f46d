import { PowerContextError } from '../../../core/errors.js'
import type { VerifyReport } from '../../spi/memory-backend.js'
import { withVectorChecks } from '../vectors/vector-checks.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { verifyInTx } from './verify.js'

/**
 * The row checks of `verify` after the database's own integrity check has found `integrity`. Runs
 * in a write transaction because index integrity checks are commands to the index (nothing is
 * written).
 */
export async function verifyAfterIntegrity(
  run: TxRunner,
  integrity: readonly string[],
): Promise<VerifyReport> {
  try {
    return await run.write(async (tx) => {
      const report = await withVectorChecks(tx, await verifyInTx(tx))
      if (integrity.length === 0) return report
      return { ...report, ok: false, problems: [...integrity, ...report.problems] }
    })
  } catch (err) {
    // A damaged file may stop the row checks; the database's own check has said why.
    if (integrity.length === 0 || !(err instanceof PowerContextError)) throw err
    const counts = { memories: 0, versions: 0, heads: 0, changes: 0 }
    return { ok: false, problems: [...integrity, `row checks stopped: ${err.message}`], counts }
  }
}
