import type { MemoryState } from '../../../core/memory-model.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { ListResult } from '../../spi/memory-backend.js'
import { LIST_RESPONSE_BYTES_MAX } from '../../spi/memory-commands.js'
import { viewOfVersion } from '../redaction/redaction-reads.js'
import { versionBytes } from './answer-bytes.js'

/**
 * DESIGN §3 list: one keyset page over memory ids, filtered by state and kind, within
 * {@link LIST_RESPONSE_BYTES_MAX}.
 */
export async function listInTx(
  tx: DialectTx,
  q: {
    scopeId: string
    states: MemoryState[]
    kinds: string[] | undefined
    after: string | undefined
    limit: number
  },
): Promise<ListResult> {
  const rows = await tx.listMemories({ ...q, limit: q.limit + 1 })
  const page = rows.slice(0, q.limit)
  const current = await tx.loadCurrent(page.map((r) => r.memoryId))
  const memories = []
  let bytes = 0
  for (const r of page) {
    const c = current.get(r.memoryId)
    if (c === undefined) throw new Error(`memory ${r.memoryId} vanished inside a read transaction`)
    const size = versionBytes(c.version)
    // The answer's byte budget ends the page early; `nextAfter` continues after the last shown.
    if (memories.length > 0 && bytes + size > LIST_RESPONSE_BYTES_MAX) {
      return { memories, nextAfter: memories.at(-1)!.memoryRef.artifactId }
    }
    bytes += size
    memories.push(await viewOfVersion(tx, c.version, c.row))
  }
  const last = page.at(-1)
  return { memories, nextAfter: rows.length > q.limit && last !== undefined ? last.memoryId : null }
}
