/*
 * A request body holding more JSON values than any valid request needs is refused from its bytes,
 * before it is parsed (parsing and walking a hundred thousand members would hold the event loop):
 * 413 `payload_too_large` naming the limit, nothing written. A capture just under the limit is
 * taken; capabilities publish the limit.
 */
import { describe, expect, it } from 'vitest'

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

/** A capture whose body holds `values` values: its three fields plus metadata members. */
const capture = (sourceId: string, values: number) => ({
  scope_id: SCOPE,
  source_id: sourceId,
  content: 'a source with many metadata keys',
  metadata: Object.fromEntries(Array.from({ length: values - 4 }, (_, i) => [`k${i}`, i])),
})

describe('request body values', () => {
  it('refuses a capture over the limit with 413 payload_too_large, and writes nothing', async () => {
    const over = await post('/v1/sources/content', capture('over', MAX_BODY_VALUES + 1))
    expect(over.status).toBe(413)
    expect(over.json.error.code).toBe('payload_too_large')
    expect(over.json.error.details).toEqual({ limit: 'body_values', max: MAX_BODY_VALUES })
    expect(over.json.error.message).toContain(`${MAX_BODY_VALUES} JSON values`)
    const read = await post('/v1/sources/get', { scope_id: SCOPE, source_ids: ['over'] })
    expect(read.status).toBe(404)
    expect(read.json.error.code).toBe('source_not_found')
    const list = await post('/v1/sources/list', { scope_id: SCOPE })
    expect(list.json.sources).toEqual([])
  })

  it('takes a capture at the limit, metadata intact', async () => {
    const body = capture('at', MAX_BODY_VALUES)
    const taken = await post('/v1/sources/content', body)
    expect(taken.status).toBe(202)
    const read = await post('/v1/sources/get', { scope_id: SCOPE, source_ids: ['at'] })
    expect(read.json.sources[0]!.metadata).toEqual(body.metadata)
  })

  it('publishes the limit in capabilities', async () => {
    const res = await fetch(`${t.server.url}/v1/capabilities`)
    const caps = (await res.json()) as { limits: Record<string, number> }
    expect(caps.limits['body_values']).toBe(MAX_BODY_VALUES)
  })
})
