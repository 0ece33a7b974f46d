import { analyzeText } from '../core/analyzer.js'
import type { ChangeRow, DialectTx, MemoryRow, VersionRow } from './dialect.js'
import type { RebuildReport, VerifyReport } from './memory-backend.js'
import { headOf } from './memory-rows.js'
import { versionRowProblems } from './version-codec.js'

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list === undefined) out.set(k, [item])
    else list.push(item)
  }
  return out
}

function chainProblems(row: MemoryRow, versions: readonly VersionRow[]): string[] {
  const problems: string[] = []
  const sorted = [...versions].sort((a, b) => a.version - b.version)
  sorted.forEach((v, i) => {
    if (v.version !== i + 1) problems.push(`memory ${row.memoryId}: version ${i + 1} is missing`)
    if (v.previousVersion !== (v.version === 1 ? null : v.version - 1)) {
      problems.push(`memory ${row.memoryId}@${v.version}: previous_version is ${v.previousVersion}`)
    }
    if (v.scopeId !== row.scopeId)
      problems.push(`memory ${row.memoryId}@${v.version}: scope differs`)
    problems.push(...versionRowProblems(v))
  })
  const last = sorted.at(-1)
  if (last === undefined || last.version !== row.currentVersion) {
    problems.push(
      `memory ${row.memoryId}: current version ${row.currentVersion} is not its last version`,
    )
  } else if (last.kind !== row.kind) {
    problems.push(`memory ${row.memoryId}: kind ${row.kind} differs from its current version`)
  }
  return problems
}

function changeLogProblems(
  memories: readonly MemoryRow[],
  changes: readonly ChangeRow[],
  seqs: ReadonlyMap<string, number>,
): string[] {
  const problems: string[] = []
  for (const [scopeId, rows] of groupBy(changes, (c) => c.scopeId)) {
    const sorted = rows.map((r) => r.seq).sort((a, b) => a - b)
    sorted.forEach((seq, i) => {
      if (seq !== i + 1) problems.push(`scope ${scopeId}: change seq ${i + 1} is missing`)
    })
    if ((seqs.get(scopeId) ?? 0) !== sorted.length) {
      problems.push(`scope ${scopeId}: head seq ${seqs.get(scopeId) ?? 0} ≠ ${sorted.length} rows`)
    }
  }
  const byMemory = groupBy(changes, (c) => c.memoryId)
  for (const row of memories) {
    const last = (byMemory.get(row.memoryId) ?? []).sort((a, b) => a.seq - b.seq).at(-1)
    if (last === undefined) {
      problems.push(`memory ${row.memoryId}: no change-log row`)
    } else if (last.toRevision !== row.currentVersion || last.toState !== row.state) {
      problems.push(
        `memory ${row.memoryId}: change log ends at ${last.toRevision}/${last.toState}, memory is ${row.currentVersion}/${row.state}`,
      )
    }
  }
  return problems
}

/**
 * Checks every invariant that can be read back: version chains contiguous and hash-verified, one
 * head per active memory matching its current version, adapter indexes consistent with the heads,
 * and a contiguous change log that ends at each memory's current version and state.
 */
export async function verifyInTx(tx: DialectTx): Promise<VerifyReport> {
  const memories = await tx.allMemories()
  const versions = await tx.allVersions()
  const heads = await tx.allHeads()
  const changes = await tx.allChanges()
  const problems: string[] = []
  const versionsOf = groupBy(versions, (v) => v.memoryId)
  const headOfMemory = new Map(heads.map((h) => [h.memoryId, h]))
  for (const row of memories) {
    const own = versionsOf.get(row.memoryId) ?? []
    problems.push(...chainProblems(row, own))
    const head = headOfMemory.get(row.memoryId)
    headOfMemory.delete(row.memoryId)
    if (row.state !== 'active') {
      if (head !== undefined)
        problems.push(`memory ${row.memoryId}: ${row.state} but still projected`)
      continue
    }
    const current = own.find((v) => v.version === row.currentVersion)
    if (head === undefined) {
      problems.push(`memory ${row.memoryId}: active but missing from the projection`)
    } else if (current !== undefined) {
      const expected = headOf(current)
      if (
        head.version !== expected.version ||
        head.contentHash !== expected.contentHash ||
        head.kind !== expected.kind ||
        head.scopeId !== expected.scopeId ||
        head.searchableText !== analyzeText(current.text)
      ) {
        problems.push(
          `memory ${row.memoryId}: projection does not match version ${row.currentVersion}`,
        )
      }
    }
  }
  for (const orphan of headOfMemory.keys())
    problems.push(`projection row for unknown memory ${orphan}`)
  const known = new Set(memories.map((m) => m.memoryId))
  for (const v of versions)
    if (!known.has(v.memoryId)) problems.push(`version of unknown memory ${v.memoryId}`)
  problems.push(...(await tx.checkIndexes()))
  problems.push(...changeLogProblems(memories, changes, await tx.scopeSeqs()))
  return {
    ok: problems.length === 0,
    problems,
    counts: {
      memories: memories.length,
      versions: versions.length,
      heads: heads.length,
      changes: changes.length,
    },
  }
}

/** Rebuilds the head projection and every index over it from the authoritative rows. */
export async function rebuildInTx(tx: DialectTx): Promise<RebuildReport> {
  await tx.clearProjections()
  let heads = 0
  const active = (await tx.allMemories()).filter((m) => m.state === 'active')
  for (let i = 0; i < active.length; i += 500) {
    const current = await tx.loadCurrent(active.slice(i, i + 500).map((m) => m.memoryId))
    for (const c of current.values()) {
      await tx.putHead(headOf(c.version))
      heads += 1
    }
  }
  return { heads }
}
