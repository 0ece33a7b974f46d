/*
 * The runtime answers every SPI memory operation through its one delegation path
 * (runtime/backend-delegation.ts `BackendDelegation`): each name of MEMORY_OPERATION_NAMES is a
 * method of MemoryRuntime that calls the backend's method of that name with the same arguments
 * and returns its result, on a real SQLite database.
 */
import { afterEach, expect, it } from 'vitest'

import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import { MEMORY_OPERATION_NAMES } from '../../src/storage/spi/memory-backend.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'

let runtime: MemoryRuntime | undefined
afterEach(async () => {
  await runtime?.close()
  runtime = undefined
})

it('every SPI memory operation is a runtime method that calls the backend once, arguments and result unchanged', async () => {
  const backend = await openSqliteBackend({ database: ':memory:' })
  const calls: { name: string; args: unknown[]; result: unknown }[] = []
  // Record each backend call on the real backend object (its methods still run).
  for (const name of MEMORY_OPERATION_NAMES) {
    const real = (backend[name] as (...a: unknown[]) => Promise<unknown>).bind(backend)
    Object.defineProperty(backend, name, {
      configurable: true,
      value: async (...args: unknown[]) => {
        const result = await real(...args)
        calls.push({ name, args, result })
        return result
      },
    })
  }
  runtime = await MemoryRuntime.open({ backend: backend as MemoryBackend })
  const rt = runtime
  expect(MEMORY_OPERATION_NAMES).toHaveLength(16)
  for (const name of MEMORY_OPERATION_NAMES) expect(typeof rt[name]).toBe('function')

  const cmd = { scopeId: 'project:delegation', entries: [{ kind: 'fact', text: 'Uses pnpm' }] }
  const remembered = await rt.remember(cmd)
  expect(calls.at(-1)).toEqual({ name: 'remember', args: [cmd], result: remembered })
  const memoryId = remembered.results[0]!.memory.memoryRef.artifactId

  const reads = [
    await rt.get({ scopeId: 'project:delegation', memoryId }),
    await rt.history({ scopeId: 'project:delegation', memoryId }),
    await rt.list({ scopeId: 'project:delegation' }),
    await rt.search({ scopeId: 'project:delegation', query: 'pnpm' }),
    await rt.recent({ scopeIds: ['project:delegation'] }),
    await rt.changes({ scopeId: 'project:delegation', since: 0 }),
    await rt.listScopes(),
  ]
  expect(calls.slice(-7).map((c) => c.name)).toEqual([
    'get',
    'history',
    'list',
    'search',
    'recent',
    'changes',
    'listScopes',
  ])
  expect(calls.slice(-7).map((c) => c.result)).toEqual(reads)
  // listScopes without a command: the backend gets none and applies its own default.
  expect(calls.at(-1)!.args).toEqual([])
  const scopes = await rt.listScopes()
  expect(scopes.scopes.map((x) => x.scopeId)).toEqual(['project:delegation'])
  // A failure is the backend's own, unchanged.
  await expect(
    rt.forget({ scopeId: 'project:delegation', memoryId: 'mem_missing' }),
  ).rejects.toMatchObject({
    code: 'memory_not_found',
  })
})
