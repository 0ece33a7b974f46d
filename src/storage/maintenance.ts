import { analyzeText } from '../core/analyzer.js'
import type { MergeRecord } from '../core/memory-model.js'
import type { ChangeRow, DialectTx, MemoryRow, VersionRow } from './dialect.js'
import { journalProblemsInTx, legacyProblemsInTx, skipSeqsInTx } from './journal-maintenance.js'
import type { RebuildReport, VerifyReport } from './memory-backend.js'
import { headOf } from './memory-rows.js'
import { paged } from './transfer-rows.js'
import { contentOfRow } from './version-codec.js'
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
  skipSeqs: readonly { scopeId: string; seq: number }[] = [],
): string[] {
  const problems: string[] = []
  // Skipped sources (flush) take numbers of the same per-scope sequence as memory changes.
  for (const [scopeId, rows] of groupBy([...changes, ...skipSeqs], (c) => c.scopeId)) {
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

function mergeProblems(
  memories: readonly MemoryRow[],
  merges: readonly MergeRecord[],
  firstVersions: ReadonlyMap<string, VersionRow>,
): string[] {
  const problems: string[] = []
  const rows = new Map(memories.map((m) => [m.memoryId, m]))
  const absorbedBy = new Map<string, string>()
  const effectiveResults = new Map<string, MergeRecord>()
  for (const m of merges) {
    const result = rows.get(m.resultId)
    if (result === undefined) {
      problems.push(`merge ${m.mergeId}: result ${m.resultId} is missing`)
      continue
    }
    const artifacts = contentOfRow(firstVersions.get(m.resultId) as VersionRow).artifacts
    const key = (r: { artifactId: string; revision: number }): string =>
      `${r.artifactId}@${r.revision}`
    if (artifacts.map(key).sort().join() !== m.inputs.map(key).sort().join()) {
      problems.push(`merge ${m.mergeId}: result version 1 does not cite exactly the inputs`)
    }
    if (m.state === 'undone') {
      if (result.state !== 'retired')
        problems.push(`merge ${m.mergeId} is undone but ${m.resultId} is ${result.state}`)
      continue
    }
    effectiveResults.set(m.resultId, m)
    if (result.state === 'retired')
      problems.push(`merge ${m.mergeId} is effective but its result is retired`)
    for (const input of m.inputs) {
      const previous = absorbedBy.get(input.artifactId)
      if (previous !== undefined)
        problems.push(
          `memory ${input.artifactId} is absorbed by two effective merges (${previous}, ${m.mergeId})`,
        )
      absorbedBy.set(input.artifactId, m.mergeId)
      const row = rows.get(input.artifactId)
      if (
        row === undefined ||
        row.state !== 'merged' ||
        row.mergedInto !== m.resultId ||
        row.currentVersion !== input.revision
      ) {
        problems.push(
          `merge ${m.mergeId}: input ${input.artifactId}@${input.revision} is not frozen as merged into ${m.resultId}`,
        )
      }
    }
  }
  for (const row of memories) {
    if (row.state === 'merged') {
      if (row.mergedInto === null || !absorbedBy.has(row.memoryId))
        problems.push(`memory ${row.memoryId}: merged without an effective merge`)
      const seen = new Set<string>()
      for (
        let cur: MemoryRow | undefined = row;
        cur?.state === 'merged';
        cur = rows.get(cur.mergedInto ?? '')
      ) {
        if (seen.has(cur.memoryId)) {
          problems.push(`memory ${row.memoryId}: merged_into chain has a cycle`)
          break
        }
        seen.add(cur.memoryId)
      }
    } else if (row.mergedInto !== null) {
      problems.push(`memory ${row.memoryId}: ${row.state} but merged_into is set`)
    }
    if (
      row.state === 'retired' &&
      !merges.some((m) => m.resultId === row.memoryId && m.state === 'undone')
    ) {
      problems.push(`memory ${row.memoryId}: retired without an undone merge`)
    }
  }
  return problems
}

/**
 * Checks every invariant that can be read back: version chains contiguous and hash-verified, one
 * head per active memory matching its current version, adapter indexes consistent with the heads,
 * a contiguous change log that ends at each memory's current version and state, and merge
 * relations (effective merges freeze their inputs; undone merges retired their results; no memory
 * is absorbed twice; merged_into chains are acyclic).
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
  const firstVersions = new Map(versions.filter((v) => v.version === 1).map((v) => [v.memoryId, v]))
  problems.push(...mergeProblems(memories, await tx.allMerges(), firstVersions))
  problems.push(
    ...changeLogProblems(memories, changes, await tx.scopeSeqs(), await skipSeqsInTx(tx)),
  )
  problems.push(...(await journalProblemsInTx(tx)))
  problems.push(...(await legacyProblemsInTx(tx)))
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

/**
 * Rebuilds the head projection and every index over it from the authoritative rows, reading the
 * memories in pages (bounded memory whatever the size).
 */
export async function rebuildInTx(tx: DialectTx): Promise<RebuildReport> {
  await tx.clearProjections()
  let heads = 0
  const page = (after: string, limit: number) => tx.pages.memories(after, limit)
  let active: string[] = []
  const project = async (): Promise<void> => {
    for (const c of (await tx.loadCurrent(active)).values()) {
      await tx.putHead(headOf(c.version))
      heads += 1
    }
    active = []
  }
  for await (const m of paged('', 500, page, (r) => r.memoryId)) {
    if (m.state !== 'active') continue
    active.push(m.memoryId)
    if (active.length >= 500) await project()
  }
  await project()
  return { heads }
}
