/**
 * A flush of a large window yields to the event loop: the planning, the checks
 * and the writes of a window run in slices, so callbacks queued meanwhile (liveness, other
 * requests, timers) run while it works. Nothing here is timed: the proof is that `setImmediate`
 * callbacks scheduled during the flush run before it ends (none did before: the whole flush was
 * one synchronous stretch), and that the flush result is the full, usual one.
 * `npm run bench:eventloop` measures how long the slices are.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { SLICE_BUDGET_MS, timeSlicer } from '../../src/core/event-loop-slices.js'
import { MEMORY_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-flush-loop-'))
let rt: MemoryRuntime
beforeAll(async () => {
  rt = await MemoryRuntime.open({ dataDir: dir })
})
afterAll(async () => {
  await rt.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs `work` while counting the `setImmediate` turns the event loop takes until it settles. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0
  let done = false
  const tick = (): void => {
    if (done) return
    turns += 1
    setImmediate(tick)
  }
  const running = work()
  setImmediate(tick)
  try {
    return { result: await running, turns }
  } finally {
    done = true
  }
}

describe('flush and the event loop', () => {
  it('lets the event loop turn while it plans and applies a large window', async () => {
    const scopeId = 'flush:event-loop'
    const sources = 200
    const text = (i: number): string =>
      `Entry ${i}: ${'the release train leaves from the main branch on Tuesdays '.repeat(130)}`
    for (let i = 0; i < sources; i += 1)
      await rt.captureSource({
        scopeId,
        sourceId: `s-${i}`,
        mediaType: MEMORY_MEDIA_TYPE,
        content: JSON.stringify({ entries: [{ kind: 'fact', text: text(i) }] }),
      })
    const { result, turns } = await turnsDuring(() => rt.flush({ scopeId, limit: sources }))
    expect(result).toMatchObject({
      status: 'processed',
      cursor: sources,
      processedSourceCount: 200,
    })
    expect(result.changes).toHaveLength(sources)
    expect(result.sources.every((s) => s.outcome === 'candidates')).toBe(true)
    // Several seconds of work on a slow machine, well over a second on a fast one, in slices of
    // ≈ 10 ms: the loop turns many times. Before the slicing it did not turn once.
    expect(turns).toBeGreaterThan(3)
    const [record] = (await rt.flushRecords({ scopeId })).records
    expect(record?.details['candidates']).toHaveLength(sources)
  })

  it('a pause yields once its budget is spent, and is a resolved promise before', async () => {
    const order: string[] = []
    const spent = timeSlicer(0)
    setImmediate(() => order.push('immediate'))
    await spent()
    order.push('after pause')
    expect(order).toEqual(['immediate', 'after pause'])
    order.length = 0
    const fresh = timeSlicer(60_000)
    setImmediate(() => order.push('immediate'))
    await fresh()
    order.push('after pause')
    await new Promise((resolve) => setImmediate(resolve))
    expect(order).toEqual(['after pause', 'immediate'])
  })
  it('a new pause counts the work since the thread last yielded, not since it was made', async () => {
    await timeSlicer(0)()
    // A stretch longer than the budget, then a slicer made only now (e.g. the next search of a
    // `prepare` after the previous one's tail): its first pause yields.
    const start = performance.now()
    while (performance.now() - start < SLICE_BUDGET_MS + 2);
    const order: string[] = []
    setImmediate(() => order.push('immediate'))
    await timeSlicer()()
    order.push('after pause')
    expect(order).toEqual(['immediate', 'after pause'])
  })
})
