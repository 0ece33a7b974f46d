import type { Memory, MemoryChange } from '../core/memory-model.js'
import type { ScopeSummary } from '../storage/spi/listing-types.js'
import type { SearchHit } from '../storage/spi/memory-backend.js'

/** One line per memory: `mem_…@2 [active] fact: text`. */
export function formatMemory(m: Memory): string {
  const evidence =
    m.sources.length > 0 ? `  (sources: ${m.sources.map((s) => s.sourceId).join(', ')})` : ''
  return `${m.memoryRef.artifactId}@${m.memoryRef.revision} [${m.state}] ${m.kind}: ${m.text}${evidence}`
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

/** One line per scope: counts per state, journal counters, newest change. */
export function formatScope(s: ScopeSummary): string {
  const c = s.counts
  const journal = s.highWatermark === 0 ? '' : `  sources ${s.cursor}/${s.highWatermark} flushed`
  return `${s.scopeId}  ${s.memoryCount} memories (active ${c.active}, forgotten ${c.forgotten}, merged ${c.merged}, retired ${c.retired})  last change ${s.lastChangeAt ?? 'never'}${journal}`
}
