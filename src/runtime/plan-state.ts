/**
 * The decisions of one window as they accumulate, candidate by candidate (docs/sources-and-flush.md).
 * Later decisions see what earlier ones planned: a memory planned for an update shows its new text,
 * a memory planned into a merge disappears, and planned creations and merges appear as related
 * memories with temporary ids (`new:1`, …). A decision on a planned item folds into it, so the
 * window applies at most one write per memory and every write names the exact version it was
 * planned against. The time rule holds here, whatever the model said: a candidate older than a
 * memory it would update or merge into is refused.
 */
import type { Candidate, Recency } from '../core/extraction-rules.js'
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
  /** When it was captured or written (see {@link Recency}). */
  readonly capturedAt: string | null
  readonly planned: boolean
}

/** A candidate with its place in time: latest evidence position and capture time. */
export type PlannedCandidate = Candidate & Omit<Recency, 'observedAt'>

interface SlotBase {
  kind: string
  text: string
  observedAt: string | null
  sources: Set<string>
  reason: string | null
  position: number | null
  capturedAt: string | null
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
const laterCapture = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : Date.parse(a) >= Date.parse(b) ? a : b

/** The accumulating plan of one window. */
export class PlanState {
  readonly #slots = new Map<string, Slot>()
  readonly #absorbed = new Set<string>()
  readonly #known = new Map<string, RelatedMemory>()
  /** Where a merged-away id's content went (a stored id or a planned id → the merge's id). */
  readonly #into = new Map<string, string>()
  #next = 1

  /** The id an id's content lives under now (following planned merges). */
  resolve(id: string): string {
    let at = id
    for (let next = this.#into.get(at); next !== undefined; next = this.#into.get(at)) at = next
    return at
  }

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
      capturedAt: m.createdAt,
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
      capturedAt: s.capturedAt,
      planned,
    }
  }

  /** The view of an id (planned or stored) as it stands in the plan, if known. */
  view(id: string): RelatedView | undefined {
    const slot = this.#slots.get(id)
    if (slot !== undefined) return this.#view(slot)
    const stored = this.#known.get(id)
    return stored === undefined ? undefined : this.viewOf(stored)
  }

  /**
   * Folds one validated decision into the plan. `result` is the id of the memory the candidate's
   * content now lives in (a stored id or `new:N`), null for a noop or a refusal. An update or a
   * merge by a candidate older than one of its targets (observed_at, then source position, then
   * capture time) is refused: the returned note says why, and nothing is planned.
   */
  apply(c: PlannedCandidate, d: PlannedAction): { note: string | null; result: string | null } {
    if (d.action === 'noop') return { note: null, result: null }
    const fields = {
      observedAt: c.observedAt,
      sources: new Set(c.sources),
      reason: c.reason,
      position: c.position,
      capturedAt: c.capturedAt,
    }
    if (d.action === 'create') {
      const id = `new:${this.#next++}`
      this.#slots.set(id, { type: 'create', id, kind: d.kind, text: d.text, ...fields })
      return { note: null, result: id }
    }
    const targets = d.action === 'update' ? [d.target] : d.targets
    for (const id of targets) {
      const target = this.view(id)
      if (target !== undefined && compareRecency(c, target) === 'older')
        return {
          note: `refused: the candidate is older than ${id} (observed_at, then source position, then capture time)`,
          result: null,
        }
    }
    if (d.action === 'merge')
      return { note: null, result: this.#merge(c, d.targets, d.kind, d.text) }
    const slot = this.#slots.get(d.target)
    if (slot !== undefined) {
      this.#fold(slot, d.kind, d.text, c)
      return { note: null, result: slot.id }
    }
    const stored = this.#known.get(d.target) as RelatedMemory
    const m = stored.memory
    this.#slots.set(d.target, {
      type: 'update',
      id: d.target,
      base: m.memoryRef,
      kind: d.kind,
      text: d.text,
      observedAt: later(m.observedAt, c.observedAt),
      sources: new Set(c.sources),
      reason: c.reason,
      position: maxPos(stored.position, c.position),
      capturedAt: laterCapture(m.createdAt, c.capturedAt),
    })
    return { note: null, result: d.target }
  }

  #fold(slot: Slot, kind: string, text: string, c: PlannedCandidate): void {
    slot.kind = kind
    slot.text = text
    slot.observedAt = later(slot.observedAt, c.observedAt)
    slot.position = maxPos(slot.position, c.position)
    slot.capturedAt = laterCapture(slot.capturedAt, c.capturedAt)
    for (const s of c.sources) slot.sources.add(s)
  }

  /**
   * Plans a merge of the targets and the candidate; the result keeps the newest `observed_at`,
   * position and capture time of what it merges. Returns the id the result lives under.
   */
  #merge(c: PlannedCandidate, targets: readonly string[], kind: string, text: string): string {
    const inputs: ArtifactRef[] = []
    const sources = new Set(c.sources)
    let observedAt = c.observedAt
    let position = c.position
    let capturedAt = c.capturedAt
    for (const id of targets) {
      const slot = this.#slots.get(id)
      if (slot !== undefined) {
        this.#slots.delete(id)
        for (const s of slot.sources) sources.add(s)
        observedAt = later(observedAt, slot.observedAt)
        position = maxPos(position, slot.position)
        capturedAt = laterCapture(capturedAt, slot.capturedAt)
        if (slot.type === 'update') inputs.push(slot.base)
        if (slot.type === 'merge') inputs.push(...slot.inputs)
        continue
      }
      const stored = this.#known.get(id)
      if (stored !== undefined) {
        inputs.push(stored.memory.memoryRef)
        observedAt = later(observedAt, stored.memory.observedAt)
        position = maxPos(position, stored.position)
        capturedAt = laterCapture(capturedAt, stored.memory.createdAt)
      }
    }
    const fields = { kind, text, observedAt, sources, reason: c.reason, position, capturedAt }
    if (inputs.length === 1) {
      const base = inputs[0] as ArtifactRef
      this.#slots.set(base.artifactId, { type: 'update', id: base.artifactId, base, ...fields })
      for (const t of targets) if (t !== base.artifactId) this.#into.set(t, base.artifactId)
      return base.artifactId
    }
    const id = `new:${this.#next++}`
    for (const t of targets) this.#into.set(t, id)
    if (inputs.length >= 2) {
      for (const r of inputs) this.#absorbed.add(r.artifactId)
      this.#slots.set(id, { type: 'merge', id, inputs, ...fields })
    } else this.#slots.set(id, { type: 'create', id, ...fields })
    return id
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
