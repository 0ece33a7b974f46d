/**
 * Members kept as stored JSON text (src/core/json-text.ts): the literal at the head of a canonical
 * payload is found exactly, whatever escapes it holds; a kept member reads as its parsed value;
 * and an answer holding one stringifies to the same text as with the value, without parsing it.
 */
import { describe, expect, it } from 'vitest'

import { canonicalJson } from '../../src/core/canonical.js'
import {
  copyMember,
  jsonTextOf,
  leadingStringLiteral,
  stringifyPieces,
  withJsonText,
} from '../../src/core/json-text.js'

const PREFIX = '{"content":'
const bytes = (text: string) => Buffer.from(text)
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : Buffer.from(b).toString()

/** A deterministic pseudo-random string over characters JSON escapes and multi-byte ones. */
function randomText(seed: number, length: number): string {
  const alphabet = ['a', ' ', '"', '\\', '\n', '\t', '\u0001', 'é', '会', '🎉', '/', '\u2028']
  let out = ''
  let x = seed
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648
    out += alphabet[x % alphabet.length]
  }
  return out
}

describe('leadingStringLiteral', () => {
  it('finds the content literal of canonical payloads exactly', () => {
    const contents = [
      '',
      'plain',
      'ends with a backslash \\',
      'ends with two \\\\',
      'a \\" b',
      '"',
      '\\"',
      ...Array.from({ length: 200 }, (_, i) => randomText(i + 1, i * 7)),
    ]
    for (const content of contents) {
      const payload = bytes(
        canonicalJson({ content, media_type: 'text/plain', metadata: { q: '"' } }),
      )
      const found = leadingStringLiteral(payload, PREFIX)
      expect(text(found?.text)).toBe(JSON.stringify(content))
      expect(payload.toString('utf8', found!.end)).toBe(
        ',"media_type":"text/plain","metadata":{"q":"\\""}}',
      )
    }
  })

  it('finds nothing when the payload does not begin with the member', () => {
    expect(leadingStringLiteral(bytes('{"content": "spaced"}'), PREFIX)).toBeUndefined()
    expect(leadingStringLiteral(bytes('{"content":1}'), PREFIX)).toBeUndefined()
    expect(leadingStringLiteral(bytes('{"content":"unterminated'), PREFIX)).toBeUndefined()
  })
})

describe('members kept as JSON text', () => {
  it('read as their parsed value and stringify as it', () => {
    const content = randomText(7, 5000)
    const view = withJsonText(
      { id: 1, content: '', after: true },
      'content',
      bytes(JSON.stringify(content)),
    )
    expect(view.content).toBe(content)
    expect(Object.keys(view)).toEqual(['id', 'content', 'after'])
    expect(JSON.stringify(view)).toBe(JSON.stringify({ id: 1, content, after: true }))
    const copy = copyMember(view, { content: '', more: 2 }, 'content')
    expect(text(jsonTextOf(copy, 'content'))).toBe(JSON.stringify(content))
    expect(copyMember({ content: 'x' }, { content: '' }, 'content')).toEqual({ content: 'x' })
  })

  it('are copied into an answer as stored, never parsed', () => {
    // Not valid JSON: parsing it would throw, so a passing run shows it was not parsed.
    const unparsable = '"kept \\q as stored"'
    const answer = {
      sources: [
        withJsonText({ a: 1, content: '', b: '"x"' }, 'content', bytes(unparsable)),
        { a: 2, content: 'plain' },
        withJsonText({ content: '' }, 'content', bytes('"second"')),
      ],
      remaining: ['s'],
    }
    const pieces = stringifyPieces(answer)
    expect(pieces.map((p) => (typeof p === 'string' ? p : text(p))).join('')).toBe(
      '{"sources":[{"a":1,"content":"kept \\q as stored","b":"\\"x\\""},' +
        '{"a":2,"content":"plain"},{"content":"second"}],"remaining":["s"]}',
    )
    expect(pieces.filter((p) => typeof p !== 'string').map(text)).toEqual([unparsable, '"second"'])
  })

  it('stringify exactly as JSON.stringify when the text is canonical', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const content = randomText(seed, 300 + seed * 31)
      const kept = withJsonText(
        { n: seed, content: '', m: { k: 'v' } },
        'content',
        bytes(JSON.stringify(content)),
      )
      const value = { sources: [kept, { n: 0 }], next: null }
      const pieces = stringifyPieces(value)
      expect(pieces.map((p) => (typeof p === 'string' ? p : text(p))).join('')).toBe(
        JSON.stringify({ sources: [{ n: seed, content, m: { k: 'v' } }, { n: 0 }], next: null }),
      )
    }
  })
})
