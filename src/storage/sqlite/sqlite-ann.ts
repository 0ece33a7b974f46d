import type { HierarchicalNSW } from 'hnswlib-node'

import type { GraphStore } from './sqlite-ann-store.js'
import type {
  AnnReader,
  AnnReadRunner,
  AnnScopeStatus,
  AnnSettings,
  AnnStamp,
  AnnVectorRow,
  Hnswlib,
} from './sqlite-ann-types.js'

/** A ready graph is saved again once it has applied this many log entries since its last save. */
const SAVE_AFTER = 10_000
/** Entries applied inside a search; a longer backlog is applied in the background instead. */
const SEARCH_CATCH_UP = 64
/** Vectors (or log entries) read per background step, in one short read transaction. */
const BUILD_PAGE = 200
/**
 * Vectors inserted between two yields to the event loop: inserting one costs up to ≈ 1 ms in a
 * 100,000-vector graph, so other requests wait at most a few tens of milliseconds for a build.
 */
const INSERT_SLICE = 25

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

function toArray(buf: Buffer, dimension: number): number[] {
  const out = new Array<number>(dimension)
  for (let i = 0; i < dimension; i++) out[i] = buf.readFloatLE(i * 4)
  return out
}

/** One scope's HNSW graph; labels are projection ids. */
class ScopeGraph {
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

/**
 * The graphs of one backend. `search` runs inside the caller's read transaction and answers only
 * from a graph that is ready and, after applying the log, exactly in step with that transaction's
 * snapshot; otherwise it returns `undefined` (search exactly) and starts the work in the
 * background: a build for a scope that has grown to `minVectors`, a catch-up for a long backlog,
 * a rebuild after the vector epoch moved or the log was pruned past the graph.
 */
export class AnnGraphs {
  readonly #hnswlib: Hnswlib
  readonly #settings: AnnSettings
  readonly #dimension: number
  readonly #read: AnnReadRunner
  readonly #store: GraphStore | undefined
  readonly #graphs = new Map<string, ScopeGraph>()
  readonly #tasks = new Map<string, Promise<void>>()
  /** Per scope: the log position at which its size was last counted (to count rarely). */
  readonly #counted = new Map<string, number>()
  #closed = false
  lastError: string | null = null

  /** `store`: where graphs are saved and loaded from (none for an in-memory database). */
  constructor(
    hnswlib: Hnswlib,
    dimension: number,
    settings: AnnSettings,
    read: AnnReadRunner,
    store?: GraphStore,
  ) {
    this.#hnswlib = hnswlib
    this.#dimension = dimension
    this.#settings = settings
    this.#read = read
    this.#store = store
  }

  /** Nearest rows of the scope from its graph, or `undefined` when it must be searched exactly. */
  search(
    reader: AnnReader,
    scopeId: string,
    vector: readonly number[],
    k: number,
  ): { projectionId: number; distance: number }[] | undefined {
    if (this.#closed) return undefined
    const graph = this.#graphs.get(scopeId)
    const stamp = reader.stamp()
    if (graph === undefined || graph.state !== 'ready') {
      if (graph === undefined) this.#maybeBuild(reader, scopeId, stamp)
      return undefined
    }
    if (!this.#inStep(reader, scopeId, graph, stamp)) return undefined
    if (graph.live < this.#settings.minVectors / 2) {
      this.#graphs.delete(scopeId) // the scope shrank: exact search is cheap again
      return undefined
    }
    if (graph.deleted > Math.max(graph.live, this.#settings.minVectors)) this.#rebuild(scopeId)
    else if (graph.stamp.logSeq - graph.savedAt >= SAVE_AFTER) {
      this.#background(scopeId, () => this.#save(scopeId, graph))
    }
    return graph.search(vector, k, this.#settings.efSearch)
  }

  /** Brings a ready graph to the snapshot of `reader`; false when that is work for later. */
  #inStep(reader: AnnReader, scopeId: string, graph: ScopeGraph, stamp: AnnStamp): boolean {
    if (stamp.epoch !== graph.stamp.epoch || this.#pruned(stamp, graph.stamp)) {
      this.#rebuild(scopeId)
      return false
    }
    if (graph.catchingUp) return false
    if (stamp.logSeq === graph.stamp.logSeq) return true
    const entries = reader.logAfter(scopeId, graph.stamp.logSeq, SEARCH_CATCH_UP + 1)
    if (entries.length > SEARCH_CATCH_UP) {
      this.#background(scopeId, async () => {
        if (!(await this.#catchUp(scopeId, graph))) await this.#build(scopeId)
      })
      return false
    }
    const ids = [...new Set(entries.map((e) => e.memoryId))]
    graph.apply(ids, reader.vectorsOf(ids))
    graph.stamp = stamp
    return true
  }

  /** True when log entries after `seen` were pruned before the graph applied them. */
  #pruned(now: AnnStamp, seen: AnnStamp): boolean {
    if (now.logSeq === seen.logSeq) return false
    return now.minLogSeq === null || now.minLogSeq > seen.logSeq + 1
  }

  #maybeBuild(reader: AnnReader, scopeId: string, stamp: AnnStamp): void {
    if (this.#tasks.has(scopeId)) return
    // Counting the scope is cheap but not free: recount only after a tenth of the threshold of
    // vector writes (to any scope) since the last count.
    const last = this.#counted.get(scopeId)
    if (last !== undefined && stamp.logSeq - last < this.#settings.minVectors / 10) return
    this.#counted.set(scopeId, stamp.logSeq)
    if (reader.vectorCount(scopeId) >= this.#settings.minVectors) this.#rebuild(scopeId)
  }

  #rebuild(scopeId: string): void {
    this.#background(scopeId, () => this.#build(scopeId))
  }

  /** Runs one task per scope at a time; a failure drops the scope's graph (exact search goes on). */
  #background(scopeId: string, task: () => Promise<void>): void {
    if (this.#tasks.has(scopeId) || this.#closed) return
    const run = task()
      .catch((err: unknown) => {
        this.lastError = `scope ${scopeId}: ${(err as Error).message}`
        this.#graphs.delete(scopeId)
      })
      .finally(() => this.#tasks.delete(scopeId))
    this.#tasks.set(scopeId, run)
  }

  /**
   * Makes the scope's graph ready: the saved one when it matches the database, else a new build
   * (started over when the vector epoch moves meanwhile), which is then saved.
   */
  async #build(scopeId: string): Promise<void> {
    const loaded = await this.#load(scopeId)
    if (loaded !== undefined && (await this.#catchUp(scopeId, loaded))) {
      this.#ready(scopeId, loaded, null)
      return
    }
    for (let attempt = 1; ; attempt++) {
      const started = performance.now()
      const graph = await this.#fill(scopeId)
      if (graph === undefined) return // closed
      if (await this.#catchUp(scopeId, graph)) {
        this.#ready(scopeId, graph, performance.now() - started)
        await this.#save(scopeId, graph)
        return
      }
      if (attempt >= 3) throw new Error('the vector index kept changing wholesale during builds')
    }
  }

  #ready(scopeId: string, graph: ScopeGraph, buildMs: number | null): void {
    graph.state = 'ready'
    graph.buildMs = buildMs
    if (!this.#closed) this.#graphs.set(scopeId, graph)
  }

  /** The saved graph, if it was built from this database's exact history under these settings. */
  async #load(scopeId: string): Promise<ScopeGraph | undefined> {
    const saved = await this.#store?.load(scopeId, this.#dimension)
    if (saved === undefined || this.#closed) return undefined
    const { meta } = saved
    const matches = await this.#read((r) => {
      const now = r.stamp()
      return (
        meta.databaseId === r.databaseId() &&
        meta.m === this.#settings.m &&
        meta.efConstruction === this.#settings.efConstruction &&
        meta.stamp.epoch === now.epoch &&
        meta.stamp.logSeq <= now.logSeq &&
        !this.#pruned(now, meta.stamp) &&
        (meta.stamp.logSeq === 0 ||
          (r.logMemoryAt(meta.stamp.logSeq) ?? meta.lastLogMemoryId) === meta.lastLogMemoryId)
      )
    })
    if (!matches) return undefined
    const capacity = saved.index.getMaxElements()
    return new ScopeGraph(saved.index, this.#dimension, capacity, meta.stamp, meta)
  }

  /**
   * Saves a ready graph (searches go exact while the index file is written). A failed save is
   * reported in `lastError` and tried again after the next {@link SAVE_AFTER} entries; the graph
   * itself stays in use.
   */
  async #save(scopeId: string, graph: ScopeGraph): Promise<void> {
    try {
      await this.#trySave(scopeId, graph)
    } catch (err) {
      this.lastError = `scope ${scopeId}: saving the graph failed: ${(err as Error).message}`
    }
  }

  async #trySave(scopeId: string, graph: ScopeGraph): Promise<void> {
    const store = this.#store
    if (this.#closed) return
    const stamp = graph.stamp
    graph.savedAt = store === undefined ? Infinity : stamp.logSeq // also when this save gives up
    if (store === undefined) return
    // Nothing may change the graph from here until the file is written.
    graph.catchingUp = true
    try {
      const ids = await this.#read((r) => ({
        databaseId: r.databaseId(),
        lastLogMemoryId: stamp.logSeq === 0 ? null : (r.logMemoryAt(stamp.logSeq) ?? null),
      }))
      if (stamp.logSeq !== 0 && ids.lastLogMemoryId === null) return // pruned: cannot be checked
      const { index, ...state } = graph.snapshot()
      await store.save(index, {
        format: 1,
        scopeId,
        dimension: this.#dimension,
        m: this.#settings.m,
        efConstruction: this.#settings.efConstruction,
        stamp,
        ...ids,
        ...state,
      })
    } finally {
      graph.catchingUp = false
    }
  }

  async #fill(scopeId: string): Promise<ScopeGraph | undefined> {
    const { stamp, count } = await this.#read((r) => ({
      stamp: r.stamp(),
      count: r.vectorCount(scopeId),
    }))
    const capacity = Math.max(1_000, Math.ceil(count * 1.1))
    const index = new this.#hnswlib.HierarchicalNSW('l2', this.#dimension)
    index.initIndex(capacity, this.#settings.m, this.#settings.efConstruction, 100, false)
    const graph = new ScopeGraph(index, this.#dimension, capacity, stamp)
    // Pages come from successive snapshots; everything that changed after `stamp` is in the log
    // and is applied again by the catch-up from the then current rows, so the mix heals.
    for (let after = 0; ;) {
      if (this.#closed) return undefined
      const page = await this.#read((r) => r.page(scopeId, after, BUILD_PAGE))
      if (page.length === 0) return graph
      for (let i = 0; i < page.length; i += INSERT_SLICE) {
        for (const row of page.slice(i, i + INSERT_SLICE)) graph.upsert(row)
        await yieldToEventLoop()
        if (this.#closed) return undefined
      }
      after = page.at(-1)!.projectionId
    }
  }

  /**
   * Applies the log in steps until the graph is in step with the latest snapshot. False when the
   * vector epoch moved or the log was pruned past the graph: it must be built again. Each step
   * reads in one short read transaction and inserts outside it, in slices; searches leave the
   * graph alone meanwhile (so rows of an older snapshot never overwrite newer ones).
   */
  async #catchUp(scopeId: string, graph: ScopeGraph): Promise<boolean> {
    graph.catchingUp = true
    try {
      for (;;) {
        if (this.#closed) return false
        const step = await this.#read((r) => {
          const stamp = r.stamp()
          if (stamp.epoch !== graph.stamp.epoch || this.#pruned(stamp, graph.stamp)) return null
          const entries = r.logAfter(scopeId, graph.stamp.logSeq, BUILD_PAGE)
          const ids = [...new Set(entries.map((e) => e.memoryId))]
          return { stamp, entries, ids, rows: r.vectorsOf(ids) }
        })
        if (step === null) return false
        for (let i = 0; i < step.ids.length; i += INSERT_SLICE) {
          const ids = step.ids.slice(i, i + INSERT_SLICE)
          const wanted = new Set(ids)
          graph.apply(
            ids,
            step.rows.filter((r) => wanted.has(r.memoryId)),
          )
          await yieldToEventLoop()
        }
        if (step.entries.length < BUILD_PAGE) {
          graph.stamp = step.stamp
          return true
        }
        graph.stamp = { ...step.stamp, logSeq: step.entries.at(-1)!.seq }
      }
    } finally {
      graph.catchingUp = false
    }
  }

  /** Resolves once no build or catch-up is running (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.#tasks.size > 0) await Promise.all([...this.#tasks.values()])
  }

  status(): Record<string, AnnScopeStatus> {
    const out: Record<string, AnnScopeStatus> = {}
    for (const [scopeId, g] of this.#graphs) {
      out[scopeId] = {
        state: g.state,
        vectors: g.live,
        buildMs: g.buildMs,
        loaded: g.loaded,
        searches: g.searches,
      }
    }
    for (const scopeId of this.#tasks.keys()) {
      out[scopeId] ??= { state: 'building', vectors: 0, buildMs: null, loaded: false, searches: 0 }
    }
    return out
  }

  close(): void {
    this.#closed = true
    this.#graphs.clear()
  }
}
