/*
 * The machinery of the backend conformance suite (one conformance suite for every backend): named areas that each open one
 * backend, tests addressed by their path ('remember > …') so that a backend can skip one with a
 * reason, and the small helpers every area uses. Never collected on its own.
 */
import { randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Embedder } from '../../src/core/embedding.js'
import type { ErrorCode } from '../../src/core/errors.js'
import { PowerContextError } from '../../src/core/errors.js'
import type { Memory, MemoryState } from '../../src/core/memory-model.js'
import { MEMORY_STATES } from '../../src/core/memory-model.js'
import type { MemoryBackend, RememberEntry } from '../../src/storage/spi/memory-backend.js'
import type { Exec } from '../support/planted-secrets.js'

/** A backend as the suite drives it. */
export type BackendUnderTest = MemoryBackend & { close(): Promise<void> }

/** Tests a backend does not run, and why. Every named test must exist ("stale skips fail"). */
export interface SkipEntry {
  readonly reason: string
  /** Test paths without the backend name, e.g. `'search > hybrid > fuses with RRF'`. */
  readonly tests: readonly string[]
}

/** How a test wants its backend opened. */
export interface OpenOptions {
  /** Embedding model of the backend (vector projection); none when absent. */
  readonly embedder?: Embedder
  /** Reopen the database an earlier open with the same key created (a fresh one the first time). */
  readonly reuse?: string
}

export interface ConformanceOptions {
  readonly name: string
  /** Opens a backend; called once per area (closed after it) and by tests that need more. */
  readonly open: (options?: OpenOptions) => Promise<BackendUnderTest>
  readonly skip?: readonly SkipEntry[]
  /**
   * Overwrites the stored embedding hash of the memory's vector row behind the backend's back (a
   * fault completeness and the per-hit re-check must catch). Backends without it skip the tests
   * that need it, with a reason.
   */
  readonly alterEmbeddingHash?: (backend: BackendUnderTest, memoryId: string) => Promise<void>
  /**
   * Runs `plant` on a connection of the test's own to the backend's database, so it can write rows
   * as an older build stored them (e.g. a credential from before the secret gate). Backends
   * without it skip the tests that need it, with a reason.
   */
  readonly plantRows?: (
    backend: BackendUnderTest,
    plant: (exec: Exec) => Promise<void>,
  ) => Promise<void>
}

/** What an area's tests see. */
export interface Area {
  /** The backend opened for this area; only valid inside a test. */
  readonly backend: BackendUnderTest
  /** Opens another backend inside a test; it is closed after the area. */
  open(options?: OpenOptions): Promise<BackendUnderTest>
  /** `timeoutMs` overrides the suite's test timeout (long property tests). */
  test(title: string, body: () => Promise<void>, timeoutMs?: number): void
  group(title: string, body: () => void): void
  /** {@link ConformanceOptions.alterEmbeddingHash}; fails when the backend gives none. */
  alterEmbeddingHash(backend: BackendUnderTest, memoryId: string): Promise<void>
  /** {@link ConformanceOptions.plantRows}; fails when the backend gives none. */
  plantRows(backend: BackendUnderTest, plant: (exec: Exec) => Promise<void>): Promise<void>
}

/** Registers areas and tests, applying the skip list and remembering every test path. */
export class ConformanceSuite {
  readonly #open: (options?: OpenOptions) => Promise<BackendUnderTest>
  readonly #skips: readonly SkipEntry[]
  readonly #alter: ConformanceOptions['alterEmbeddingHash']
  readonly #plant: ConformanceOptions['plantRows']
  readonly #registered = new Set<string>()
  #path: readonly string[] = []

  constructor(options: ConformanceOptions) {
    this.#open = options.open
    this.#skips = options.skip ?? []
    this.#alter = options.alterEmbeddingHash
    this.#plant = options.plantRows
  }

  /** A top-level describe block with its own backend (opened in beforeAll, closed in afterAll). */
  area(title: string, body: (area: Area) => void, options?: OpenOptions): void {
    let opened: BackendUnderTest | undefined
    const extra: BackendUnderTest[] = []
    const area: Area = {
      get backend(): BackendUnderTest {
        if (opened === undefined) throw new Error(`area ${title}: backend is not open`)
        return opened
      },
      open: async (o) => {
        const backend = await this.#open(o)
        extra.push(backend)
        return backend
      },
      test: (t, fn, timeoutMs) => this.#test(t, fn, timeoutMs),
      group: (t, fn) => this.#group(t, fn),
      alterEmbeddingHash: async (backend, memoryId) => {
        if (this.#alter === undefined) throw new Error('this backend cannot alter a stored hash')
        await this.#alter(backend, memoryId)
      },
      plantRows: async (backend, plant) => {
        if (this.#plant === undefined) throw new Error('this backend cannot plant raw rows')
        await this.#plant(backend, plant)
      },
    }
    this.#group(title, () => {
      beforeAll(async () => {
        opened = await this.#open(options)
      })
      afterAll(async () => {
        for (const backend of extra.splice(0)) await backend.close()
        await opened?.close()
        opened = undefined
      })
      body(area)
      // every invariant must still hold after whatever mix of operations the area ran.
      this.#test('verify finds no problem after the area', async () => {
        const report = await area.backend.verify()
        expect(report.problems).toEqual([])
        expect(report.ok).toBe(true)
      })
    })
  }

  #group(title: string, body: () => void): void {
    // Vitest may run a nested describe callback after its parent's returns, so the path is
    // captured now and re-installed while the callback registers its tests.
    const path = [...this.#path, title]
    describe(title, () => {
      const outer = this.#path
      this.#path = path
      try {
        body()
      } finally {
        this.#path = outer
      }
    })
  }

  #test(title: string, body: () => Promise<void>, timeoutMs?: number): void {
    const path = [...this.#path, title].join(' > ')
    if (this.#registered.has(path)) throw new Error(`duplicate conformance test: ${path}`)
    this.#registered.add(path)
    const reasons = this.#skips.filter((s) => s.tests.includes(path)).map((s) => s.reason)
    if (reasons.length > 0) {
      it(title, (ctx) => ctx.skip(reasons.join('; ')))
    } else {
      it(title, body, timeoutMs)
    }
  }

  /** Problems of the skip list: entries without a reason or naming tests that do not exist. */
  skipProblems(): string[] {
    const problems: string[] = []
    for (const [i, entry] of this.#skips.entries()) {
      if (typeof entry.reason !== 'string' || entry.reason.trim() === '') {
        problems.push(`skip[${i}] has no reason`)
      }
      if (entry.tests.length === 0) problems.push(`skip[${i}] names no test`)
      for (const name of entry.tests) {
        if (!this.#registered.has(name)) problems.push(`skip[${i}] names unknown test: ${name}`)
      }
    }
    return problems
  }
}

/**
 * Awaits `promise` and asserts that it rejected with a `PowerContextError` of `code`.
 * @returns the error, for assertions on its details.
 */
export async function expectCode(
  promise: Promise<unknown>,
  code: ErrorCode,
): Promise<PowerContextError> {
  let failed = false
  let caught: unknown
  try {
    await promise
  } catch (err) {
    failed = true
    caught = err
  }
  if (!failed) expect.fail(`expected a PowerContextError ${code}, but the call succeeded`)
  expect(caught).toBeInstanceOf(PowerContextError)
  expect((caught as PowerContextError).code, (caught as Error).message).toBe(code)
  return caught as PowerContextError
}

/**
 * Awaits `promise` and asserts that it was refused as `invalid_request` for exactly one field, with
 * that field and message in the error's text and details.
 */
export async function expectInvalidField(
  promise: Promise<unknown>,
  field: string,
  message: string,
): Promise<void> {
  const err = await expectCode(promise, 'invalid_request')
  expect(err.details).toEqual({ errors: [{ field, message }] })
  expect(err.message).toBe(`${field}: ${message}`)
}

/** A fresh random scope id, so no test needs clean-up. */
export function newScope(prefix = 'conf'): string {
  return `${prefix}:${randomUUID()}`
}

/** Passes a deliberately ill-typed value through the SPI's static types. */
export function unsafe<T>(value: unknown): T {
  return value as T
}

export const ALL_STATES: readonly MemoryState[] = MEMORY_STATES

/** `mem_` + a 26-character Crockford ULID. */
export const MEMORY_ID_PATTERN = /^mem_[0-9A-HJKMNP-TV-Z]{26}$/

/** Remembers one entry that must be created, returning the new memory. */
export async function rememberOne(
  backend: MemoryBackend,
  scopeId: string,
  entry: RememberEntry,
): Promise<Memory> {
  const { results } = await backend.remember({ scopeId, entries: [entry] })
  expect(results).toHaveLength(1)
  expect(results[0]!.status).toBe('created')
  return results[0]!.memory
}

/** Captures `content` sources with the given ids in the scope. */
export async function captureSources(
  backend: MemoryBackend,
  scopeId: string,
  ...sourceIds: string[]
): Promise<void> {
  for (const sourceId of sourceIds) {
    await backend.captureSource({ scopeId, sourceId, content: `evidence ${sourceId}` })
  }
}

/** A content source ref. */
export function src(sourceId: string): { name: 'content'; sourceId: string } {
  return { name: 'content', sourceId }
}

/** Asserts that a scope holds no memory and no change-log row. */
export async function expectEmptyScope(backend: MemoryBackend, scopeId: string): Promise<void> {
  const changes = await backend.changes({ scopeId, since: 0 })
  expect(changes.changes).toEqual([])
  expect(changes.headSeq).toBe(0)
  expect((await backend.list({ scopeId, states: ALL_STATES })).memories).toEqual([])
}

/** Everything readable about one memory and its scope, to prove a failed write changed nothing. */
export async function snapshot(
  backend: MemoryBackend,
  scopeId: string,
  memoryId: string,
): Promise<unknown> {
  return {
    history: await backend.history({ scopeId, memoryId }),
    changes: await backend.changes({ scopeId, since: 0 }),
    list: await backend.list({ scopeId, states: ALL_STATES }),
  }
}

/** Ids of the hits of a search, in rank order. */
export async function searchIds(
  backend: MemoryBackend,
  scopeId: string,
  query: string,
  options: { limit?: number; kinds?: string[] } = {},
): Promise<string[]> {
  const { hits } = await backend.search({ scopeId, query, ...options })
  return hits.map((h) => h.memoryRef.artifactId)
}
