/*
 * A capture's metadata holds at most MAX_CAPTURE_METADATA_VALUES JSON values (object members and
 * array items at any depth), on every surface: the runtime (what MCP, the CLI and the library
 * call) refuses more with `payload_too_large` naming `metadata_values`, and writes nothing. Nested
 * values count; a capture at the bound is taken whole.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PowerContextError } from '../../src/core/errors.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { MAX_CAPTURE_METADATA_VALUES } from '../../src/storage/spi/memory-backend.js'

const SCOPE = 'metadata-bound'
let dir: string
let rt: MemoryRuntime
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pc-metadata-bound-'))
  rt = await MemoryRuntime.open({ dataDir: dir })
})
afterAll(async () => {
  await rt.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Metadata of `values` values: one member holding an array of `values - 1` items. */
const nested = (values: number) => ({ list: Array.from({ length: values - 1 }, (_, i) => i) })

describe('capture metadata bound', () => {
  it('refuses metadata over the bound, counting nested values, and writes nothing', async () => {
    const err = await rt
      .captureSource({
        scopeId: SCOPE,
        sourceId: 'over',
        content: 'nested metadata',
        metadata: nested(MAX_CAPTURE_METADATA_VALUES + 1),
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PowerContextError)
    expect((err as PowerContextError).code).toBe('payload_too_large')
    expect((err as PowerContextError).details).toEqual({
      limit: 'metadata_values',
      max: MAX_CAPTURE_METADATA_VALUES,
    })
    const listed = await rt.listSources({ scopeId: SCOPE })
    expect(listed.sources).toEqual([])
  })

  it('takes metadata at the bound whole', async () => {
    const metadata = nested(MAX_CAPTURE_METADATA_VALUES)
    await rt.captureSource({ scopeId: SCOPE, sourceId: 'at', content: 'nested', metadata })
    const { sources } = await rt.getSources({ scopeId: SCOPE, sourceIds: ['at'] })
    expect(sources[0]!.metadata).toEqual(metadata)
  })
})
