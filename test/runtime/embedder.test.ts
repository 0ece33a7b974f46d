import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PowerContextError } from '../../src/core/errors.js'
import { embeddingsUrl, OpenAiCompatibleEmbedder } from '../../src/runtime/embedder.js'

type Handler = (body: { model: string; input: string[] }, res: ServerResponse) => void
let handler: Handler = () => {}
const seen: { url: string | undefined; body: { model: string; input: string[] } }[] = []
let server: Server
let url: string

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let raw = ''
    req.on('data', (d: Buffer) => (raw += d.toString()))
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; input: string[] }
      seen.push({ url: req.url, body })
      handler(body, res)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

const embedder = (o: { timeoutMs?: number; batchSize?: number } = {}) =>
  new OpenAiCompatibleEmbedder({ baseUrl: url, model: 'm', dimension: 2, profileId: 'p', ...o })

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(PowerContextError)
    return (err as PowerContextError).code
  }
  throw new Error('expected a failure')
}

describe('OpenAiCompatibleEmbedder', () => {
  it('posts {model, input} in batches and places vectors by index', async () => {
    seen.length = 0
    handler = (body, res) =>
      json(res, 200, {
        data: body.input.map((t, index) => ({ index, embedding: [t.length, 1] })).reverse(),
      })
    const out = await embedder({ batchSize: 2 }).embed(['a', 'bb', 'ccc'])
    expect(out).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ])
    expect(seen.map((s) => [s.url, s.body])).toEqual([
      ['/v1/embeddings', { model: 'm', input: ['a', 'bb'] }],
      ['/v1/embeddings', { model: 'm', input: ['ccc'] }],
    ])
  })

  it('accepts a base URL with or without /v1', () => {
    expect(embeddingsUrl('http://h:1')).toBe('http://h:1/v1/embeddings')
    expect(embeddingsUrl('http://h:1/v1/')).toBe('http://h:1/v1/embeddings')
    expect(embeddingsUrl('http://h:1/openai')).toBe('http://h:1/openai/v1/embeddings')
  })

  it('maps failures to inference codes', async () => {
    handler = (_b, res) => json(res, 503, {})
    expect(await code(embedder().embed(['x']))).toBe('inference_unavailable')
    handler = (_b, res) => json(res, 504, {})
    expect(await code(embedder().embed(['x']))).toBe('inference_timeout')
    handler = (_b, res) => setTimeout(() => json(res, 200, { data: [] }), 300)
    expect(await code(embedder({ timeoutMs: 50 }).embed(['x']))).toBe('inference_timeout')
    handler = (_b, res) => json(res, 200, { data: [{ index: 0, embedding: [1, 2, 3] }] })
    expect(await code(embedder().embed(['x']))).toBe('invalid_inference_output')
    handler = (_b, res) => json(res, 200, { data: [{ index: 0, embedding: [0, 0] }] })
    expect(await code(embedder().embed(['x']))).toBe('invalid_inference_output')
    handler = (_b, res) => json(res, 200, { nothing: true })
    expect(await code(embedder().embed(['x']))).toBe('invalid_inference_output')
    const closed = new OpenAiCompatibleEmbedder({
      baseUrl: 'http://127.0.0.1:1',
      model: 'm',
      dimension: 2,
      profileId: 'p',
    })
    expect(await code(closed.embed(['x']))).toBe('inference_unavailable')
  })

  it('rejects a non-http URL and a bad profile at construction', () => {
    for (const baseUrl of ['ftp://h', 'not a url']) {
      expect(
        () => new OpenAiCompatibleEmbedder({ baseUrl, model: 'm', dimension: 2, profileId: 'p' }),
      ).toThrow(PowerContextError)
    }
    expect(
      () =>
        new OpenAiCompatibleEmbedder({ baseUrl: url, model: 'm', dimension: 0, profileId: 'p' }),
    ).toThrow(PowerContextError)
  })
})
