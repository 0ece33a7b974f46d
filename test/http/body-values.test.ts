/*
 * A request body holding more JSON values than any valid request needs is refused from its bytes,
 * before it is parsed (parsing and walking a hundred thousand members would hold the event loop):
 * 413 `payload_too_large` naming the limit, nothing written. A capture's metadata is bounded
 * tighter (every read parses a stored payload whole): over it is 413 naming `metadata_values`,
 * refused from the bytes too; a capture at that bound is taken. Capabilities publish both.
 */
import { describe, expect, it } from 'vitest'

import { MAX_CAPTURE_METADATA_VALUES } from '../../src/storage/spi/memory-backend.js'
import { MAX_BODY_VALUES } from '../../src/wire/body-values.js'
import { useTempServer } from '../support/temp-server.js'

const t = useTempServer('pc-body-values-')
const SCOPE = 'body-values'

/** The parts of an answer these tests read (an error envelope or a sources answer). */
interface Answer {
  readonly error: { code: string; message: string; details: unknown }
  readonly sources: { metadata: unknown }[]
}

async function post(path: string, body: unknown): Promise<{ status: number; json: Answer }> {
  const res = await fetch(`${t.server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, json: (await res.json()) as Answer }
}

/** A capture whose metadata holds `keys` members. */
const capture = (sourceId: string, keys: number) => ({
  scope_id: SCOPE,
  source_id: sourceId,
  content: 'a source with many metadata keys',
  metadata: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, i])),
})

/** Nothing was captured under `sourceId`. */
async function nothingWritten(sourceId: string) {
  const read = await post('/v1/sources/get', { scope_id: SCOPE, source_ids: [sourceId] })
  expect(read.status).toBe(404)
  expect(read.json.error.code).toBe('source_not_found')
  const list = await post('/v1/sources/list', { scope_id: SCOPE })
  expect(list.json.sources.map((s) => s.metadata)).not.toContainEqual(
    expect.objectContaining({ k0: 0, k1: 1, k2: 2 }),
  )
}

describe('request body values', () => {
  it('refuses a body over the limit with 413 payload_too_large naming it', async () => {
    // A read of 50,001 ids: any route's body is counted before it is parsed.
    const ids = Array.from({ length: MAX_BODY_VALUES + 1 }, (_, i) => `s-${i}`)
    const over = await post('/v1/sources/get', { scope_id: SCOPE, source_ids: ids })
    expect(over.status).toBe(413)
    expect(over.json.error.code).toBe('payload_too_large')
    expect(over.json.error.details).toEqual({ limit: 'body_values', max: MAX_BODY_VALUES })
    expect(over.json.error.message).toContain(`${MAX_BODY_VALUES} JSON values`)
  })

  it('refuses a capture whose metadata is over its bound (under the body limit), and writes nothing', async () => {
    for (const [id, keys] of [
      ['over-by-one', MAX_CAPTURE_METADATA_VALUES + 1],
      ['under-the-body-limit', MAX_BODY_VALUES - 10],
    ] as const) {
      const over = await post('/v1/sources/content', capture(id, keys))
      expect(over.status).toBe(413)
      expect(over.json.error.code).toBe('payload_too_large')
      expect(over.json.error.details).toEqual({
        limit: 'metadata_values',
        max: MAX_CAPTURE_METADATA_VALUES,
      })
      // Over by one is found once parsed (the body bound leaves room for six members), the other
      // from the bytes: the same answer.
      expect(over.json.error.message).toMatch(
        new RegExp(`metadata .*${MAX_CAPTURE_METADATA_VALUES}`),
      )
      await nothingWritten(id)
    }
  })

  it('takes a capture at the metadata bound, metadata intact', async () => {
    const body = capture('at', MAX_CAPTURE_METADATA_VALUES)
    const taken = await post('/v1/sources/content', body)
    expect(taken.status).toBe(202)
    const read = await post('/v1/sources/get', { scope_id: SCOPE, source_ids: ['at'] })
    expect(read.json.sources[0]!.metadata).toEqual(body.metadata)
  })

  it('publishes the limits in capabilities', async () => {
    const res = await fetch(`${t.server.url}/v1/capabilities`)
    const caps = (await res.json()) as { limits: Record<string, number> }
    expect(caps.limits['body_values']).toBe(MAX_BODY_VALUES)
    expect(caps.limits['metadata_values']).toBe(MAX_CAPTURE_METADATA_VALUES)
  })
})
