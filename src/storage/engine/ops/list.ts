import { checkKinds, checkLimit, checkStates } from '../../../core/command-rules.js'
import { checkMemoryId, checkScopeId } from '../../../core/ids.js'
import type { MemoryState } from '../../../core/memory-model.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import {
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  type ListCommand,
  type ListResult,
} from '../../spi/memory-backend.js'
import { LIST_RESPONSE_BYTES_MAX } from '../../spi/memory-commands.js'
import { optional } from '../command-checks.js'
import { viewOfVersion } from '../redaction/redaction-reads.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { versionBytes } from './answer-bytes.js'

/**
 * list: one keyset page over memory ids, filtered by state and kind, within
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

/** Checks list: states, kinds, keyset `after`, `limit` (default 100, at most 500). */
export function checkList(cmd: ListCommand) {
  return {
    scopeId: checkScopeId(cmd.scopeId),
    states: checkStates(cmd.states),
    kinds: checkKinds(cmd.kinds),
    after: optional(cmd.after, (a) => checkMemoryId(a, 'after')),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: LIST_LIMIT_MAX,
      fallback: LIST_LIMIT_DEFAULT,
    }),
  }
}

/** One keyset page of memories, oldest id first. */
export async function list(run: TxRunner, cmd: ListCommand): Promise<ListResult> {
  const checked = checkList(cmd)
  return run.read((tx) => listInTx(tx, checked))
}
