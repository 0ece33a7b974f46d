import { analyzeText } from '../../../core/analyzer.js'
import type { MergeRecord } from '../../../core/memory-model.js'
import { isActive, isMerged, isRetired } from '../../../core/memory-state.js'
import type { ChangeRow, DialectTx, HeadRow, MemoryRow, VersionRow } from '../../spi/dialect-tx.js'
import type { VerifyReport } from '../../spi/memory-backend.js'
import { journalProblemsInTx, legacyProblemsInTx, skipSeqsInTx } from '../journal/journal-checks.js'
import { headOf } from '../row-builders.js'
import { changeKeyProblems, memoryKeyProblems, rowName } from '../row-damage.js'
import { contentOfRow } from '../version-codec.js'
import { paged } from './paged.js'
import { Redactions } from './redaction-checks.js'

const PAGE = 1000

function chainProblems(
  row: MemoryRow,
  versions: readonly VersionRow[],
  redactions: Redactions,
): string[] {
  const problems: string[] = []
  const sorted = [...versions].sort((a, b) => a.version - b.version)
  sorted.forEach((v, i) => {
    if (v.version !== i + 1) problems.push(`memory ${row.memoryId}: version ${i + 1} is missing`)
    if (v.previousVersion !== (v.version === 1 ? null : v.version - 1)) {
      problems.push(`memory ${row.memoryId}@${v.version}: previous_version is ${v.previousVersion}`)
    }
    if (v.scopeId !== row.scopeId)
      problems.push(`memory ${row.memoryId}@${v.version}: scope differs`)
    problems.push(...redactions.versionProblems(v))
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
    const first = firstVersions.get(m.resultId)
    let artifacts: readonly { artifactId: string; revision: number }[] = []
    try {
      if (first !== undefined) artifacts = contentOfRow(first).artifacts
    } catch (err) {
      problems.push(
        `merge ${m.mergeId}: result version 1 is unreadable (${(err as Error).message})`,
      )
      continue
    }
    const key = (r: { artifactId: string; revision: number }): string =>
      `${r.artifactId}@${r.revision}`
    if (artifacts.map(key).sort().join() !== m.inputs.map(key).sort().join()) {
      problems.push(`merge ${m.mergeId}: result version 1 does not cite exactly the inputs`)
    }
    if (m.state === 'undone') {
      if (!isRetired(result.state))
        problems.push(`merge ${m.mergeId} is undone but ${m.resultId} is ${result.state}`)
      continue
    }
    effectiveResults.set(m.resultId, m)
    if (isRetired(result.state))
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
        !isMerged(row.state) ||
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
    if (isMerged(row.state)) {
      if (row.mergedInto === null || !absorbedBy.has(row.memoryId))
        problems.push(`memory ${row.memoryId}: merged without an effective merge`)
      const seen = new Set<string>()
      for (
        let cur: MemoryRow | undefined = row;
        cur !== undefined && isMerged(cur.state);
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
      isRetired(row.state) &&
      !merges.some((m) => m.resultId === row.memoryId && m.state === 'undone')
    ) {
      problems.push(`memory ${row.memoryId}: retired without an undone merge`)
    }
  }
  return problems
}

/** Pulls items of a key-ordered stream one key at a time (the sides of a merge join). */
class Ordered<T> {
  readonly #it: AsyncIterator<T>
  #next: IteratorResult<T> | undefined

  constructor(items: AsyncIterable<T>) {
    this.#it = items[Symbol.asyncIterator]()
  }

  async #peek(): Promise<T | undefined> {
    this.#next ??= await this.#it.next()
    return this.#next.done === true ? undefined : this.#next.value
  }

  /** Items whose key sorts before `key` (left over: they belong to no row). */
  async before(key: string, keyOf: (t: T) => string): Promise<T[]> {
    const out: T[] = []
    for (let t = await this.#peek(); t !== undefined && keyOf(t) < key; t = await this.#peek()) {
      out.push(t)
      this.#next = undefined
    }
    return out
  }

  /** The items with exactly `key`, in stream order. */
  async take(key: string, keyOf: (t: T) => string): Promise<T[]> {
    const out: T[] = []
    for (let t = await this.#peek(); t !== undefined && keyOf(t) === key; t = await this.#peek()) {
      out.push(t)
      this.#next = undefined
    }
    return out
  }
}

function headProblem(
  row: MemoryRow,
  head: HeadRow | undefined,
  own: readonly VersionRow[],
  redactions: Redactions,
) {
  const erased = redactions.erased({ memoryId: row.memoryId, version: row.currentVersion })
  if (!isActive(row.state) || erased) {
    return head === undefined
      ? undefined
      : `memory ${row.memoryId}: ${erased ? 'redacted' : row.state} but still projected`
  }
  if (head === undefined) return `memory ${row.memoryId}: active but missing from the projection`
  const current = own.find((v) => v.version === row.currentVersion)
  if (current === undefined) return undefined
  const expected = headOf(current)
  const same =
    head.version === expected.version &&
    head.contentHash === expected.contentHash &&
    head.kind === expected.kind &&
    head.scopeId === expected.scopeId &&
    head.searchableText === analyzeText(current.text)
  return same
    ? undefined
    : `memory ${row.memoryId}: projection does not match version ${row.currentVersion}`
}

function lastChangeProblem(row: MemoryRow, changes: readonly ChangeRow[]): string | undefined {
  const last = changes.at(-1)
  if (last === undefined) return `memory ${row.memoryId}: no change-log row`
  if (last.toRevision === row.currentVersion && last.toState === row.state) return undefined
  return `memory ${row.memoryId}: change log ends at ${last.toRevision}/${last.toState}, memory is ${row.currentVersion}/${row.state}`
}

/** Every problem of one memory and its rows; a check that throws is reported, never raised. */
function rowProblems(
  row: MemoryRow,
  own: readonly VersionRow[],
  head: HeadRow | undefined,
  transitions: readonly ChangeRow[],
  redactions: Redactions,
): string[] {
  const problems = memoryKeyProblems(row).map((p) => `${rowName.memory(row.memoryId)}: ${p}`)
  for (const c of transitions) {
    for (const p of changeKeyProblems(c)) problems.push(`${rowName.change(c.scopeId, c.seq)}: ${p}`)
    if (c.scopeId !== row.scopeId)
      problems.push(`${rowName.change(c.scopeId, c.seq)}: scope differs from its memory`)
  }
  try {
    problems.push(...chainProblems(row, own, redactions))
    const headIssue = headProblem(row, head, own, redactions)
    if (headIssue !== undefined) problems.push(headIssue)
    const changeIssue = lastChangeProblem(row, transitions)
    if (changeIssue !== undefined) problems.push(changeIssue)
  } catch (err) {
    problems.push(`${rowName.memory(row.memoryId)}: unreadable (${(err as Error).message})`)
  }
  return problems
}

/**
 * Each scope's change sequence is contiguous from 1 and ends at its head seq; skipped sources
 * (flush) take numbers of the same sequence. Read in pages, one scope at a time.
 */
async function sequenceProblems(tx: DialectTx, redactions: Redactions): Promise<string[]> {
  const problems: string[] = []
  const seqs = await tx.scopeSeqs()
  const skips = new Map<string, number[]>()
  for (const s of [...(await skipSeqsInTx(tx)), ...redactions.seqs()])
    skips.set(s.scopeId, [...(skips.get(s.scopeId) ?? []), s.seq])
  const scopes = new Set(skips.keys())
  let scope: string | undefined
  let numbers: number[] = []
  const close = (): void => {
    if (scope === undefined) return
    const all = [...numbers, ...(skips.get(scope) ?? [])].sort((a, b) => a - b)
    all.forEach((seq, i) => {
      if (seq !== i + 1) problems.push(`scope ${scope}: change seq ${i + 1} is missing`)
    })
    if ((seqs.get(scope) ?? 0) !== all.length) {
      problems.push(`scope ${scope}: head seq ${seqs.get(scope) ?? 0} ≠ ${all.length} rows`)
    }
    scopes.delete(scope)
    numbers = []
  }
  const page = (a: { scopeId: string; seq: number }, n: number) => tx.pages.changes(a, n)
  for await (const c of paged({ scopeId: '', seq: 0 }, PAGE, page, (r) => r)) {
    if (c.scopeId !== scope) {
      close()
      scope = c.scopeId
    }
    numbers.push(c.seq)
  }
  close()
  for (const rest of [...scopes]) {
    scope = rest
    close()
  }
  return problems
}

/**
 * Checks every invariant that can be read back: version chains contiguous and hash-verified, one
 * head per active memory matching its current version, adapter indexes consistent with the heads,
 * a contiguous change log that ends at each memory's current version and state, and merge
 * relations (effective merges freeze their inputs; undone merges retired their results; no memory
 * is absorbed twice; merged_into chains are acyclic). Memories, versions, heads and changes are
 * read as key-ordered pages and joined one memory at a time, so memory grows with the merges and
 * the scopes, not with the memories.
 */
export async function verifyInTx(tx: DialectTx): Promise<VerifyReport> {
  const problems: string[] = []
  const p = tx.pages
  const redactions = await Redactions.load(tx)
  const merges: MergeRecord[] = []
  for await (const m of paged(
    '',
    PAGE,
    (a, n) => p.merges(a, n),
    (r) => r.mergeId,
  ))
    merges.push(m)
  const inMerges = new Set(
    merges.flatMap((m) => [m.resultId, ...m.inputs.map((i) => i.artifactId)]),
  )
  const results = new Set(merges.map((m) => m.resultId))
  const kept: MemoryRow[] = []
  const firstVersions = new Map<string, VersionRow>()
  const versions = new Ordered(
    paged(
      { memoryId: '', version: 0 },
      PAGE,
      (a, n) => p.versions(a, n),
      (v) => v,
    ),
  )
  const heads = new Ordered(
    paged(
      '',
      PAGE,
      (a, n) => p.heads(a, n),
      (h) => h.memoryId,
    ),
  )
  const changes = new Ordered(
    paged(
      { memoryId: '', seq: 0 },
      PAGE,
      (a, n) => p.changesByMemory(a, n),
      (c) => c,
    ),
  )
  const counts = { memories: 0, versions: 0, heads: 0, changes: 0 }
  const byMemory = (r: { memoryId: string }): string => r.memoryId
  const orphans = async (key: string): Promise<void> => {
    for (const v of await versions.before(key, byMemory)) {
      counts.versions += 1
      problems.push(`${rowName.version(v.memoryId, v.version)}: version of unknown memory`)
    }
    for (const h of await heads.before(key, byMemory)) {
      counts.heads += 1
      problems.push(`${rowName.head(h.memoryId)}: projection row for unknown memory`)
    }
    for (const c of await changes.before(key, byMemory)) {
      counts.changes += 1
      problems.push(`${rowName.change(c.scopeId, c.seq)}: change of unknown memory`)
    }
  }
  for await (const row of paged('', PAGE, (a, n) => p.memories(a, n), byMemory)) {
    counts.memories += 1
    await orphans(row.memoryId)
    const own = await versions.take(row.memoryId, byMemory)
    const [head, ...extraHeads] = await heads.take(row.memoryId, byMemory)
    const transitions = await changes.take(row.memoryId, byMemory)
    counts.versions += own.length
    counts.heads += (head === undefined ? 0 : 1) + extraHeads.length
    counts.changes += transitions.length
    problems.push(...rowProblems(row, own, head, transitions, redactions))
    if (
      inMerges.has(row.memoryId) ||
      isMerged(row.state) ||
      isRetired(row.state) ||
      row.mergedInto !== null
    ) {
      kept.push(row)
    }
    const first = own.find((v) => v.version === 1)
    if (first !== undefined && results.has(row.memoryId)) firstVersions.set(row.memoryId, first)
  }
  await orphans('\uffff')
  problems.push(...(await tx.checkIndexes()))
  problems.push(...mergeProblems(kept, merges, firstVersions))
  problems.push(...(await sequenceProblems(tx, redactions)))
  problems.push(...(await redactions.sourceProblems(tx)))
  problems.push(...(await redactions.recordProblems(tx)))
  problems.push(...(await journalProblemsInTx(tx)))
  problems.push(...(await legacyProblemsInTx(tx)))
  return { ok: problems.length === 0, problems, counts }
}
