import type { MemoryChange, MergeRecord } from '../core/memory-model.js'
import type { Memory } from '../core/memory-model.js'
import type { FlushResult } from '../runtime/source-flusher.js'
import type { ScopeSummary } from '../storage/spi/listing-types.js'
import type { SearchHit } from '../storage/spi/memory-backend.js'
import type { RedactionEntry } from '../storage/spi/redaction-types.js'

/**
 * One line per memory: `mem_…@2 [active] fact: text`, then its evidence and, for a merged
 * memory, the memory it was merged into.
 */
export function formatMemory(m: Memory): string {
  const evidence =
    m.sources.length > 0 ? `  (sources: ${m.sources.map((s) => s.sourceId).join(', ')})` : ''
  const into = m.mergedInto === null ? '' : `  merged into ${m.mergedInto}`
  const erased = m.redaction ? `  (redacted ${m.redaction.redactedAt}: ${m.redaction.reason})` : ''
  return `${m.memoryRef.artifactId}@${m.memoryRef.revision} [${m.state}] ${m.kind}: ${m.text}${evidence}${into}${erased}`
}

/** One line per merge relation: `merge mrg_… effective: mem_a@1 + mem_b@2 → mem_c`. */
export function formatMerge(m: MergeRecord): string {
  const inputs = m.inputs.map((r) => `${r.artifactId}@${r.revision}`).join(' + ')
  const undone = m.undoneAt === null ? '' : ` at ${m.undoneAt}`
  return `merge ${m.mergeId} ${m.state}${undone}: ${inputs} → ${m.resultId}`
}

/**
 * The lines of one flush round: the window, each change, then every source that yielded no
 * memory (why) and every refused entry with its reason, and skipped sources.
 */
export function formatFlush(r: FlushResult): string[] {
  if (r.status === 'idle') return [`idle: cursor ${r.cursor}, high watermark ${r.highWatermark}`]
  const where = (s: { sourceId: string; position: number }): string => `${s.sourceId}@${s.position}`
  return [
    `processed positions ${r.previousCursor + 1}..${r.cursor} (${r.processedSourceCount} sources, ${r.changes.length} changes, ${r.mode}) record ${r.recordId ?? '-'}`,
    ...r.changes.map((c) => `  ${formatChange(c)}`),
    ...r.sources.flatMap((s) => [
      ...(s.outcome !== 'candidates'
        ? [`  source ${where(s)}: ${s.outcome}${s.note === null ? '' : ` (${s.note})`}`]
        : s.refused.length > 0
          ? [`  source ${where(s)}: ${s.candidates} candidates, ${s.refused.length} refused`]
          : []),
      ...s.refused.map(
        (x) => `    refused ${x.entry === null ? 'content' : `entry ${x.entry}`}: ${x.reason}`,
      ),
    ]),
    ...r.skippedSources.map(
      (s) =>
        `  skipped ${where({ sourceId: s.source.sourceId, position: s.position })} after ${s.attempts} attempts: ${s.error.code}: ${s.error.message}`,
    ),
  ]
}

/** One line per search hit, ranked. */
export function formatHit(h: SearchHit, rank: number): string {
  const ref = `${h.memoryRef.artifactId}@${h.memoryRef.revision}`
  return `${rank}. ${ref} (${h.score.toFixed(4)}, ${h.matchedBy.join('+')}) ${h.kind}: ${h.text}`
}

/** One line per change-log row. */
export function formatChange(c: MemoryChange): string {
  const from = c.fromRevision === null ? '∅' : `${c.fromRevision}/${c.fromState}`
  const reason = c.reason === null ? '' : `  "${c.reason}"`
  return `#${c.seq} ${c.at} ${c.op} ${c.memoryId} ${from} → ${c.toRevision}/${c.toState} (${c.operationId})${reason}`
}

/** A redaction in the change feed: what was erased, why (never the text). */
export function formatRedaction(r: RedactionEntry): string {
  const what =
    r.target === 'source'
      ? `source ${r.sourceId ?? ''}`
      : r.target === 'record'
        ? `decision record ${r.recordId ?? ''}`
        : `${r.memoryRef?.artifactId ?? ''}@${r.memoryRef?.revision ?? ''}`
  return `#${r.seq} ${r.redactedAt} redact ${what} (${r.operationId})  "${r.reason}"`
}

/** One line per scope: counts per state, journal counters, newest change. */
export function formatScope(s: ScopeSummary): string {
  const c = s.counts
  const journal = s.highWatermark === 0 ? '' : `  sources ${s.cursor}/${s.highWatermark} flushed`
  return `${s.scopeId}  ${s.memoryCount} memories (active ${c.active}, forgotten ${c.forgotten}, merged ${c.merged}, retired ${c.retired})  last change ${s.lastChangeAt ?? 'never'}${journal}`
}
