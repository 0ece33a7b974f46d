/**
 * Automatic flush: a turn-end capture (`stop`, `session_end`, `pre_compact`) arms a per-scope,
 * debounced flush that runs the scope until idle — so task-outcome working notes are written
 * without a model and without anyone calling flush; a burst of captures yields one run; other
 * captures do not trigger it; the server's defaults (auto flush on, the backstop only with a
 * provider) are what `flushSchedule` says.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, describe, expect, it } from 'vitest'

import { TASK_OUTCOME_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { flushSchedule } from '../../src/http/server-run.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function open(): Promise<MemoryRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pc-auto-flush-'))
  dirs.push(dataDir)
  return MemoryRuntime.open({ dataDir })
}

const outcome = (n: number) => ({
  sourceId: `claude-code-task-outcome:${n}`,
  content: JSON.stringify({
    task: `Task ${n}`,
    outcome: 'turn ended',
    summary: `Step ${n} done; the retry queue still drops events after a restart.`,
  }),
  mediaType: TASK_OUTCOME_MEDIA_TYPE,
  metadata: { origin: 'claude-code', event: 'stop', session_id: 's1' },
})

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('automatic flush after a turn ends', () => {
  it('writes the task-outcome working notes without a model, one run per burst', async () => {
    const rt = await open()
    try {
      rt.startFlushScheduler({ debounceMs: 200 })
      const scopeId = 'project:auto'
      for (const n of [1, 2, 3]) await rt.captureSource({ scopeId, ...outcome(n) })
      const scheduler = rt.flushScheduler!
      expect(scheduler.autoRuns).toBe(0)
      await until(async () => scheduler.quiet && scheduler.autoRuns > 0)
      expect(scheduler.autoRuns).toBe(1)
      const { memories } = await rt.list({ scopeId })
      expect(memories.map((m) => m.kind)).toEqual(['working_note', 'working_note', 'working_note'])
      expect(await rt.pendingScopes()).toEqual([])
      expect(rt.capabilities().extraction.autoFlush).toBe(true)
    } finally {
      await rt.close()
    }
  })

  it('a prompt capture does not trigger it', async () => {
    const rt = await open()
    try {
      rt.startFlushScheduler({ debounceMs: 50 })
      const scopeId = 'project:auto-prompt'
      await rt.captureSource({
        scopeId,
        content: 'Use pnpm.',
        metadata: { event: 'user_prompt_submit' },
      })
      await new Promise((r) => setTimeout(r, 300))
      expect(rt.flushScheduler!.autoRuns).toBe(0)
      expect(await rt.pendingScopes()).toEqual([scopeId])
    } finally {
      await rt.close()
    }
  })

  it('server defaults: auto flush on; the backstop every 900 s only with a provider; 0 turns it off', () => {
    const base = { host: '127.0.0.1', port: 0 }
    expect(flushSchedule(base, false)).toEqual({ debounceMs: 5000 })
    expect(flushSchedule(base, true)).toEqual({ debounceMs: 5000, intervalMs: 900_000 })
    expect(flushSchedule({ ...base, scheduleSeconds: 0 }, true)).toEqual({ debounceMs: 5000 })
    expect(flushSchedule({ ...base, autoFlush: false, scheduleSeconds: 0 }, true)).toBeUndefined()
    expect(flushSchedule({ ...base, scheduleSeconds: 60 }, false)).toEqual({
      debounceMs: 5000,
      intervalMs: 60_000,
    })
  })
})
