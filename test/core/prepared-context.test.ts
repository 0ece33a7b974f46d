import { readFileSync } from 'node:fs'

import { describe, expect, it } from 'vitest'

import type { PreparedCandidate } from '../../src/core/prepared-context.js'
import {
  PREPARE_ITEM_MAX_BYTES,
  PREPARE_MAX_ITEMS,
  PREPARE_MIN_TRUNCATED_BYTES,
  PREPARED_CONTEXT_BEGIN,
  PREPARED_CONTEXT_END,
  PREPARED_CONTEXT_TRUST_POLICY,
  prepareItems,
  renderPreparedContext,
  scopeLine,
  truncateUtf8,
} from '../../src/core/prepared-context.js'

interface GoldenCase {
  readonly max_bytes: number
  readonly candidates: { artifact_id: string; revision: number; text: string }[]
  readonly expected: { status: string; content: string | null; content_bytes: number }
}
const GOLDEN = JSON.parse(
  readFileSync(new URL('../fixtures/prepared-context-golden.json', import.meta.url), 'utf8'),
) as { cases: GoldenCase[] }

const bytes = (s: string) => Buffer.byteLength(s, 'utf8')
const cand = (n: number, text: string, scopeId?: string): PreparedCandidate => ({
  memoryRef: { artifactId: `mem_${String(n).padStart(26, '0')}`, revision: 1 },
  text,
  ...(scopeId === undefined ? {} : { scopeId }),
})
/** The items as the JSON line carries them. */
function itemsOf(content: string | null): Record<string, unknown>[] {
  const lines = (content ?? '').split('\n')
  const begin = lines.indexOf(PREPARED_CONTEXT_BEGIN)
  expect(lines[begin + 2]).toBe(PREPARED_CONTEXT_END)
  const json = JSON.parse(lines[begin + 1]!) as { trust: string; items: Record<string, unknown>[] }
  expect(json.trust).toBe('untrusted_history')
  return json.items
}

describe('prepared context rendering', () => {
  it('matches the Python reference byte for byte on recorded cases (truncation included)', () => {
    expect(GOLDEN.cases.length).toBeGreaterThan(20)
    expect(GOLDEN.cases.some((c) => c.expected.content?.includes('"truncated":true'))).toBe(true)
    for (const c of GOLDEN.cases) {
      const r = prepareItems(
        c.candidates.map((x) => ({
          memoryRef: { artifactId: x.artifact_id, revision: x.revision },
          text: x.text,
        })),
        c.max_bytes,
      )
      expect({ status: r.status, content: r.content, content_bytes: r.contentBytes }).toEqual(
        c.expected,
      )
    }
  })

  it('is the trust paragraph, a blank line, BEGIN, one compact JSON line, END', () => {
    const r = prepareItems([cand(1, 'Uses pnpm, not npm.')], 8000)
    expect(r.status).toBe('ready')
    expect(r.content).toBe(
      `${PREPARED_CONTEXT_TRUST_POLICY}\n\n${PREPARED_CONTEXT_BEGIN}\n` +
        '{"trust":"untrusted_history","items":[{"citation":{"artifact_id":"mem_00000000000000000000000001","revision":1},"content":"Uses pnpm, not npm.","truncated":false}]}' +
        `\n${PREPARED_CONTEXT_END}`,
    )
    expect(r.contentBytes).toBe(bytes(r.content!))
    expect(r.items).toEqual([
      {
        memoryRef: cand(1, '').memoryRef,
        scopeId: undefined,
        content: 'Uses pnpm, not npm.',
        truncated: false,
      },
    ])
  })

  it('for a scope, first names it in one line, then renders the reference format unchanged', () => {
    const scope = `local:${'a'.repeat(64)}`
    const r = prepareItems([cand(1, 'Uses pnpm, not npm.')], 8000, scope)
    const plain = prepareItems([cand(1, 'Uses pnpm, not npm.')], 8000)
    expect(scopeLine(scope)).toBe(
      `Project memory of scope ${scope} (the scope_id of the PowerContext memory tools).`,
    )
    expect(r.content).toBe(`${scopeLine(scope)}\n${plain.content}`)
    expect(r.contentBytes).toBe(bytes(r.content!))
  })

  it('counts the scope line against the budget: an item fits to the byte, one byte less cuts', () => {
    const scope = 'git:github.com/acme/api'
    const text = 'b'.repeat(300)
    const item = { ...cand(1, ''), scopeId: undefined, content: text, truncated: false }
    const exact = bytes(renderPreparedContext([item], scope))
    expect(exact).toBe(bytes(renderPreparedContext([item])) + bytes(scopeLine(scope)) + 1)
    const whole = prepareItems([cand(1, text)], exact, scope)
    expect(whole.items.map((i) => i.truncated)).toEqual([false])
    expect(whole.contentBytes).toBe(exact)
    const cut = prepareItems([cand(1, text)], exact - 1, scope)
    expect(cut.items.map((i) => i.truncated)).toEqual([true])
    expect(cut.contentBytes).toBeLessThanOrEqual(exact - 1)
  })

  it('nothing to show is empty: content null, 0 bytes', () => {
    expect(prepareItems([], 8000)).toEqual({
      status: 'empty',
      content: null,
      contentBytes: 0,
      items: [],
    })
    expect(prepareItems([cand(1, '   ')], 8000).status).toBe('empty')
  })

  it('keeps at most 8 items, the first 8 with text, in order', () => {
    const r = prepareItems(
      Array.from({ length: 12 }, (_, i) => cand(i, `memory number ${i}`)),
      32_768,
    )
    expect(r.items.map((i) => i.content)).toEqual(
      Array.from({ length: PREPARE_MAX_ITEMS }, (_, i) => `memory number ${i}`),
    )
  })

  it('caps each item at 2000 UTF-8 bytes with … and marks it truncated', () => {
    const r = prepareItems([cand(1, 'é'.repeat(3000))], 32_768)
    const [item] = itemsOf(r.content)
    expect(item!['truncated']).toBe(true)
    const content = item!['content'] as string
    expect(content.endsWith('…')).toBe(true)
    expect(bytes(content)).toBeLessThanOrEqual(PREPARE_ITEM_MAX_BYTES)
    // 1997 bytes of prefix cut back to a whole 'é' (2 bytes): 998 of them, then the ellipsis.
    expect(content).toBe(`${'é'.repeat(998)}…`)
  })

  it('cuts an item that overflows the budget to the longest prefix that fits, never under 64 bytes', () => {
    const long = 'x'.repeat(1500)
    const r = prepareItems([cand(1, 'short first item'), cand(2, long)], 1000)
    expect(r.contentBytes).toBeLessThanOrEqual(1000)
    const items = itemsOf(r.content)
    expect(items).toHaveLength(2)
    const cut = items[1]!['content'] as string
    expect(items[1]!['truncated']).toBe(true)
    expect(bytes(cut)).toBeGreaterThanOrEqual(PREPARE_MIN_TRUNCATED_BYTES)
    // One more byte of prefix would not fit.
    const longer = renderPreparedContext([
      r.items[0]!,
      { ...r.items[1]!, content: `${'x'.repeat(bytes(cut) - 3 + 1)}…` },
    ])
    expect(bytes(longer)).toBeGreaterThan(1000)
  })

  it('leaves out an item that cannot keep 64 bytes, and a later short one may still fit', () => {
    const filler = 'f'.repeat(1900)
    const first = prepareItems([cand(1, filler)], 2600)
    const room = 2600 - first.contentBytes
    // An item whose JSON overhead alone leaves less than 64 bytes of content is dropped…
    const tooLong = 'y'.repeat(500)
    const r = prepareItems(
      [cand(1, filler), cand(2, tooLong), cand(3, 'ok')],
      first.contentBytes + 120,
    )
    expect(room).toBeGreaterThan(120)
    expect(r.items.map((i) => i.content)).toEqual([filler, 'ok'])
  })

  /** The bytes of the rendering of one (truncated) item of `content` for candidate `n`. */
  const renderBytes = (n: number, content: string, truncated = true) =>
    bytes(renderPreparedContext([{ ...cand(n, ''), scopeId: undefined, content, truncated }]))

  it('keeps a first item whole when it fills the budget to the byte', () => {
    const text = 'a'.repeat(300)
    const exact = renderBytes(1, text, false)
    const r = prepareItems([cand(1, text)], exact)
    expect(r.items.map((i) => [i.content, i.truncated])).toEqual([[text, false]])
    expect(r.contentBytes).toBe(exact)
  })

  it('cuts with a budget below the text’s own size, even when escapes make the whole longer', () => {
    // The whole item misses by one byte; a cut at the text's full size would fit (the three
    // escaped quotes give way to a 3-byte …), but the cut keeps at most size − 1 bytes' budget.
    const text = `${'x'.repeat(100)}"""`
    const r = prepareItems([cand(1, text)], renderBytes(1, text, false) - 1)
    expect(r.items.map((i) => [i.content, i.truncated])).toEqual([[`${'x'.repeat(99)}…`, true]])
  })

  it('a cut keeps at least 64 bytes, counted after backing off to a character boundary', () => {
    // Room for 64 bytes of content: 61 bytes of x and the ellipsis.
    const x = prepareItems([cand(1, 'x'.repeat(200))], renderBytes(1, 'x'.repeat(64)))
    expect(x.items.map((i) => i.content)).toEqual([`${'x'.repeat(61)}…`])
    // Room for 66 bytes, but 4-byte characters cut to 60 + 3 = 63 or 64 + 3 = 67: left out.
    const emoji = prepareItems([cand(1, '😀'.repeat(50))], renderBytes(1, 'x'.repeat(66)))
    expect(emoji.status).toBe('empty')
  })

  it('never cuts inside a UTF-8 character', () => {
    expect(truncateUtf8('aé', 5)).toBe('a…')
    expect(truncateUtf8('a😀b', 7)).toBe('a…')
    expect(truncateUtf8('a😀b', 8)).toBe('a😀…')
    expect(truncateUtf8('中文字', 9)).toBe('中文…')
    for (let n = 3; n < 40; n++)
      expect(bytes(truncateUtf8('é中😀'.repeat(5), n))).toBeLessThanOrEqual(n)
  })

  it('names the scope of an item from an extra scope, after the reference fields', () => {
    const r = prepareItems(
      [cand(1, 'project fact'), cand(2, 'personal preference', 'user:alice')],
      8000,
    )
    expect(Object.keys(itemsOf(r.content)[1]!)).toEqual([
      'citation',
      'content',
      'truncated',
      'scope_id',
    ])
    expect(itemsOf(r.content)[0]).not.toHaveProperty('scope_id')
    expect(r.items[1]!.scopeId).toBe('user:alice')
  })

  it('escapes text so that the JSON line stays one line', () => {
    const r = prepareItems([cand(1, 'line one\nline two "quoted" \\ \u0001 \u2028')], 8000)
    const lines = r.content!.split('\n')
    expect(lines).toHaveLength(6)
    expect(itemsOf(r.content)[0]!['content']).toBe('line one\nline two "quoted" \\ \u0001 \u2028')
  })

  it('stays within every budget from 512 to 32768 bytes', () => {
    const candidates = Array.from({ length: 10 }, (_, i) =>
      cand(i, `${i} ${'word é 中 '.repeat(300)}`),
    )
    const longest = `local:${'f'.repeat(122)}`
    for (const max of [512, 513, 700, 1000, 2048, 4096, 8000, 12_345, 32_768]) {
      const r = prepareItems(candidates, max)
      // At 512 the paragraph and markers leave no room for a 64-byte cut (as in the reference).
      expect(r.status).toBe(max < 600 ? 'empty' : 'ready')
      expect(r.contentBytes).toBe(r.content === null ? 0 : bytes(r.content))
      expect(r.contentBytes).toBeLessThanOrEqual(max)
      // The longest scope id's line too.
      const scoped = prepareItems(candidates, max, longest)
      expect(scoped.status).toBe(max < 800 ? 'empty' : 'ready')
      expect(scoped.contentBytes).toBe(scoped.content === null ? 0 : bytes(scoped.content))
      expect(scoped.contentBytes).toBeLessThanOrEqual(max)
    }
  })
})
