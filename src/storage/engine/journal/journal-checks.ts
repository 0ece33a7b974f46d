/**
 * Read-side rules of the source journal: skipped sources in the change feed (they share the
 * scope's change sequence with memory changes) and the invariants `verify` checks.
 */
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { SkippedSource } from '../../spi/flush-types.js'
import type { ChangesResult } from '../../spi/memory-backend.js'
import { toSkipped } from './flush-apply.js'

/**
 * The skipped sources a `changes` page covers: those with `since < seq ≤ upper`, where `upper` is
 * the last row's seq of a full page, else the head seq (so paging by the last seq seen, or by
 * `head_seq` once a page is short, reports each skipped source exactly once).
 */
export async function skippedInChangesTx(
  tx: DialectTx,
  q: { scopeId: string; since: number; limit: number },
  page: ChangesResult,
): Promise<SkippedSource[]> {
  const upper = page.nextSince
  if (upper <= q.since) return []
  return (await tx.journal.skippedBetween(q.scopeId, q.since, upper)).map(toSkipped)
}

/** Change sequence numbers taken by skipped sources, per scope (verify's contiguity check). */
export async function skipSeqsInTx(tx: DialectTx): Promise<{ scopeId: string; seq: number }[]> {
  return (await tx.journal.allFailures()).flatMap((f) =>
    f.state === 'skipped' && f.skipSeq !== null ? [{ scopeId: f.scopeId, seq: f.skipSeq }] : [],
  )
}

/**
 * Journal invariants: a cursor never passes the high watermark; failing sources lie after the
 * cursor and skipped ones at or before it; decision records tile `(0, cursor]` without gaps or
 * overlaps (one record per cursor advance).
 */
export async function journalProblemsInTx(tx: DialectTx): Promise<string[]> {
  const problems: string[] = []
  const cursors = new Map((await tx.journal.allCursors()).map((c) => [c.scopeId, c]))
  // An upgraded scope's records start where the Python reference's cursor was (docs/upgrade.md):
  // the reference kept no decision records for the positions it processed.
  const bases = await cursorBasesInTx(tx)
  for (const [scopeId, base] of bases) {
    if (base > (cursors.get(scopeId)?.position ?? 0))
      problems.push(`scope ${scopeId}: cursor is behind the upgraded cursor ${base}`)
  }
  for (const c of cursors.values()) {
    const hw = await tx.journal.highWatermark(c.scopeId)
    if (c.position > hw)
      problems.push(`scope ${c.scopeId}: cursor ${c.position} is beyond the high watermark ${hw}`)
  }
  for (const f of await tx.journal.allFailures()) {
    const at = cursors.get(f.scopeId)?.position ?? 0
    if (f.state === 'failing' && f.position <= at)
      problems.push(`scope ${f.scopeId}: source at ${f.position} is failing but was processed`)
    if (f.state === 'skipped' && (f.position > at || f.skipSeq === null))
      problems.push(`scope ${f.scopeId}: skipped source at ${f.position} is not behind the cursor`)
  }
  const windows = new Map<string, { fromPosition: number; toPosition: number }[]>()
  for (const w of await tx.journal.allRecordWindows()) {
    windows.set(w.scopeId, [...(windows.get(w.scopeId) ?? []), w])
  }
  for (const [scopeId, list] of windows) {
    const base = bases.get(scopeId) ?? 0
    let end = base
    for (const w of list) {
      if (w.fromPosition !== end)
        problems.push(
          `scope ${scopeId}: decision record window starts at ${w.fromPosition}, not ${end}`,
        )
      end = w.toPosition
    }
    if (end !== (cursors.get(scopeId)?.position ?? 0))
      problems.push(`scope ${scopeId}: decision records end at ${end}, the cursor is elsewhere`)
  }
  for (const c of cursors.values()) {
    if (c.position > (bases.get(c.scopeId) ?? 0) && !windows.has(c.scopeId))
      problems.push(`scope ${c.scopeId}: cursor at ${c.position} without decision records`)
  }
  return problems
}

/** The upgraded cursor of each upgraded scope (one row per scope, read in pages). */
async function cursorBasesInTx(tx: DialectTx): Promise<Map<string, number>> {
  const bases = new Map<string, number>()
  for (let after = ''; ;) {
    const page = await tx.legacy.listUpgrades(after, 500)
    for (const u of page) bases.set(u.scopeId, u.cursorBase)
    const last = page.at(-1)
    if (last === undefined || page.length < 500) return bases
    after = last.scopeId
  }
}

/** Upgrade-table invariants: every old citation maps to a version of a memory of its own scope. */
export async function legacyProblemsInTx(tx: DialectTx): Promise<string[]> {
  return (await tx.legacy.crossScopeCitations(20)).map(
    (c) =>
      `legacy citation ${c.memoryArtifactId}/${c.entryId}/${c.entryVersionId} of scope ${c.scopeId} maps to ${c.memoryId} of another scope`,
  )
}
