/*
 * `memory/history` is bounded per answer (docs/http-api.md#history-pages): a memory with many
 * large versions is read in pages of at most 1 MiB of versions, `next_after` continuing, every
 * version once and in order. Through the typed client (raw answer sizes measured on the wire) and
 * the CLI's `history --after` against a real server on loopback.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { createPowerContextClient, type PowerContextClient } from '../../src/client/index.js'
import { HISTORY_RESPONSE_BYTES_MAX } from '../../src/storage/spi/memory-commands.js'
import { useTempServer } from '../support/temp-server.js'

const SCOPE = 'history:budget'
/** 300 versions of ≈ 8 KB: about 2.4 MB of text, three answers. */
const VERSIONS = 300
const textOf = (n: number): string => `v${n}: ` + 'a long history, '.repeat(505) + 'end'
const temp = useTempServer('pc-history-budget-', { vectorAnn: false })
let client: PowerContextClient
let memoryId: string

beforeAll(async () => {
  client = createPowerContextClient({ baseUrl: temp.server.url })
  const r = await client.remember({ scope_id: SCOPE, entries: [{ kind: 'fact', text: textOf(1) }] })
  memoryId = r.results[0]!.memory.memory_ref.artifact_id
  for (let n = 2; n <= VERSIONS; n += 1)
    await client.update({
      scope_id: SCOPE,
      memory_ref: { artifact_id: memoryId, revision: n - 1 },
      text: textOf(n),
    })
}, 120_000)

describe('history of many large versions', () => {
  it('comes in answers of at most 1 MiB of versions; following next_after sees each version once, in order', async () => {
    const revisions: number[] = []
    const answerBytes: number[] = []
    let after: number | null = 0
    while (after !== null) {
      const res = await fetch(`${temp.server.url}/v1/memory/history`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ scope_id: SCOPE, memory_id: memoryId, after }),
      })
      expect(res.status).toBe(200)
      const raw = await res.text()
      answerBytes.push(Buffer.byteLength(raw))
      const page = JSON.parse(raw) as {
        versions: { memory_ref: { revision: number }; text: string }[]
        next_after: number | null
      }
      const text = page.versions.reduce((n, v) => n + Buffer.byteLength(v.text), 0)
      expect(text).toBeLessThanOrEqual(HISTORY_RESPONSE_BYTES_MAX)
      revisions.push(...page.versions.map((v) => v.memory_ref.revision))
      after = page.next_after
    }
    expect(answerBytes.length).toBeGreaterThanOrEqual(3)
    // Field names, ids and times add a little to the 1 MiB of version content.
    for (const b of answerBytes) expect(b).toBeLessThan(HISTORY_RESPONSE_BYTES_MAX * 1.2)
    expect(revisions).toEqual(Array.from({ length: VERSIONS }, (_, i) => i + 1))
    // The typed client speaks the same pages.
    const first = await client.history({ scope_id: SCOPE, memory_id: memoryId })
    expect(first.next_after).toBe(first.versions.at(-1)?.memory_ref.revision)
  })

  it('the CLI prints one page and how to continue', async () => {
    let out = ''
    const run = (...args: string[]) =>
      main(['node', 'powercontext', '--server-url', temp.server.url, ...args], {
        out: (t) => (out += t.endsWith('\n') ? t : `${t}\n`),
        err: () => undefined,
      })
    expect(await run('history', '--scope', SCOPE, memoryId)).toBe(0)
    const next = /next page: --after (\d+)/.exec(out)?.[1]
    expect(next).toBeDefined()
    out = ''
    expect(await run('history', '--scope', SCOPE, '--after', String(VERSIONS - 1), memoryId)).toBe(
      0,
    )
    expect(out).toContain(`  v${VERSIONS} `)
    expect(out).not.toContain(`  v${VERSIONS - 1} `)
    expect(out).not.toContain('next page')
  })
})
