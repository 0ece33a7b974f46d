import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { DeterministicEmbedder } from '../../src/runtime/embedder.js'

/** A loopback OpenAI-compatible embeddings endpoint that can be taken down. */
export class EmbeddingsServer {
  readonly #model: DeterministicEmbedder
  readonly #server: Server
  down = false
  /** How long each answer waits (a slow model). */
  delayMs = 0
  requests = 0
  authorization: string | undefined

  constructor(dimension: number) {
    this.#model = new DeterministicEmbedder(dimension, 'unused')
    this.#server = createServer((req, res) => {
      let body = ''
      req.on('data', (d: Buffer) => (body += d.toString()))
      req.on('end', () => {
        this.requests += 1
        this.authorization = req.headers.authorization
        if (this.down || req.method !== 'POST' || req.url !== '/v1/embeddings') {
          res.writeHead(this.down ? 503 : 404).end()
          return
        }
        const { model, input } = JSON.parse(body) as { model: string; input: string[] }
        const data = input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: this.#model.embedSync(text),
        }))
        // Out of order on purpose: clients must place vectors by `index`.
        const answer = JSON.stringify({ object: 'list', model, data: data.reverse(), usage: {} })
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(answer)
        }, this.delayMs)
      })
    })
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()))
  }
}
