import type { HierarchicalNSW } from 'hnswlib-node'

import type { AnnStamp, AnnVectorRow } from './sqlite-ann-types.js'

function toArray(buf: Buffer, dimension: number): number[] {
  const out = new Array<number>(dimension)
  for (let i = 0; i < dimension; i++) out[i] = buf.readFloatLE(i * 4)
  return out
}

/** One scope's HNSW graph; labels are projection ids. */
export class ScopeGraph {
  readonly #index: HierarchicalNSW
  readonly #dimension: number
  /** memory → label, and label → memory (a projection id can be reused by another head). */
  readonly #labelOf = new Map<string, number>()
  readonly #ownerOf = new Map<number, string>()
  readonly #deleted = new Set<number>()
  #capacity: number
  stamp: AnnStamp
  state: 'building' | 'ready' = 'building'
  buildMs: number | null = null
  searches = 0
  /** A background catch-up is changing the graph, or a save is reading it: searches go exact. */
  catchingUp = false
  readonly loaded: boolean
  /** The log position of the last save (-Infinity: never saved). */
  savedAt: number

  /** A new graph (`capacity` slots), or a saved one with its labels. */
  constructor(
    index: HierarchicalNSW,
    dimension: number,
    capacity: number,
    stamp: AnnStamp,
    saved?: { labels: readonly (readonly [string, number])[]; deleted: readonly number[] },
  ) {
    this.#index = index
    this.#dimension = dimension
    this.#capacity = capacity
    this.stamp = stamp
    for (const [memoryId, label] of saved?.labels ?? []) {
      this.#labelOf.set(memoryId, label)
      this.#ownerOf.set(label, memoryId)
    }
    for (const label of saved?.deleted ?? []) this.#deleted.add(label)
    this.loaded = saved !== undefined
    this.savedAt = saved === undefined ? -Infinity : stamp.logSeq
  }

  /** What a save needs: the index (unchanged until the save resolves) and the label maps. */
  snapshot(): {
    index: HierarchicalNSW
    labels: [string, number][]
    deleted: number[]
  } {
    return {
      index: this.#index,
      labels: [...this.#labelOf],
      deleted: [...this.#deleted],
    }
  }

  get live(): number {
    return this.#labelOf.size
  }

  get deleted(): number {
    return this.#deleted.size
  }

  upsert(row: AnnVectorRow): void {
    const label = row.projectionId
    const previous = this.#labelOf.get(row.memoryId)
    if (previous !== undefined && previous !== label) this.remove(row.memoryId)
    const owner = this.#ownerOf.get(label)
    if (owner !== undefined && owner !== row.memoryId) this.#labelOf.delete(owner)
    const slots = this.#labelOf.size + this.#deleted.size
    if (!this.#ownerOf.has(label) && !this.#deleted.has(label) && slots >= this.#capacity) {
      this.#capacity = Math.ceil(this.#capacity * 1.5)
      this.#index.resizeIndex(this.#capacity)
    }
    // Adding an existing label (live or deleted) replaces its vector and makes it live again.
    this.#index.addPoint(toArray(row.embedding, this.#dimension), label)
    this.#deleted.delete(label)
    this.#labelOf.set(row.memoryId, label)
    this.#ownerOf.set(label, row.memoryId)
  }

  remove(memoryId: string): void {
    const label = this.#labelOf.get(memoryId)
    if (label === undefined) return
    this.#labelOf.delete(memoryId)
    if (this.#ownerOf.get(label) !== memoryId) return
    this.#ownerOf.delete(label)
    this.#index.markDelete(label)
    this.#deleted.add(label)
  }

  /** Sets each memory to its current vector (`rows`), or removes it when it has none now. */
  apply(memoryIds: readonly string[], rows: readonly AnnVectorRow[]): void {
    const current = new Map(rows.map((r) => [r.memoryId, r]))
    for (const id of new Set(memoryIds)) {
      const row = current.get(id)
      if (row === undefined) this.remove(id)
      else this.upsert(row)
    }
  }

  search(
    vector: readonly number[],
    k: number,
    ef: number,
  ): { projectionId: number; distance: number }[] {
    this.searches++
    this.#index.setEf(Math.max(ef, k))
    const found = this.#index.searchKnn([...vector], Math.min(k, this.#capacity))
    // hnswlib's l2 space returns squared distances.
    return found.neighbors.map((projectionId, i) => ({
      projectionId,
      distance: Math.sqrt(Math.max(0, found.distances[i] ?? 0)),
    }))
  }
}

/** True when log entries after `seen` were pruned before a graph at `seen` applied them. */
export function prunedPast(now: AnnStamp, seen: AnnStamp): boolean {
  if (now.logSeq === seen.logSeq) return false
  return now.minLogSeq === null || now.minLogSeq > seen.logSeq + 1
}
