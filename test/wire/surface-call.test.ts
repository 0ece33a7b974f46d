/**
 * The one surface call path (`invokeOperation`) over a real runtime on a SQLite file: the contract
 * rejects a bad body before the runtime is asked, an empty slot is `runtime_not_ready`, a valid
 * body reaches the handler and comes back in wire shape; the handler table is exhaustive over the
 * contract's operations (checked here at run time and, by `satisfies`, at compile time).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { OPERATIONS } from '../../src/contract/operations.js'
import { PowerContextError } from '../../src/core/errors.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { ContractValidator } from '../../src/wire/contract-validator.js'
import {
  isRuntimeOperation,
  OPERATION_HANDLERS,
  type OperationHandler,
  type RuntimeOperationId,
  SURFACE_OPERATIONS,
} from '../../src/wire/operation-handlers.js'
import { invokeOperation, type RuntimeSlot } from '../../src/wire/surface-call.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-surface-call-'))
const slot: RuntimeSlot = { current: undefined }
const validator = new ContractValidator()
const http = { slot, validator, bodyName: 'request' } as const
const mcp = { slot, validator, bodyName: 'arguments' } as const

beforeAll(async () => {
  slot.current = await MemoryRuntime.open({ dataDir: dir })
})
afterAll(async () => {
  await slot.current?.close()
  rmSync(dir, { recursive: true, force: true })
})

async function failure(p: Promise<unknown>): Promise<PowerContextError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(PowerContextError)
  return err as PowerContextError
}

describe('invokeOperation', () => {
  it('runs a valid body through the handler and answers in wire shape', async () => {
    const body = { scope_id: 'surface:ok', entries: [{ kind: 'fact', text: 'one call path' }] }
    const r = (await invokeOperation('remember', body, http)) as {
      results: { status: string; memory: { scope_id: string; text: string } }[]
    }
    expect(r.results).toHaveLength(1)
    expect(r.results[0]?.status).toBe('created')
    expect(r.results[0]?.memory).toMatchObject({ scope_id: 'surface:ok', text: 'one call path' })
    const again = (await invokeOperation('remember', body, mcp)) as typeof r
    expect(again.results[0]?.status).toBe('unchanged')
  })

  it('rejects a body the contract rejects with invalid_request and field errors, writing nothing', async () => {
    const bad = { scope_id: 'surface:bad', entries: [{ kind: 'fact' }], extra: 1 }
    const e = await failure(invokeOperation('remember', bad, http))
    expect(e.code).toBe('invalid_request')
    expect(e.message).toMatch(/^request does not match RememberRequest: /)
    expect((e.details?.['errors'] as unknown[]).length).toBeGreaterThan(0)
    const m = await failure(invokeOperation('remember', bad, mcp))
    expect(m.message).toMatch(/^arguments do not match RememberRequest: /)
    const listed = (await invokeOperation('list', { scope_id: 'surface:bad' }, http)) as {
      memories: unknown[]
    }
    expect(listed.memories).toEqual([])
  })

  it('gives an operation without a request schema an empty body', async () => {
    const caps = (await invokeOperation('capabilities', undefined, http)) as { backend: string }
    expect(caps.backend).toBe('sqlite')
  })

  it('answers runtime_not_ready while the slot is empty, after validating', async () => {
    const empty = { slot: { current: undefined }, validator, bodyName: 'request' } as const
    const e = await failure(invokeOperation('list', { scope_id: 'surface:none' }, empty))
    expect(e.code).toBe('runtime_not_ready')
    const bad = await failure(invokeOperation('list', { scope: 'x' }, empty))
    expect(bad.code).toBe('invalid_request')
  })
})

describe('the handler table', () => {
  it('covers every contract operation the surfaces do not answer themselves', () => {
    const runtimeOps = OPERATIONS.map((op) => op.operationId).filter(isRuntimeOperation)
    expect(Object.keys(OPERATION_HANDLERS).sort()).toEqual([...runtimeOps].sort())
    expect(runtimeOps.length + SURFACE_OPERATIONS.length).toBe(OPERATIONS.length)
  })

  it('does not compile with a missing handler', () => {
    type Table = { [Op in RuntimeOperationId]: OperationHandler<Op> }
    const full: Table = OPERATION_HANDLERS
    const { list: _omitted, ...rest } = full
    // @ts-expect-error — `list` is missing: the table must be exhaustive.
    const partial: Table = rest
    expect(Object.keys(partial)).not.toContain('list')
  })
})
