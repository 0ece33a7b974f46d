import type { ScopeGraph } from './sqlite-ann-graph.js'
import { prunedPast } from './sqlite-ann-graph.js'
import type { GraphLifecycle, GraphWork } from './sqlite-ann-lifecycle.js'
import type { AnnReader, AnnSettings, AnnStamp } from './sqlite-ann-types.js'

/** A ready graph is saved again once it has applied this many log entries since its last save. */
const SAVE_AFTER = 10_000
/** Entries applied inside a search; a longer backlog is applied in the background instead. */
const SEARCH_CATCH_UP = 64

/** What a graph search found, and the work on the scope's graph it asks the caller to schedule. */
export interface GraphAnswer {
  /** Nearest rows from the graph; `undefined`: the scope must be searched exactly. */
  readonly near: { projectionId: number; distance: number }[] | undefined
  /** Hand it to {@link GraphLifecycle.schedule}; a search itself starts nothing. */
  readonly work: GraphWork | undefined
}

const exactly = (work?: GraphWork): GraphAnswer => ({ near: undefined, work })

/**
 * Searches the graphs of one backend's {@link GraphLifecycle}. `search` runs inside the caller's
 * read transaction and answers only from a graph that is ready and, after applying a short log
 * backlog to it, exactly in step with that transaction's snapshot; otherwise the scope is searched
 * exactly. Either way the answer names the work the graph needs — a build for a scope that has
 * grown to `minVectors`, a catch-up for a long backlog, a rebuild after the vector epoch moved or
 * the log was pruned past the graph, a save, a drop — which the caller schedules.
 */
export class GraphSearch {
  readonly #graphs: GraphLifecycle
  readonly #settings: AnnSettings
  /** Per scope: the log position at which its size was last counted (to count rarely). */
  readonly #counted = new Map<string, number>()

  constructor(graphs: GraphLifecycle, settings: AnnSettings) {
    this.#graphs = graphs
    this.#settings = settings
  }

  /** Nearest rows of the scope from its graph, or `near: undefined` to search it exactly. */
  search(reader: AnnReader, scopeId: string, vector: readonly number[], k: number): GraphAnswer {
    if (this.#graphs.closed) return exactly()
    const graph = this.#graphs.graph(scopeId)
    const stamp = reader.stamp()
    if (graph === undefined || graph.state !== 'ready') {
      const grown = graph === undefined && this.#grown(reader, scopeId, stamp)
      return exactly(grown ? 'build' : undefined)
    }
    const step = this.#inStep(reader, scopeId, graph, stamp)
    if (step !== 'in-step') return exactly(step)
    if (graph.live < this.#settings.minVectors / 2) return exactly('drop')
    let work: GraphWork | undefined
    if (graph.deleted > Math.max(graph.live, this.#settings.minVectors)) work = 'build'
    else if (graph.stamp.logSeq - graph.savedAt >= SAVE_AFTER) work = 'save'
    return { near: graph.search(vector, k, this.#settings.efSearch), work }
  }

  /**
   * Brings a ready graph to the snapshot of `reader` when the backlog is short ('in-step');
   * otherwise the work that does it later (none while a catch-up or save holds the graph).
   */
  #inStep(
    reader: AnnReader,
    scopeId: string,
    graph: ScopeGraph,
    stamp: AnnStamp,
  ): 'in-step' | GraphWork | undefined {
    if (stamp.epoch !== graph.stamp.epoch || prunedPast(stamp, graph.stamp)) return 'build'
    if (graph.catchingUp) return undefined
    if (stamp.logSeq === graph.stamp.logSeq) return 'in-step'
    const entries = reader.logAfter(scopeId, graph.stamp.logSeq, SEARCH_CATCH_UP + 1)
    if (entries.length > SEARCH_CATCH_UP) return 'catch-up'
    const ids = [...new Set(entries.map((e) => e.memoryId))]
    graph.apply(ids, reader.vectorsOf(ids))
    graph.stamp = stamp
    return 'in-step'
  }

  /** True when a scope without a graph has grown to `minVectors` (it then wants a build). */
  #grown(reader: AnnReader, scopeId: string, stamp: AnnStamp): boolean {
    if (this.#graphs.busy(scopeId)) return false
    // Counting the scope is cheap but not free: recount only after a tenth of the threshold of
    // vector writes (to any scope) since the last count.
    const last = this.#counted.get(scopeId)
    if (last !== undefined && stamp.logSeq - last < this.#settings.minVectors / 10) return false
    this.#counted.set(scopeId, stamp.logSeq)
    return reader.vectorCount(scopeId) >= this.#settings.minVectors
  }
}
