/*
 * Reading large sources is bounded per answer: `sources/get` and `sources/list` carry at most
 * 1 MiB of source payload each and say how to continue (`remaining_source_ids`, `next_after`), so a
 * read of a hundred large sources never builds one huge answer. Driven through the typed client
 * against a real server on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createPowerContextClient, type PowerContextClient } from '../../src/client/index.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { SOURCES_RESPONSE_BYTES_MAX } from '../../src/storage/spi/listing-types.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-source-budget-'))
const SCOPE = 'sources:budget'
let server: RunningServer
let client: PowerContextClient
/** Six sources of ≈ 300 KB (three fit one answer) and one of 999 KB (the content limit is 1,000,000 bytes). */
const contents = [
  ...Array.from({ length: 6 }, (_, i) => `${i} ${'evidence text '.repeat(21_500)}`),
  `big ${'x'.repeat(999_000)}`,
]
const ids = contents.map((_, i) => `src-${i}`)

beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dir, 'data'),
    logLevel: 'silent',
    vectorAnn: false,
  })
  client = createPowerContextClient({ baseUrl: server.url })
  for (const [i, content] of contents.entries())
    await client.captureContent({ scope_id: SCOPE, source_id: ids[i]!, content })
})
afterAll(async () => {
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
})

const payloadBytes = (sources: readonly { content: string }[]) =>
  sources.reduce((n, s) => n + Buffer.byteLength(s.content), 0)

describe('answers with large sources', () => {
  it('sources/get stops at the byte budget and lists the rest; continuing returns every source in order', async () => {
    const first = await client.getSources({ scope_id: SCOPE, source_ids: ids })
    expect(first.sources.map((s) => s.source.source_id)).toEqual(ids.slice(0, 3))
    expect(first.remaining_source_ids).toEqual(ids.slice(3))
    expect(payloadBytes(first.sources)).toBeLessThanOrEqual(SOURCES_RESPONSE_BYTES_MAX)
    const seen = [...first.sources]
    let remaining = first.remaining_source_ids
    while (remaining.length > 0) {
      const next = await client.getSources({ scope_id: SCOPE, source_ids: [...remaining] })
      expect(next.sources.length).toBeGreaterThan(0)
      seen.push(...next.sources)
      remaining = next.remaining_source_ids
    }
    expect(seen.map((s) => s.content)).toEqual(contents)
    // A source that fills the budget is returned alone; the next waits.
    const big = await client.getSources({ scope_id: SCOPE, source_ids: [ids[6]!, ids[0]!] })
    expect(big.sources.map((s) => s.source.source_id)).toEqual([ids[6]])
    expect(big.remaining_source_ids).toEqual([ids[0]])
    // Everything fits: nothing remains.
    const small = await client.getSources({ scope_id: SCOPE, source_ids: [ids[1]!] })
    expect(small.remaining_source_ids).toEqual([])
  })

  it('sources/list ends a page at the byte budget; next_after continues through the journal', async () => {
    const pages: number[] = []
    const seen: string[] = []
    let after: number | null = 0
    while (after !== null) {
      const page = await client.listSources({ scope_id: SCOPE, after, limit: 100 })
      expect(
        payloadBytes(page.sources) <= SOURCES_RESPONSE_BYTES_MAX || page.sources.length === 1,
      ).toBe(true)
      pages.push(page.sources.length)
      seen.push(...page.sources.map((s) => s.content))
      after = page.next_after
    }
    expect(pages).toEqual([3, 3, 1])
    expect(seen).toEqual(contents)
  })
})
