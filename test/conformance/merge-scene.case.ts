/*
 * Helpers of the merge and restore areas (memory-merge*.case.ts). A `Scene` names the memories of
 * one scope (A, B, C…) and checks get, list, search and verify against the states a test expects.
 * Every text of a scene is one word no other memory of the scope uses, so a search for a text
 * finds exactly the memory whose current version carries it, while that memory is active.
 */
import { expect } from 'vitest'

import type { ArtifactRef, Memory, MemoryChange, MemoryState } from '../../src/core/memory-model.js'
import type {
  HistoryResult,
  MemoryBackend,
  MergeResult,
  RememberEntry,
} from '../../src/storage/spi/memory-backend.js'
import { ALL_STATES, newScope, rememberOne } from './harness.case.js'

export const UNKNOWN_ID = 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV'

/** Everything a failed write must leave untouched in a scope. */
export async function scopeState(backend: MemoryBackend, scopeId: string): Promise<unknown> {
  return {
    changes: await backend.changes({ scopeId, since: 0 }),
    list: await backend.list({ scopeId, states: ALL_STATES }),
  }
}

/** The fields of a change row a test predicts. */
export type Row = Pick<
  MemoryChange,
  'op' | 'memoryId' | 'fromRevision' | 'toRevision' | 'fromState' | 'toState'
>

/** Change rows as comparable tuples, grouped by memory id (stable: seq order within a memory). */
export function rowsOf(changes: readonly Row[]): unknown[][] {
  return [...changes]
    .sort((a, b) => (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0))
    .map((c) => [c.op, c.memoryId, c.fromRevision, c.toRevision, c.fromState, c.toState])
}

/** Refs sorted by memory id. */
export function byRef<T extends ArtifactRef>(refs: readonly T[]): T[] {
  return [...refs].sort((a, b) => (a.artifactId < b.artifactId ? -1 : 1))
}

/** Memories sorted by memory id. */
export function byId<T extends Memory>(memories: readonly T[]): T[] {
  return [...memories].sort((a, b) => (a.memoryRef.artifactId < b.memoryRef.artifactId ? -1 : 1))
}

export class Scene {
  readonly #ids = new Map<string, string>()

  constructor(
    readonly backend: MemoryBackend,
    readonly scopeId = newScope('merge'),
  ) {}

  id(name: string): string {
    const id = this.#ids.get(name)
    if (id === undefined) throw new Error(`scene has no memory ${name}`)
    return id
  }

  /** The name of a memory id (the id itself when the scene does not know it). */
  name(id: string): string {
    for (const [name, known] of this.#ids) if (known === id) return name
    return id
  }

  /** Names of refs or memories, sorted. */
  names(items: readonly (ArtifactRef | Memory | { memoryId: string })[]): string[] {
    const id = (x: ArtifactRef | Memory | { memoryId: string }): string =>
      'artifactId' in x ? x.artifactId : 'memoryId' in x ? x.memoryId : x.memoryRef.artifactId
    return items.map((x) => this.name(id(x))).sort()
  }

  /** `name@revision` of refs or memories, sorted. */
  refs(items: readonly (ArtifactRef | Memory | { memoryId: string; version: number })[]): string[] {
    return items
      .map((x) =>
        'artifactId' in x
          ? `${this.name(x.artifactId)}@${x.revision}`
          : 'memoryId' in x
            ? `${this.name(x.memoryId)}@${x.version}`
            : `${this.name(x.memoryRef.artifactId)}@${x.memoryRef.revision}`,
      )
      .sort()
  }

  async add(name: string, text: string, entry: Partial<RememberEntry> = {}): Promise<Memory> {
    const m = await rememberOne(this.backend, this.scopeId, { kind: 'fact', text, ...entry })
    this.#ids.set(name, m.memoryRef.artifactId)
    return m
  }

  /** Remembers `name text` pairs: `addAll('A aardvark', 'B bison')`. */
  async addAll(...pairs: string[]): Promise<void> {
    for (const pair of pairs) {
      const [name, text] = pair.split(' ') as [string, string]
      await this.add(name, text)
    }
  }

  async current(name: string): Promise<Memory> {
    return (await this.backend.get({ scopeId: this.scopeId, memoryId: this.id(name) })).memory
  }

  async update(name: string, text: string): Promise<Memory> {
    const { memoryRef } = await this.current(name)
    const res = await this.backend.update({ scopeId: this.scopeId, memoryRef, text })
    expect(res.status).toBe('updated')
    return res.memory
  }

  /** Merges the named memories at their current versions into a new memory `name`. */
  async merge(
    name: string,
    inputs: readonly string[],
    text: string,
    options: { kind?: string; reason?: string } = {},
  ): Promise<MergeResult> {
    const refs = await Promise.all(inputs.map(async (i) => (await this.current(i)).memoryRef))
    const res = await this.backend.merge({
      scopeId: this.scopeId,
      inputs: refs,
      kind: options.kind ?? 'fact',
      text,
      reason: options.reason,
    })
    this.#ids.set(name, res.memory.memoryRef.artifactId)
    return res
  }

  /** A predicted change row of the named memory. */
  row(
    op: Row['op'],
    name: string,
    revisions: readonly [number | null, number],
    states: readonly [MemoryState | null, MemoryState],
  ): Row {
    const [fromRevision, toRevision] = revisions
    const [fromState, toState] = states
    return { op, memoryId: this.id(name), fromRevision, toRevision, fromState, toState }
  }

  async head(): Promise<number> {
    return (await this.backend.changes({ scopeId: this.scopeId, since: 0 })).headSeq
  }

  /** Rows written after `since`, which must all belong to one operation. */
  async rowsSince(since: number): Promise<readonly MemoryChange[]> {
    const { changes } = await this.backend.changes({ scopeId: this.scopeId, since })
    expect(changes.length).toBeGreaterThan(0)
    expect(new Set(changes.map((c) => c.operationId)).size).toBe(1)
    return changes
  }

  /**
   * Asserts every memory of the scene, given as `'A:merged@2 B:active C:retired@1'` (the revision
   * is optional): its state and current revision through `get`, `merged_into` set exactly when
   * merged, `list` by state partitioning the scope exactly, search finding each active memory by
   * its current text and no memory by any other text of its history, and `verify` finding nothing.
   */
  async expectStates(spec: string): Promise<void> {
    const { backend, scopeId } = this
    const want = spec
      .trim()
      .split(/\s+/)
      .map((item) => {
        const [name, state, revision] = item.split(/[:@]/) as [string, MemoryState, string?]
        expect(ALL_STATES, item).toContain(state)
        return { name, state, revision: revision === undefined ? undefined : Number(revision) }
      })
    expect(want.map((w) => w.name).sort()).toEqual([...this.#ids.keys()].sort())
    for (const state of ALL_STATES) {
      const listed = await backend.list({ scopeId, states: [state] })
      const names = want.filter((w) => w.state === state).map((w) => w.name)
      expect(this.names(listed.memories), `list ${state}`).toEqual(names.sort())
    }
    for (const { name, state, revision } of want) {
      const memoryId = this.id(name)
      const got = await backend.get({ scopeId, memoryId })
      expect([got.state, got.memory.state], `state of ${name}`).toEqual([state, state])
      if (revision !== undefined) expect(got.currentRevision, `revision of ${name}`).toBe(revision)
      expect(got.memory.mergedInto !== null, `merged_into of ${name}`).toBe(state === 'merged')
      const history = await backend.history({ scopeId, memoryId })
      expect(history.versions.map((v) => v.state)).toEqual(history.versions.map(() => state))
      for (const text of new Set(history.versions.map((v) => v.text))) {
        const { hits } = await backend.search({ scopeId, query: text })
        const found = state === 'active' && got.memory.text === text
        expect(this.refs(hits.map((h) => h.memoryRef)), `search ${text} (${name})`).toEqual(
          found ? [`${name}@${got.currentRevision}`] : [],
        )
      }
    }
    const report = await backend.verify()
    expect(report.problems).toEqual([])
    expect(report.ok).toBe(true)
  }
}

/**
 * The state invariants of docs/memory-model.md over a whole scope whose memories are the keys of `words`,
 * each searchable by its word: every memory in exactly one state and `list` by state partitioning
 * the scope; active ⇔ found by its word (at its current version); `merged_into` set ⇔ merged, as
 * an input of exactly one effective merge (at its frozen version), chains acyclic and ending at a
 * result of an effective merge that is active or forgotten; no memory is the result of two merges;
 * retired ⇔ result of an undone merge; `verify` finds no problem.
 */
export async function expectScopeInvariants(
  b: MemoryBackend,
  scopeId: string,
  words: ReadonlyMap<string, string>,
): Promise<void> {
  const ids = [...words.keys()]
  const byState = new Map<string, Memory>()
  for (const state of ALL_STATES) {
    for (const m of (await b.list({ scopeId, states: [state], limit: 500 })).memories) {
      expect(byState.has(m.memoryRef.artifactId), 'listed in two states').toBe(false)
      expect(m.state).toBe(state)
      byState.set(m.memoryRef.artifactId, m)
    }
  }
  expect([...byState.keys()].sort()).toEqual(ids.sort())
  const merges = new Map<string, HistoryResult['merges']>()
  for (const id of ids) {
    const m = byState.get(id)!
    const { hits } = await b.search({ scopeId, query: words.get(id)! })
    const expected = m.state === 'active' ? [`${id}@${m.memoryRef.revision}`] : []
    expect(hits.map((h) => `${h.memoryRef.artifactId}@${h.memoryRef.revision}`)).toEqual(expected)
    expect(m.mergedInto !== null, `merged_into of a ${m.state} memory`).toBe(m.state === 'merged')
    const history = await b.history({ scopeId, memoryId: id })
    expect(history.state).toBe(m.state)
    merges.set(id, history.merges)
    const absorbed = history.merges.filter(
      (r) => r.state === 'effective' && r.inputs.some((i) => i.artifactId === id),
    )
    expect(absorbed.length, 'effective merges absorbing one memory').toBe(
      m.state === 'merged' ? 1 : 0,
    )
    if (m.state === 'merged') {
      expect(absorbed[0]!.resultId).toBe(m.mergedInto)
      const ref = absorbed[0]!.inputs.find((i) => i.artifactId === id)!
      expect(ref.revision).toBe(m.memoryRef.revision)
    }
    const made = history.merges.filter((r) => r.resultId === id)
    expect(made.length).toBeLessThanOrEqual(1)
    expect(made.map((r) => r.state)).toEqual(
      m.state === 'retired' ? ['undone'] : made.length === 0 ? [] : ['effective'],
    )
  }
  for (const m of byState.values()) {
    const seen = new Set<string>()
    let cur = m
    while (cur.state === 'merged') {
      expect(seen.has(cur.memoryRef.artifactId), 'merged_into cycle').toBe(false)
      seen.add(cur.memoryRef.artifactId)
      cur = byState.get(cur.mergedInto!)!
      expect(cur, 'merged_into names a memory of the scope').toBeDefined()
    }
    if (seen.size > 0) {
      expect(['active', 'forgotten']).toContain(cur.state)
      const own = merges
        .get(cur.memoryRef.artifactId)!
        .filter((r) => r.resultId === cur.memoryRef.artifactId)
      expect(own.map((r) => r.state)).toEqual(['effective'])
    }
  }
  const report = await b.verify()
  expect(report.problems).toEqual([])
}
