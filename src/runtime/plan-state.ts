/**
 * The decisions of one window as they accumulate, candidate by candidate (DESIGN §6). Later
 * candidates see what earlier ones planned: a memory planned for an update shows its new text, a
 * memory planned into a merge disappears, and planned creations and merges appear as related
 * memories with temporary ids (`new:1`, …). A decision on a planned item folds into it, so the
 * window applies at most one write per memory and every write names the exact version it was
 * planned against.
 */
import type { Candidate } from '../core/extraction-rules.js'
import { compareRecency } from '../core/extraction-rules.js'
import type { ArtifactRef } from '../core/memory-model.js'
import type { FlushDecision, RelatedMemory } from '../storage/spi/flush-types.js'

/** A related memory as the deciding model sees it. */
export interface RelatedView {
  readonly id: string
  readonly kind: string
  readonly text: string
  readonly observedAt: string | null
  /** Latest journal position among its evidence, or null. */
  readonly position: number | null
  readonly planned: boolean
}

interface SlotBase {
  kind: string
  text: string
  observedAt: string | null
  sources: Set<string>
  reason: string | null
  position: number | null
}
type Slot =
  | (SlotBase & { readonly type: 'create'; readonly id: string })
  | (SlotBase & { readonly type: 'update'; readonly id: string; readonly base: ArtifactRef })
  | (SlotBase & { readonly type: 'merge'; readonly id: string; inputs: ArtifactRef[] })

/** A decision after validation, in terms of the ids the model was shown. */
export type PlannedAction =
  | { readonly action: 'noop' }
  | { readonly action: 'create'; readonly kind: string; readonly text: string }
  | {
      readonly action: 'update'
      readonly target: string
      readonly kind: string
      readonly text: string
    }
  | {
      readonly action: 'merge'
      readonly targets: readonly string[]
      readonly kind: string
      readonly text: string
    }

const later = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : a > b ? a : b
const maxPos = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.max(a, b)

/** The accumulating plan of one window. */
export class PlanState {
  readonly #slots = new Map<string, Slot>()
  readonly #absorbed = new Set<string>()
  readonly #known = new Map<string, RelatedMemory>()
  #next = 1

  /** True when the memory was planned into a merge (it leaves the related sets). */
  absorbed(memoryId: string): boolean {
    return this.#absorbed.has(memoryId)
  }

  /** Planned creations and merges, shown to every later candidate. */
  plannedViews(): RelatedView[] {
    return [...this.#slots.values()].filter((s) => s.type !== 'update').map((s) => this.#view(s))
  }

  /** A stored memory as it will be after the plan so far (its planned update, if any). */
  viewOf(related: RelatedMemory): RelatedView {
    this.#known.set(related.memory.memoryRef.artifactId, related)
    const slot = this.#slots.get(related.memory.memoryRef.artifactId)
    if (slot !== undefined) return this.#view(slot)
    const m = related.memory
    return {
      id: m.memoryRef.artifactId,
      kind: m.kind,
      text: m.text,
      observedAt: m.observedAt,
      position: related.position,
      planned: false,
    }
  }

  #view(s: Slot): RelatedView {
    const planned = s.type !== 'update'
    return {
      id: s.id,
      kind: s.kind,
      text: s.text,
      observedAt: s.observedAt,
      position: s.position,
      planned,
    }
  }

  /**
   * Folds one validated decision into the plan. An update of a stored memory by an older
   * candidate (observed_at, then source position) is refused: the returned note says why.
   */
  apply(c: Candidate & { position: number | null }, d: PlannedAction): string | null {
    if (d.action === 'noop') return null
    const fields = {
      observedAt: c.observedAt,
      sources: new Set(c.sources),
      reason: c.reason,
      position: c.position,
    }
    if (d.action === 'create') {
      const id = `new:${this.#next++}`
      this.#slots.set(id, { type: 'create', id, kind: d.kind, text: d.text, ...fields })
      return null
    }
    if (d.action === 'update') {
      const slot = this.#slots.get(d.target)
      const stored = this.#known.get(d.target)
      const target =
        slot !== undefined
          ? this.#view(slot)
          : stored === undefined
            ? undefined
            : this.viewOf(stored)
      if (target !== undefined && !target.planned && compareRecency(c, target) === 'older')
        return `refused: the candidate is older than ${d.target} (observed_at, then source position)`
      if (slot !== undefined) {
        this.#fold(slot, d.kind, d.text, c)
        return null
      }
      const m = (stored as RelatedMemory).memory
      this.#slots.set(d.target, {
        type: 'update',
        id: d.target,
        base: m.memoryRef,
        kind: d.kind,
        text: d.text,
        observedAt: later(m.observedAt, c.observedAt),
        sources: new Set(c.sources),
        reason: c.reason,
        position: maxPos(stored?.position ?? null, c.position),
      })
      return null
    }
    this.#merge(c, d.targets, d.kind, d.text)
    return null
  }

  #fold(slot: Slot, kind: string, text: string, c: Candidate & { position: number | null }): void {
    slot.kind = kind
    slot.text = text
    slot.observedAt = later(slot.observedAt, c.observedAt)
    slot.position = maxPos(slot.position, c.position)
    for (const s of c.sources) slot.sources.add(s)
  }

  #merge(
    c: Candidate & { position: number | null },
    targets: readonly string[],
    kind: string,
    text: string,
  ): void {
    const inputs: ArtifactRef[] = []
    const sources = new Set(c.sources)
    let observedAt = c.observedAt
    let position = c.position
    for (const id of targets) {
      const slot = this.#slots.get(id)
      if (slot !== undefined) {
        this.#slots.delete(id)
        for (const s of slot.sources) sources.add(s)
        observedAt = later(observedAt, slot.observedAt)
        position = maxPos(position, slot.position)
        if (slot.type === 'update') inputs.push(slot.base)
        if (slot.type === 'merge') inputs.push(...slot.inputs)
        continue
      }
      const stored = this.#known.get(id)
      if (stored !== undefined) {
        inputs.push(stored.memory.memoryRef)
        position = maxPos(position, stored.position)
      }
    }
    const fields = { kind, text, observedAt, sources, reason: c.reason, position }
    if (inputs.length >= 2) {
      const id = `new:${this.#next++}`
      for (const r of inputs) this.#absorbed.add(r.artifactId)
      this.#slots.set(id, { type: 'merge', id, inputs, ...fields })
    } else if (inputs.length === 1) {
      const base = inputs[0] as ArtifactRef
      this.#slots.set(base.artifactId, { type: 'update', id: base.artifactId, base, ...fields })
    } else {
      const id = `new:${this.#next++}`
      this.#slots.set(id, { type: 'create', id, ...fields })
    }
  }

  /** The plan as decisions for the backend, in planning order. */
  decisions(): FlushDecision[] {
    return [...this.#slots.values()].map((s): FlushDecision => {
      const common = {
        kind: s.kind,
        text: s.text,
        sources: [...s.sources].sort(),
        observedAt: s.observedAt,
        reason: s.reason,
      }
      if (s.type === 'create') return { op: 'create', ...common }
      if (s.type === 'update') return { op: 'update', target: s.base, ...common }
      return { op: 'merge', targets: s.inputs, ...common }
    })
  }
}
