/*
 * `query` is 1–8,192 characters as the contract documents, over HTTP: an 8,192-character CJK
 * query (24 KiB in UTF-8) is searched, one character more is 422. Before, the server counted
 * bytes and refused the first.
 */
import { describe, expect, it } from 'vitest'

import { useTempServer } from '../support/temp-server.js'

const t = useTempServer('pc-query-length-')

async function search(query: string): Promise<number> {
  const res = await fetch(`${t.server.url}/v1/memory/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scope_id: 'query-length', query }),
  })
  await res.text()
  return res.status
}

describe('query length', () => {
  it('counts characters: 8,192 CJK characters pass, 8,193 are 422', async () => {
    expect(await search('会'.repeat(8192))).toBe(200)
    expect(await search('会'.repeat(8193))).toBe(422)
  })
})
