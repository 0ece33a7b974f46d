/*
 * Conformance: bad input. Every case is a typed `invalid_request` and writes nothing (checked
 * through changes/list/history, never through storage internals).
 */
import { expect } from 'vitest'

import type { Memory } from '../../src/core/memory-model.js'
import type { RememberEntry } from '../../src/storage/spi/memory-backend.js'
import type { Area, ConformanceSuite } from './harness.case.js'
import {
  expectCode,
  expectEmptyScope,
  newScope,
  rememberOne,
  snapshot,
  unsafe,
} from './harness.case.js'

const invalid = (promise: Promise<unknown>) => expectCode(promise, 'invalid_request')

/** Texts that must be rejected wherever memory text is accepted. */
const BAD_TEXTS: readonly unknown[] = [
  'é'.repeat(4096) + 'a',
  '中'.repeat(2731),
  '😀'.repeat(2048) + 'a',
  'x'.repeat(8193),
  'nul \u0000 inside',
  'lone high \ud800 surrogate',
  'lone low \udc00',
  'trailing high \ud83d',
  '',
  '   ',
  '\u3000\n\t',
  5,
  null,
]

const BAD_SCOPES: readonly unknown[] = ['', 's'.repeat(129), 'with space', 'prøj', 'tab\there', 5]
const BAD_MEMORY_IDS: readonly unknown[] = ['', 'mem x', 'm'.repeat(129), 'mém_01', 5, null]
const BAD_REVISIONS: readonly unknown[] = [0, -1, 1.5, '1', Number.NaN, Number.POSITIVE_INFINITY]
const BAD_TIMES: readonly unknown[] = [
  '2024-13-01T00:00:00Z',
  '2024-01-01T00:00:00',
  '2024-02-30T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-01-01T24:00:00Z',
  '2024-01-01T00:60:00Z',
  '2024-01-01',
  'yesterday',
  '',
  1704067200000,
]

/** One memory in a fresh scope, and a check that nothing about it changed. */
async function fixture(t: Area): Promise<{
  scopeId: string
  memory: Memory
  unchanged: () => Promise<void>
}> {
  const scopeId = newScope()
  const memory = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'stable memory' })
  const before = await snapshot(t.backend, scopeId, memory.memoryRef.artifactId)
  return {
    scopeId,
    memory,
    unchanged: async () =>
      expect(await snapshot(t.backend, scopeId, memory.memoryRef.artifactId)).toEqual(before),
  }
}

export function badInputArea(suite: ConformanceSuite): void {
  suite.area('bad input', (t) => {
    t.test('text over 8192 UTF-8 bytes, NUL, lone surrogates or blank is rejected', async () => {
      const scopeId = newScope()
      for (const text of BAD_TEXTS) {
        await invalid(
          t.backend.remember({ scopeId, entries: [{ kind: 'fact', text: unsafe(text) }] }),
        )
      }
      await expectEmptyScope(t.backend, scopeId)
      const f = await fixture(t)
      for (const text of BAD_TEXTS) {
        await invalid(
          t.backend.update({
            scopeId: f.scopeId,
            memoryRef: f.memory.memoryRef,
            text: unsafe(text),
          }),
        )
      }
      await f.unchanged()
    })

    t.test('text of exactly 8192 UTF-8 bytes after NFC and trimming is accepted', async () => {
      const scopeId = newScope()
      const texts = [
        'é'.repeat(4096),
        '中'.repeat(2730) + 'ab',
        '😀'.repeat(2048),
        `  \n${'y'.repeat(8192)}\t `,
        'e\u0301'.repeat(4095) + 'zz',
      ]
      const { results } = await t.backend.remember({
        scopeId,
        entries: texts.map((text) => ({ kind: 'fact', text })),
      })
      expect(results.map((r) => r.status)).toEqual(Array(texts.length).fill('created'))
      const encoder = new TextEncoder()
      expect(results.map((r) => encoder.encode(r.memory.text).length)).toEqual(
        Array(texts.length).fill(8192),
      )
    })

    t.test('a reason over 512 code points is rejected; 512 are accepted', async () => {
      const long = 'r'.repeat(513)
      const scopeId = newScope()
      await invalid(
        t.backend.remember({ scopeId, entries: [{ kind: 'fact', text: 'why', reason: long }] }),
      )
      await invalid(
        t.backend.remember({
          scopeId,
          entries: [{ kind: 'fact', text: 'why', reason: unsafe(5) }],
        }),
      )
      await expectEmptyScope(t.backend, scopeId)
      const f = await fixture(t)
      const memoryId = f.memory.memoryRef.artifactId
      const s = f.scopeId
      await invalid(
        t.backend.update({ scopeId: s, memoryRef: f.memory.memoryRef, text: 'new', reason: long }),
      )
      await invalid(t.backend.forget({ scopeId: s, memoryId, reason: long }))
      await invalid(t.backend.restore({ scopeId: s, memoryId, reason: long }))
      await f.unchanged()
      const reason = '😀'.repeat(512)
      const ok = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'why', reason })
      expect(ok.reason).toBe(reason)
      const forgot = await t.backend.forget({ scopeId: s, memoryId, reason: 'x'.repeat(512) })
      expect(forgot.status).toBe('forgotten')
    })

    t.test('invalid scope ids are rejected by every operation', async () => {
      const memoryId = 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV'
      for (const bad of BAD_SCOPES) {
        const scopeId = unsafe<string>(bad)
        await invalid(t.backend.remember({ scopeId, entries: [{ kind: 'fact', text: 'x' }] }))
        await invalid(
          t.backend.update({ scopeId, memoryRef: { artifactId: memoryId, revision: 1 } }),
        )
        await invalid(t.backend.forget({ scopeId, memoryId }))
        await invalid(t.backend.restore({ scopeId, memoryId }))
        await invalid(t.backend.get({ scopeId, memoryId }))
        await invalid(t.backend.history({ scopeId, memoryId }))
        await invalid(t.backend.list({ scopeId }))
        await invalid(t.backend.search({ scopeId, query: 'x' }))
        await invalid(t.backend.changes({ scopeId, since: 0 }))
        await invalid(t.backend.captureSource({ scopeId, sourceId: 's', content: 'x' }))
      }
      const longest = `s${newScope('').replaceAll('-', '')}`.padEnd(128, 'z')
      expect(longest).toHaveLength(128)
      await rememberOne(t.backend, longest, { kind: 'fact', text: 'longest scope id' })
    })

    t.test('invalid memory ids are rejected', async () => {
      const f = await fixture(t)
      const s = f.scopeId
      for (const bad of BAD_MEMORY_IDS) {
        const memoryId = unsafe<string>(bad)
        await invalid(
          t.backend.update({
            scopeId: s,
            memoryRef: { artifactId: memoryId, revision: 1 },
            text: 'y',
          }),
        )
        await invalid(t.backend.forget({ scopeId: s, memoryId }))
        await invalid(t.backend.restore({ scopeId: s, memoryId }))
        await invalid(t.backend.get({ scopeId: s, memoryId }))
        await invalid(t.backend.history({ scopeId: s, memoryId }))
        await invalid(t.backend.list({ scopeId: s, after: memoryId }))
      }
      await invalid(t.backend.update({ scopeId: s, memoryRef: unsafe(null), text: 'y' }))
      await invalid(t.backend.update({ scopeId: s, memoryRef: unsafe('mem_x'), text: 'y' }))
      await f.unchanged()
    })

    t.test('revisions must be integers ≥ 1', async () => {
      const f = await fixture(t)
      const s = f.scopeId
      const memoryId = f.memory.memoryRef.artifactId
      for (const bad of BAD_REVISIONS) {
        const revision = unsafe<number>(bad)
        await invalid(
          t.backend.update({
            scopeId: s,
            memoryRef: { artifactId: memoryId, revision },
            text: 'z',
          }),
        )
        await invalid(t.backend.forget({ scopeId: s, memoryId, expectedRevision: revision }))
        await invalid(t.backend.restore({ scopeId: s, memoryId, toRevision: revision }))
        await invalid(t.backend.get({ scopeId: s, memoryId, revision }))
      }
      await f.unchanged()
    })

    t.test('observedAt must be a valid RFC 3339 time with a zone', async () => {
      const scopeId = newScope()
      for (const bad of BAD_TIMES) {
        const entry: RememberEntry = { kind: 'fact', text: 'timed', observedAt: unsafe(bad) }
        await invalid(t.backend.remember({ scopeId, entries: [entry] }))
      }
      await expectEmptyScope(t.backend, scopeId)
      const f = await fixture(t)
      for (const bad of BAD_TIMES) {
        await invalid(
          t.backend.update({
            scopeId: f.scopeId,
            memoryRef: f.memory.memoryRef,
            observedAt: unsafe(bad),
          }),
        )
      }
      await f.unchanged()
      const leap = await rememberOne(t.backend, scopeId, {
        kind: 'fact',
        text: 'leap day',
        observedAt: '2024-02-29T23:59:59Z',
      })
      expect(leap.observedAt).toBe('2024-02-29T23:59:59.000Z')
    })

    t.test('entries must be an array of objects; one bad entry rejects the batch', async () => {
      const scopeId = newScope()
      for (const entries of ['x', {}, null, undefined, [null], ['text'], [5]]) {
        await invalid(t.backend.remember({ scopeId, entries: unsafe(entries) }))
      }
      await invalid(
        t.backend.remember({
          scopeId,
          entries: [
            { kind: 'fact', text: 'fine entry' },
            { kind: 'fact', text: '' },
          ],
        }),
      )
      await expectEmptyScope(t.backend, scopeId)
    })

    t.test('fields of the wrong type or shape are rejected', async () => {
      const scopeId = newScope()
      await t.backend.captureSource({ scopeId, sourceId: 'ok', content: 'evidence' })
      const entries: unknown[] = [
        { kind: 5, text: 'typed' },
        { kind: '', text: 'typed' },
        { kind: '   ', text: 'typed' },
        { text: 'no kind' },
        { kind: 'fact' },
        { kind: 'fact', text: 'typed', sources: 'ok' },
        { kind: 'fact', text: 'typed', sources: [{ name: 'file', sourceId: 'ok' }] },
        { kind: 'fact', text: 'typed', sources: [{ name: 'content', sourceId: 'bad\u0007id' }] },
        { kind: 'fact', text: 'typed', sources: [{ name: 'content' }] },
        { kind: 'fact', text: 'typed', sources: [null] },
      ]
      for (const entry of entries) {
        await invalid(t.backend.remember({ scopeId, entries: [unsafe(entry)] }))
      }
      const f = await fixture(t)
      const ref = f.memory.memoryRef
      const updates: unknown[] = [
        { kind: 5 },
        { kind: '' },
        { text: 5 },
        { sources: 'ok' },
        { reason: 5 },
      ]
      for (const change of updates) {
        await invalid(
          t.backend.update({ scopeId: f.scopeId, memoryRef: ref, ...(change as object) }),
        )
      }
      await f.unchanged()
      const counts = await t.backend.changes({ scopeId, since: 0 })
      expect(counts.headSeq).toBe(0)
    })

    t.test('a bad entry is named by its index and field in the error', async () => {
      const scopeId = newScope()
      const good = { kind: 'fact', text: 'a fine entry' }
      const cases: [unknown, string, string][] = [
        ['text', 'entries[1]', 'must be an object'],
        [5, 'entries[1]', 'must be an object'],
        [{ kind: 5, text: 'typed' }, 'entries[1].kind', 'must be a string'],
        [{ kind: 'fact', text: '' }, 'entries[1].text', 'must not be blank'],
        [{ kind: 'fact', text: 'typed', sources: 'ok' }, 'entries[1].sources', 'must be an array'],
        [{ kind: 'fact', text: 'typed', observedAt: 'yesterday' }, 'entries[1].observed_at', ''],
        [{ kind: 'fact', text: 'typed', reason: 5 }, 'entries[1].reason', 'must be a string'],
      ]
      for (const [entry, field, message] of cases) {
        const err = await invalid(t.backend.remember({ scopeId, entries: [good, unsafe(entry)] }))
        const errors = err.details?.['errors'] as { field: string; message: string }[]
        expect(errors.map((e) => e.field)).toEqual([field])
        expect(errors[0]!.message).toContain(message)
        expect(err.message.startsWith(`${field}: `)).toBe(true)
      }
      await expectEmptyScope(t.backend, scopeId)
    })

    t.test('list and search filters and queries are validated', async () => {
      const scopeId = newScope()
      for (const states of [[], ['deleted'], 'active', [5]]) {
        await invalid(t.backend.list({ scopeId, states: unsafe(states) }))
      }
      for (const kinds of [[], [5], 'fact', ['']]) {
        await invalid(t.backend.list({ scopeId, kinds: unsafe(kinds) }))
        await invalid(t.backend.search({ scopeId, query: 'x', kinds: unsafe(kinds) }))
      }
      for (const query of [5, null, 'q'.repeat(8193), 'nul \u0000', 'bad \ud800']) {
        await invalid(t.backend.search({ scopeId, query: unsafe(query) }))
      }
    })
  })
}
