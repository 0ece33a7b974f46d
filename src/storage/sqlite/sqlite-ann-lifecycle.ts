import { prunedPast, ScopeGraph } from './sqlite-ann-graph.js'
import type { GraphStore } from './sqlite-ann-store.js'
import type { AnnReadRunner, AnnScopeStatus, AnnSettings, Hnswlib } from './sqlite-ann-types.js'

/** Vectors (or log entries) read per background step, in one short read transaction. */
const BUILD_PAGE = 200
/**
 * Vectors inserted between two yields to the event loop: inserting one costs up to ≈ 1 ms in a
 * 100,000-vector graph, so other requests wait at most a few tens of milliseconds for a build.
 */
const INSERT_SLICE = 25

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Work on one scope's graph, asked for by a search (`sqlite-ann-search.ts`) and run only when the
 * caller hands it to {@link GraphLifecycle.schedule}:
 * - `build`: make the graph ready — the saved one when it matches the database, else a new build
 *   (a first build, or a rebuild after the vector epoch moved, the log was pruned past the graph
 *   or too many of its nodes were deleted);
 * - `catch-up`: apply a log backlog longer than a search applies (a build when that fails);
 * - `save`: save a ready graph that has applied many entries since its last save;
 * - `drop`: forget the graph of a scope that shrank (exact search is cheap again).
 */
export type GraphWork = 'build' | 'catch-up' | 'save' | 'drop'

/**
 * The lifecycle of one backend's graphs: which scope has a ready graph, and the work that builds,
 * rebuilds, catches up, saves and drops them. Nothing here runs unless {@link schedule}d; the
 * background work reads through `read` (one short read transaction per step, between the
 * backend's other work), one task per scope at a time.
 */
export class GraphLifecycle {
  readonly #hnswlib: Hnswlib
  readonly #settings: AnnSettings
  readonly #dimension: number
  readonly #read: AnnReadRunner
  readonly #store: GraphStore | undefined
  readonly #graphs = new Map<string, ScopeGraph>()
  readonly #tasks = new Map<string, Promise<void>>()
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

  get closed(): boolean {
    return this.#closed
  }

  /** The scope's ready graph, if it has one. */
  graph(scopeId: string): ScopeGraph | undefined {
    return this.#graphs.get(scopeId)
  }

  /** True while background work on the scope's graph runs. */
  busy(scopeId: string): boolean {
    return this.#tasks.has(scopeId)
  }

  /**
   * Starts `work` on the scope's graph: `drop` at once; the others as the scope's background task,
   * unless one already runs or the graphs are closed.
   */
  schedule(scopeId: string, work: GraphWork): void {
    if (work === 'drop') {
      this.#graphs.delete(scopeId)
      return
    }
    if (work === 'build') {
      this.#background(scopeId, () => this.#build(scopeId))
      return
    }
    const graph = this.#graphs.get(scopeId)
    if (graph === undefined) return
    if (work === 'save') this.#background(scopeId, () => this.#save(scopeId, graph))
    else {
      this.#background(scopeId, async () => {
        if (!(await this.#catchUp(scopeId, graph))) await this.#build(scopeId)
      })
    }
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
        !prunedPast(now, meta.stamp) &&
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
   * reported in `lastError` and asked for again by the search after its next batch of entries
   * (`SAVE_AFTER` in `sqlite-ann-search.ts`); the graph itself stays in use.
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
          if (stamp.epoch !== graph.stamp.epoch || prunedPast(stamp, graph.stamp)) return null
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
