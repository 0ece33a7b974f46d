import type { components } from '../contract/powercontext-types.js'
import { staleNote } from '../core/stale-note.js'

type Wire = components['schemas']

/** `mem_…@2` for an exact memory ref. */
const at = (r: Wire['ArtifactRef']): string => `${r.artifact_id}@${r.revision}`

/**
 * The indented lines under a possibly stale memory (the same words the agent's prepared context
 * carries: which paths changed in which commit), or none.
 */
export const formatStale = (mark: Wire['StaleMark'] | undefined): string[] =>
  mark === undefined
    ? []
    : [
        `    ${staleNote({ commits: mark.commits.map((c) => ({ commit: c.commit, paths: c.paths, capturedAt: c.captured_at })) })}`,
      ]

/**
 * One line per memory: `mem_…@2 [active] fact: text`, then its evidence and, for a merged
 * memory, the memory it was merged into.
 */
export function formatMemory(m: Wire['Memory']): string {
  const evidence =
    m.sources.length > 0 ? `  (sources: ${m.sources.map((s) => s.source_id).join(', ')})` : ''
  const into = m.merged_into === null ? '' : `  merged into ${m.merged_into}`
  const erased = m.redaction ? `  (redacted ${m.redaction.redacted_at}: ${m.redaction.reason})` : ''
  return `${at(m.memory_ref)} [${m.state}] ${m.kind}: ${m.text}${evidence}${into}${erased}`
}

/** One line per merge relation: `merge mrg_… effective: mem_a@1 + mem_b@2 → mem_c`. */
export function formatMerge(m: Wire['MergeRelation']): string {
  const undone = m.undone_at === null ? '' : ` at ${m.undone_at}`
  return `merge ${m.merge_id} ${m.state}${undone}: ${m.inputs.map(at).join(' + ')} → ${m.result_id}`
}

/**
 * The lines of one flush round: the window, each change, then every source that yielded no
 * memory (why) and every refused entry with its reason, and skipped sources.
 */
export function formatFlush(r: Wire['FlushResponse']): string[] {
  if (r.status === 'idle') return [`idle: cursor ${r.cursor}, high watermark ${r.high_watermark}`]
  const where = (s: { source_id: string }, position: number): string => `${s.source_id}@${position}`
  return [
    `processed positions ${r.previous_cursor + 1}..${r.cursor} (${r.processed_source_count} sources, ${r.changes.length} changes, ${r.extraction_mode}) record ${r.record_id ?? '-'}`,
    ...r.changes.map((c) => `  ${formatChange(c)}`),
    ...r.sources.flatMap((s) => [
      ...(s.outcome !== 'candidates'
        ? [
            `  source ${where(s.source, s.position)}: ${s.outcome}${s.note === null ? '' : ` (${s.note})`}`,
          ]
        : s.refused.length > 0
          ? [
              `  source ${where(s.source, s.position)}: ${s.candidates} candidates, ${s.refused.length} refused`,
            ]
          : []),
      ...s.refused.map(
        (x) => `    refused ${x.entry === null ? 'content' : `entry ${x.entry}`}: ${x.reason}`,
      ),
    ]),
    ...r.skipped_sources.map(
      (s) =>
        `  skipped ${where(s.source, s.position)} after ${s.attempts} attempts: ${s.error.code}: ${s.error.message}`,
    ),
  ]
}

/** One line per search hit, ranked, and the stale line of a possibly stale one. */
export function formatHit(h: Wire['SearchHit'], rank: number): string[] {
  return [
    `${rank}. ${at(h.memory_ref)} (${h.score.toFixed(4)}, ${h.matched_by.join('+')}) ${h.kind}: ${h.text}`,
    ...formatStale(h.stale),
  ]
}

/** One line per change-log row. */
export function formatChange(c: Wire['MemoryChange']): string {
  const from = c.from_revision === null ? '∅' : `${c.from_revision}/${c.from_state}`
  const reason = c.reason === null ? '' : `  "${c.reason}"`
  return `#${c.seq} ${c.at} ${c.op} ${c.memory_id} ${from} → ${c.to_revision}/${c.to_state} (${c.operation_id})${reason}`
}

/** A redaction in the change feed: what was erased, why (never the text). */
export function formatRedaction(r: Wire['RedactionEntry']): string {
  const what =
    r.target === 'source'
      ? `source ${r.source_id ?? ''}`
      : r.target === 'record'
        ? `decision record ${r.record_id ?? ''}`
        : `${r.memory_ref?.artifact_id ?? ''}@${r.memory_ref?.revision ?? ''}`
  return `#${r.seq} ${r.redacted_at} redact ${what} (${r.operation_id})  "${r.reason}"`
}

/** One line per scope: counts per state, journal counters, newest change. */
export function formatScope(s: Wire['ScopeSummary']): string {
  const c = s.counts
  const journal = s.high_watermark === 0 ? '' : `  sources ${s.cursor}/${s.high_watermark} flushed`
  return `${s.scope_id}  ${s.memory_count} memories (active ${c.active}, forgotten ${c.forgotten}, merged ${c.merged}, retired ${c.retired})  last change ${s.last_change_at ?? 'never'}${journal}`
}

/** One line per flush decision record, newest window last. */
export function formatFlushRecord(x: Wire['FlushRecord']): string {
  const erased = !x.redaction
    ? ''
    : `  (redacted ${x.redaction.redacted_at}: ${x.redaction.reason})`
  return `${x.record_id} (${x.from_position}..${x.to_position}] ${x.mode}${x.model === null ? '' : ` ${x.model}`} ${x.created_at}${erased}`
}
