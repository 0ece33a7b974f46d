/*
 * A `__proto__` key in capture metadata over HTTP: kept as a key, so the same
 * source id with `{}` afterwards is `source_conflict`, and reading the source returns it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'

const dataDir = mkdtempSync(join(tmpdir(), 'pc-proto-'))
let server: RunningServer
beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
})
afterAll(async () => {
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const capture = (body: string): Promise<Response> =>
  fetch(`${server.url}/v1/sources/content`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })

describe('__proto__ in capture metadata', () => {
  it('is stored as a key: {} under the same source id is source_conflict', async () => {
    const body =
      '{"scope_id":"proto:s","source_id":"p1","content":"c","metadata":{"__proto__":{"admin":true}}}'
    const first = await capture(body)
    expect(first.status).toBe(202)
    const conflict = await capture(
      '{"scope_id":"proto:s","source_id":"p1","content":"c","metadata":{}}',
    )
    expect(conflict.status).toBe(409)
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe(
      'source_conflict',
    )
    const again = await capture(body)
    expect(again.status).toBe(202)
    expect(await again.json()).toMatchObject({ position: 1 })
  })
})
