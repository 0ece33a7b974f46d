/*
 * Conformance, property-based: random sequences of remember, update (current or stale revision),
 * forget, restore (with or without a version; without a token, with a fresh one or an earlier one)
 * and merges of 1–3 memories (valid or not). After every step the state invariants of docs/memory-model.md
 * must hold; a request that breaks a rule must fail with its typed error; a failure must leave the
 * scope exactly as it was. Fixed seed, so a failure reproduces.
 */
import fc from 'fast-check'
import { expect } from 'vitest'

import type { ErrorCode } from '../../src/core/errors.js'
import { PowerContextError } from '../../src/core/errors.js'
import type { Memory } from '../../src/core/memory-model.js'
import type {
  ForgetResult,
  MemoryBackend,
  MergeResult,
  RememberResult,
  RestorePreviewResult,
  RestoreResult,
  UpdateResult,
} from '../../src/storage/spi/memory-backend.js'
import type { ConformanceSuite } from './harness.case.js'
import { ALL_STATES, newScope } from './harness.case.js'
import { expectScopeInvariants, UNKNOWN_ID } from './merge-scene.case.js'

const SEED = 20_240_611
const RUNS = 50
const VARIANTS = ['red', 'green', 'blue'] as const

/** Which memories a step picks from: the active ones, the others, or all (falling back to all). */
type Pool = 'active' | 'inactive' | 'any'

/** The `n`-th memory (modulo) of a pool of the scope as it is before the step. */
interface Pick {
  readonly pool: Pool
  readonly n: number
}

type Step =
  | { readonly op: 'remember' }
  | {
      readonly op: 'update'
      readonly pick: Pick
      readonly stale: boolean
      readonly variant: number
    }
  | { readonly op: 'forget'; readonly pick: Pick; readonly guarded: boolean }
  | {
      readonly op: 'restore'
      readonly pick: Pick
      /** 0–8: an existing version (modulo the current one); 9: one beyond it. */
      readonly toRevision: number | null
      readonly token: 'none' | 'fresh' | 'earlier'
    }
  | {
      readonly op: 'merge'
      /** `count` consecutive memories of the pool from `pick.n` (repeats when it is smaller). */
      readonly pick: Pick
      readonly count: number
      readonly stale: boolean
      readonly unknown: boolean
    }

const often = (n: number): fc.Arbitrary<boolean> => fc.nat({ max: n - 1 }).map((x) => x === 0)
const pickArb = (preferred: Pool): fc.Arbitrary<Pick> =>
  fc.record({
    pool: fc.oneof(
      { weight: 3, arbitrary: fc.constant(preferred) },
      { weight: 1, arbitrary: fc.constant<Pool>('any') },
    ),
    n: fc.nat({ max: 1000 }),
  })

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ op: 'remember' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('update' as const),
      pick: pickArb('active'),
      stale: often(5),
      variant: fc.nat({ max: VARIANTS.length - 1 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('forget' as const),
      pick: pickArb('active'),
      guarded: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('restore' as const),
      pick: pickArb('inactive'),
      toRevision: fc.option(fc.nat({ max: 9 }), { nil: null, freq: 2 }),
      token: fc.constantFrom('none' as const, 'fresh' as const, 'earlier' as const),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('merge' as const),
      pick: pickArb('active'),
      count: fc.constantFrom(1, 2, 2, 2, 2, 3, 3, 3),
      stale: often(8),
      unknown: often(10),
    }),
  },
)

/** The memories of one run's scope and the unique word each one's texts carry. */
class World {
  readonly scopeId = newScope('prop')
  readonly ids: string[] = []
  readonly words = new Map<string, string>()
  /** The last preview token seen per memory, for restores with an earlier token. */
  readonly tokens = new Map<string, string>()
  #next = 0

  constructor(readonly backend: MemoryBackend) {}

  newWord(): string {
    this.#next += 1
    return `qx${this.#next}`
  }

  add(memoryId: string, word: string): void {
    this.ids.push(memoryId)
    this.words.set(memoryId, word)
  }

  /** The memories of a pick's pool in `before`, in creation order (all of them if it is empty). */
  pool(pool: Pool, before: ReadonlyMap<string, Memory>): string[] {
    const inPool = (id: string): boolean => {
      const state = before.get(id)!.state
      return pool === 'any' || (pool === 'active') === (state === 'active')
    }
    const ids = this.ids.filter(inPool)
    return ids.length > 0 ? ids : this.ids
  }

  pick(pick: Pick, before: ReadonlyMap<string, Memory>): string {
    const ids = this.pool(pick.pool, before)
    return ids[pick.n % ids.length]!
  }

  async state(): Promise<{ head: number; memories: Map<string, Memory> }> {
    const { scopeId } = this
    const { headSeq } = await this.backend.changes({ scopeId, since: 0, limit: 1 })
    const { memories } = await this.backend.list({ scopeId, states: ALL_STATES, limit: 500 })
    return { head: headSeq, memories: new Map(memories.map((m) => [m.memoryRef.artifactId, m])) }
  }
}

/** What one step asks, which failures the rules demand or allow, and what success must show. */
interface Plan {
  readonly call: () => Promise<unknown>
  /** Non-empty: the request breaks a rule and must fail with one of these. */
  readonly must: readonly ErrorCode[]
  /** Failures that are acceptable without being required. */
  readonly may?: readonly ErrorCode[]
  /** Checks a success; returns whether it changed anything. */
  readonly then: (result: never) => Promise<boolean>
}

function planStep(w: World, step: Step, before: Map<string, Memory>): Plan {
  const { backend: b, scopeId } = w
  const current = (id: string): Memory => before.get(id)!
  switch (step.op) {
    case 'remember': {
      const word = w.newWord()
      return {
        call: () => b.remember({ scopeId, entries: [{ kind: 'fact', text: word }] }),
        must: [],
        then: async (res: RememberResult) => {
          expect(res.results.map((r) => [r.status, r.memory.state])).toEqual([
            ['created', 'active'],
          ])
          w.add(res.results[0]!.memory.memoryRef.artifactId, word)
          return true
        },
      }
    }
    case 'update': {
      const m = current(w.pick(step.pick, before))
      const { artifactId, revision: now } = m.memoryRef
      const revision = !step.stale ? now : now > 1 ? now - 1 : now + 1
      const text = `${w.words.get(artifactId)!} ${VARIANTS[step.variant]!}`
      const must: ErrorCode[] =
        m.state !== 'active' ? ['state_conflict'] : step.stale ? ['revision_conflict'] : []
      return {
        call: () => b.update({ scopeId, memoryRef: { artifactId, revision }, text }),
        must,
        then: async (res: UpdateResult) => {
          expect(res.status).toBe(m.text === text ? 'unchanged' : 'updated')
          expect(res.memory.memoryRef.revision).toBe(m.text === text ? now : now + 1)
          return res.status === 'updated'
        },
      }
    }
    case 'forget': {
      const m = current(w.pick(step.pick, before))
      const memoryId = m.memoryRef.artifactId
      const expectedRevision = step.guarded ? m.memoryRef.revision : undefined
      const must: ErrorCode[] =
        m.state === 'merged' || m.state === 'retired' ? ['state_conflict'] : []
      return {
        call: () => b.forget({ scopeId, memoryId, expectedRevision }),
        must,
        then: async (res: ForgetResult) => {
          expect(res.status).toBe(m.state === 'active' ? 'forgotten' : 'unchanged')
          expect(res.memory.state).toBe('forgotten')
          return res.status === 'forgotten'
        },
      }
    }
    case 'restore':
      return planRestore(w, step, current(w.pick(step.pick, before)))
    case 'merge':
      return planMerge(w, step, before)
  }
}

function planRestore(w: World, step: Step & { op: 'restore' }, m: Memory): Plan {
  const { backend: b, scopeId } = w
  const memoryId = m.memoryRef.artifactId
  const now = m.memoryRef.revision
  const toRevision =
    step.toRevision === null
      ? undefined
      : step.toRevision === 9
        ? now + 1
        : 1 + (step.toRevision % now)
  const must: ErrorCode[] = []
  if (m.state === 'retired') must.push('state_conflict')
  else if (toRevision !== undefined && toRevision > now) must.push('memory_not_found')
  const earlier = step.token === 'earlier' ? w.tokens.get(memoryId) : undefined
  let plan: RestorePreviewResult | undefined
  return {
    call: async () => {
      let previewToken = earlier
      if (step.token === 'fresh' && must.length === 0) {
        const head = (await w.state()).head
        plan = await b.restorePreview({ scopeId, memoryId, toRevision })
        expect((await w.state()).head).toBe(head)
        w.tokens.set(memoryId, plan.previewToken)
        previewToken = plan.previewToken
      }
      return b.restore({ scopeId, memoryId, toRevision, previewToken })
    },
    must,
    may: earlier === undefined ? [] : ['preview_stale'],
    then: async (res: RestoreResult) => {
      expect(res.memory.state).toBe('active')
      expect(res.memory.memoryRef.artifactId).toBe(memoryId)
      const old =
        toRevision === undefined
          ? undefined
          : await b.get({ scopeId, memoryId, revision: toRevision })
      const sameContent = old === undefined || old.memory.contentHash === m.contentHash
      expect(res.status).toBe(m.state === 'active' && sameContent ? 'unchanged' : 'restored')
      if (!sameContent) expect(res.memory.contentHash).toBe(old!.memory.contentHash)
      if (plan !== undefined) {
        const refs = (l: readonly { memoryId: string }[]) => l.map((r) => r.memoryId).sort()
        const ids = (l: readonly Memory[]) => l.map((x) => x.memoryRef.artifactId).sort()
        expect(ids(res.restored)).toEqual(refs(plan.plan.restore))
        expect(ids(res.retired)).toEqual(refs(plan.plan.retire))
        expect(res.memory.memoryRef.revision).toBe(plan.plan.newVersion?.version ?? now)
      }
      return res.status === 'restored'
    },
  }
}

function planMerge(w: World, step: Step & { op: 'merge' }, before: Map<string, Memory>): Plan {
  const { backend: b, scopeId } = w
  const pool = w.pool(step.pick.pool, before)
  const picked = Array.from({ length: step.count }, (_, i) =>
    before.get(pool[(step.pick.n + i) % pool.length]!)!,
  )
  const inputs = picked.map((m, i) => {
    if (i === 0 && step.unknown) return { artifactId: UNKNOWN_ID, revision: 1 }
    const now = m.memoryRef.revision
    return { artifactId: m.memoryRef.artifactId, revision: i === 0 && step.stale ? now + 1 : now }
  })
  const ids = inputs.map((r) => r.artifactId)
  const must = new Set<ErrorCode>()
  if (ids.length < 2 || new Set(ids).size < ids.length) must.add('invalid_request')
  else {
    inputs.forEach((ref, i) => {
      const m = before.get(ref.artifactId)
      if (m === undefined) must.add('memory_not_found')
      else if (m.state !== 'active') must.add('state_conflict')
      else if (ref.revision !== picked[i]!.memoryRef.revision) must.add('revision_conflict')
    })
  }
  const word = w.newWord()
  return {
    call: () => b.merge({ scopeId, inputs, kind: 'fact', text: word }),
    must: [...must],
    then: async (res: MergeResult) => {
      const resultId = res.memory.memoryRef.artifactId
      expect(res.memory).toMatchObject({ state: 'active', text: word, mergedInto: null })
      expect(res.memory.memoryRef.revision).toBe(1)
      expect(res.memory.artifacts.map((r) => `${r.artifactId}@${r.revision}`).sort()).toEqual(
        inputs.map((r) => `${r.artifactId}@${r.revision}`).sort(),
      )
      expect(res.inputs.every((m) => m.state === 'merged' && m.mergedInto === resultId)).toBe(true)
      w.add(resultId, word)
      return true
    },
  }
}

async function runSteps(backend: MemoryBackend, steps: readonly Step[]): Promise<void> {
  const w = new World(backend)
  for (const step of [{ op: 'remember' } as const, { op: 'remember' } as const, ...steps]) {
    const before = await w.state()
    const plan = planStep(w, step, before.memories)
    let result: unknown
    try {
      result = await plan.call()
    } catch (err) {
      if (!(err instanceof PowerContextError)) throw err
      expect([...plan.must, ...(plan.may ?? [])], `${step.op} failed: ${err.message}`).toContain(
        err.code,
      )
      expect(await w.state(), `a failed ${step.op} changed the scope`).toEqual(before)
      await expectScopeInvariants(w.backend, w.scopeId, w.words)
      continue
    }
    expect(plan.must, `${step.op} broke a rule but succeeded`).toEqual([])
    const changed = await plan.then(result as never)
    const head = (await w.state()).head
    if (changed) expect(head).toBeGreaterThan(before.head)
    else expect(head).toBe(before.head)
    await expectScopeInvariants(w.backend, w.scopeId, w.words)
  }
}

export function mergePropertiesArea(suite: ConformanceSuite): void {
  suite.area('merge and restore properties', (t) => {
    t.test(
      'random operation sequences keep every state invariant',
      async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(stepArb, { minLength: 10, maxLength: 40 }), (steps) =>
            runSteps(t.backend, steps),
          ),
          { seed: SEED, numRuns: RUNS },
        )
        // ≈ 45 s on MariaDB on 2 cores; a busy machine must not turn that into a failure.
      },
      240_000,
    )
  })
}
