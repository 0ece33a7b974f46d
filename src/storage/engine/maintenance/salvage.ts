/*
 * `admin salvage` (docs/storage.md#damage-verify-and-salvage): copy what still verifies out of a
 * damaged database. Two reads of the source's export: the first (with damaged rows left out)
 * decides which memories cannot be copied whole — a damaged or missing version, memory or change
 * row takes its memory out, and a merge touching a memory taken out takes out every memory of
 * that merge (a merge is copied whole or not at all) —; the second writes the rest, each scope's
 * change sequence renumbered over what is kept so that it stays contiguous.
 */
import type { ExportRecord, RowType } from '../../spi/export-types.js'
import { ROW_TYPES } from '../../spi/export-types.js'
import { printable } from '../row-damage.js'

interface Kept {
  readonly scopeId: string
  readonly currentVersion: number
  readonly state: string
  readonly mergedInto: string | null
  versions: number
  versionScopesAgree: boolean
  last?: { toRevision: number | null; toState: string | null }
}

/** What the first read found: memories taken out and each scope's new change numbers. */
export interface SalvagePlan {
  /** Memories not copied, with why. */
  readonly dropped: ReadonlyMap<string, string>
  /** Per scope: old change seq (or skipped source's seq) → new seq. */
  readonly seqs: ReadonlyMap<string, ReadonlyMap<number, number>>
}

/** Builds a {@link SalvagePlan} from the records of the first read (damaged rows left out). */
export class SalvagePlanner {
  readonly #memories = new Map<string, Kept>()
  readonly #merges: { mergeId: string; members: string[] }[] = []
  readonly #changes: { scopeId: string; seq: number; memoryId: string }[] = []
  readonly #skips: { scopeId: string; seq: number }[] = []
  readonly #orphans = new Map<string, string>()

  /** Takes one record of the first read. */
  observe(r: ExportRecord): void {
    if (r.type === 'memory') {
      this.#memories.set(r.row.memoryId, { ...r.row, versions: 0, versionScopesAgree: true })
    } else if (r.type === 'version') {
      const m = this.#memories.get(r.row.memoryId)
      if (m === undefined)
        return void this.#orphans.set(
          r.row.memoryId,
          'versions whose memory row is damaged or missing',
        )
      m.versions = m.versions + 1 === r.row.version ? r.row.version : -1
      if (r.row.scopeId !== m.scopeId) m.versionScopesAgree = false
    } else if (r.type === 'merge') {
      const members = [r.row.resultId, ...r.row.inputs.map((i) => i.artifactId)]
      this.#merges.push({ mergeId: r.row.mergeId, members })
    } else if (r.type === 'change') {
      this.#changes.push({ scopeId: r.row.scopeId, seq: r.row.seq, memoryId: r.row.memoryId })
      const m = this.#memories.get(r.row.memoryId)
      if (m !== undefined) m.last = r.row
    } else if (r.type === 'failure' && r.row.skipSeq !== null) {
      this.#skips.push({ scopeId: r.row.scopeId, seq: r.row.skipSeq })
    }
  }

  /** The plan, once the first read has ended. */
  plan(): SalvagePlan {
    const dropped = new Map<string, string>(this.#orphans)
    for (const [id, m] of this.#memories) {
      if (m.versions !== m.currentVersion || !m.versionScopesAgree)
        dropped.set(id, 'a version is damaged or missing')
      else if (m.last?.toRevision !== m.currentVersion || m.last.toState !== m.state)
        dropped.set(id, 'a change-log row is damaged or missing')
    }
    for (let grew = true; grew;) {
      grew = false
      for (const { mergeId, members } of this.#merges) {
        if (!members.some((id) => dropped.has(id) || !this.#memories.has(id))) continue
        for (const id of members) {
          if (dropped.has(id)) continue
          dropped.set(id, `merge ${mergeId} lost a member`)
          grew = true
        }
      }
      for (const [id, m] of this.#memories) {
        if (m.mergedInto !== null && dropped.has(m.mergedInto) && !dropped.has(id)) {
          dropped.set(id, `merged into ${printable(m.mergedInto)}, which is not copied`)
          grew = true
        }
      }
    }
    const numbers = new Map<string, number[]>()
    const keep = (scopeId: string, seq: number): void => {
      numbers.set(scopeId, [...(numbers.get(scopeId) ?? []), seq])
    }
    for (const c of this.#changes) if (this.#copied(c.memoryId, dropped)) keep(c.scopeId, c.seq)
    for (const s of this.#skips) keep(s.scopeId, s.seq)
    const seqs = new Map<string, Map<number, number>>()
    for (const [scopeId, list] of numbers) {
      seqs.set(scopeId, new Map([...list].sort((a, b) => a - b).map((seq, i) => [seq, i + 1])))
    }
    return { dropped, seqs }
  }

  #copied(memoryId: string, dropped: ReadonlyMap<string, string>): boolean {
    return this.#memories.has(memoryId) && !dropped.has(memoryId)
  }
}

/**
 * The second read's records as they are written to the new database: rows of memories taken out
 * left out, change numbers renumbered, and the end record's counts those written.
 */
export function salvagedRecords(plan: SalvagePlan): (r: ExportRecord) => ExportRecord | undefined {
  const counts: Record<string, number> = Object.fromEntries(ROW_TYPES.map((t) => [t, 0]))
  const copied = (id: string): boolean => !plan.dropped.has(id)
  const renumber = (scopeId: string, seq: number): number => plan.seqs.get(scopeId)?.get(seq) ?? seq
  const pass = (r: ExportRecord): ExportRecord | undefined => {
    switch (r.type) {
      case 'memory':
      case 'version':
        return copied(r.row.memoryId) ? r : undefined
      case 'merge':
        return [r.row.resultId, ...r.row.inputs.map((i) => i.artifactId)].every(copied)
          ? r
          : undefined
      case 'change':
        if (!copied(r.row.memoryId)) return undefined
        return { ...r, row: { ...r.row, seq: renumber(r.row.scopeId, r.row.seq) } }
      case 'failure': {
        const skipSeq = r.row.skipSeq
        if (skipSeq === null) return r
        return { ...r, row: { ...r.row, skipSeq: renumber(r.row.scopeId, skipSeq) } }
      }
      case 'end':
        return { type: 'end', counts: { ...counts } }
      default:
        return r
    }
  }
  return (r) => {
    const out = pass(r)
    if (out !== undefined && (ROW_TYPES as readonly string[]).includes(out.type))
      counts[out.type as RowType] = (counts[out.type as RowType] ?? 0) + 1
    return out
  }
}
