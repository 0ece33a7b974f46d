/*
 * A request body parsed in slices is the value one `JSON.parse` gives: the same members in the
 * same order, a repeated key's last value at its first place, `__proto__` as an own member, and
 * every text `JSON.parse` refuses is refused. Runs are made tiny here (2–5 values) so every
 * container is cut, large ones inside runs included. A body of 50,000 members yields between runs.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import { timeSlicer } from '../../src/core/event-loop-slices.js'
import { parseJsonSliced } from '../../src/wire/sliced-json.js'

const noPause = async () => {}

/** Both parses of `text`: the value, or 'throws'. */
async function both(text: string, group: number): Promise<[unknown, unknown]> {
  let direct: unknown
  try {
    direct = JSON.parse(text)
  } catch {
    direct = 'throws'
  }
  const sliced = await parseJsonSliced(text, noPause, group).catch(() => 'throws')
  return [direct, sliced]
}

/** A value's members in order, every depth (what `toEqual` does not compare). */
const shape = (v: unknown): unknown =>
  typeof v !== 'object' || v === null
    ? v
    : Array.isArray(v)
      ? v.map(shape)
      : Object.entries(v).map(([k, x]) => [k, shape(x)])

describe('parseJsonSliced', () => {
  it('gives what JSON.parse gives, member order included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 5 }),
        fc.integer({ min: 2, max: 5 }),
        fc.boolean(),
        async (value, group, spaced) => {
          const text = JSON.stringify(value, null, spaced ? 1 : undefined)
          const [direct, sliced] = await both(text, group)
          expect(shape(sliced)).toEqual(shape(direct))
        },
      ),
      { seed: 29, numRuns: 400 },
    )
  })

  it('refuses what JSON.parse refuses (one character dropped, doubled or replaced)', async () => {
    const texts = fc
      .jsonValue({ maxDepth: 4 })
      .map((v) => JSON.stringify(v))
      .filter((t) => t.length > 8)
    await fc.assert(
      fc.asyncProperty(
        texts,
        fc.nat(),
        fc.constantFrom('drop', 'double', ',', ':', ']', '}', '[', '{', '"', ' x', '\u00a0'),
        fc.integer({ min: 2, max: 4 }),
        async (text, at, edit, group) => {
          const i = at % text.length
          const changed =
            edit === 'drop'
              ? text.slice(0, i) + text.slice(i + 1)
              : edit === 'double'
                ? text.slice(0, i) + text[i] + text.slice(i)
                : text.slice(0, i) + edit + text.slice(i + 1)
          const [direct, sliced] = await both(changed, group)
          expect(shape(sliced)).toEqual(shape(direct))
        },
      ),
      { seed: 29, numRuns: 1500 },
    )
  })

  it('keeps __proto__ as an own member and a repeated key at its first place', async () => {
    const text = `{"a":1,"__proto__":{"x":1},"b":[1,2,3,4,5,6],"2":0,"a":7,"c":{"d":[1,2,3,4,5]}}`
    const value = (await parseJsonSliced(text, noPause, 2)) as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(Object.keys(JSON.parse(text) as object))
    expect(value['a']).toBe(7)
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ x: 1 })
    for (const bad of [
      '{"a":1} {}',
      '{"a":[1,2,3,4,5,6]]',
      ' x{"a":[1,2,3,4,5]}',
      '{"a":[1,,2,3,4]}',
    ])
      await expect(parseJsonSliced(bad, noPause, 2)).rejects.toThrow(SyntaxError)
  })

  it('yields between runs of a body of 50,000 members', async () => {
    const text = JSON.stringify({
      metadata: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, `v ${i}`])),
    })
    let turns = 0
    const ticker = setInterval(() => (turns += 1), 0)
    const value = await parseJsonSliced(text, timeSlicer(0))
    clearInterval(ticker)
    expect(value).toEqual(JSON.parse(text))
    expect(turns).toBeGreaterThan(10)
  })
})
