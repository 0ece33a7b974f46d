import { isActive } from '../../../core/memory-state.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { RebuildReport } from '../../spi/memory-backend.js'
import { rebuildSourcePathsInTx } from '../ops/freshness.js'
import { headOf } from '../row-builders.js'
import { isRedactedVersionRow } from '../version-codec.js'
import { paged } from './paged.js'

/**
 * Rebuilds the head projection and every index over it from the authoritative rows, reading the
 * memories in pages (bounded memory whatever the size), then the path-change projection from the
 * source journal.
 */
export async function rebuildInTx(tx: DialectTx): Promise<RebuildReport> {
  await tx.clearProjections()
  let heads = 0
  const page = (after: string, limit: number) => tx.pages.memories(after, limit)
  let active: string[] = []
  const project = async (): Promise<void> => {
    for (const c of (await tx.loadCurrent(active)).values()) {
      // An erased current version is not projected: its text is gone (docs/storage.md).
      if (isRedactedVersionRow(c.version)) continue
      await tx.putHead(headOf(c.version))
      heads += 1
    }
    active = []
  }
  for await (const m of paged('', 500, page, (r) => r.memoryId)) {
    if (!isActive(m.state)) continue
    active.push(m.memoryId)
    if (active.length >= 500) await project()
  }
  await project()
  await rebuildSourcePathsInTx(tx)
  return { heads }
}
