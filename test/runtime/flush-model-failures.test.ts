/**
 * Failures of flush with a generation model (docs/sources-and-flush.md), driven by a scripted OpenAI-compatible
 * chat server on loopback: invalid output fails the whole window (replayed; a poison source is
 * skipped after the attempts), invalid decisions, timeouts and provider errors.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import type { PowerContextError } from '../../src/core/errors.js'
import type { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { decision, proposal } from '../support/chat-server.js'
import { useScriptedModel } from '../support/scripted-model-runtime.js'

const { chat, open } = useScriptedModel('pc-flush-model-')
let rt: MemoryRuntime
beforeAll(async () => {
  rt = await open()
})

let n = 0
const scope = (): string => `flush:model-failures:${++n}`
const failure = async (p: Promise<unknown>): Promise<PowerContextError> => {
  try {
    await p
  } catch (err) {
    return err as PowerContextError
  }
  throw new Error('expected a failure')
}

describe('flush with a generation model: failures', () => {
  it('invalid output fails the whole window, is replayed, and a poison source is skipped', async () => {
    const retrying = await open({ maxRequests: 2 })
    try {
      const scopeId = scope()
      await retrying.captureSource({ scopeId, sourceId: 'poison', content: 'odd content' })
      chat.responder = () => ({ content: 'this is not JSON' })
      for (const attempt of [1, 2]) {
        const err = await failure(retrying.flush({ scopeId }))
        expect(err.code).toBe('invalid_inference_output')
        expect(err.details).toMatchObject({ source_attempts: attempt, max_attempts: 3 })
        expect((await retrying.backend.journal.window({ scopeId })).cursor.position).toBe(0)
      }
      expect(chat.requests).toHaveLength(4)
      const skipped = await retrying.flush({ scopeId })
      expect(skipped).toMatchObject({ status: 'processed', cursor: 1, changes: [] })
      expect(skipped.skippedSources).toEqual([
        expect.objectContaining({
          source: { name: 'content', sourceId: 'poison' },
          attempts: 3,
          error: expect.objectContaining({ code: 'invalid_inference_output' }),
        }),
      ])
      const feed = await retrying.changes({ scopeId, since: 0 })
      expect(feed.skippedSources?.map((s) => s.source.sourceId)).toEqual(['poison'])
      chat.reset()
      await retrying.captureSource({ scopeId, sourceId: 'fine', content: 'Docs live in /docs.' })
      chat.script(proposal({ text: 'Documentation lives in the docs folder.', evidence: ['fine'] }))
      expect(await retrying.flush({ scopeId })).toMatchObject({ previousCursor: 1, cursor: 2 })
      for (const bad of [
        proposal({ text: 'x', evidence: ['not-in-window'] }),
        { json: { candidates: [{ kind: 'fact', text: 'missing fields' }] } },
      ]) {
        await retrying.captureSource({ scopeId, content: `more ${JSON.stringify(bad)}` })
        chat.script(bad, bad)
        expect((await failure(retrying.flush({ scopeId }))).code).toBe('invalid_inference_output')
      }
      expect((await retrying.verify()).problems).toEqual([])
    } finally {
      await retrying.close()
    }
  })

  it('a decision naming a memory it was not shown fails the window', async () => {
    const scopeId = scope()
    await rt.remember({ scopeId, entries: [{ kind: 'fact', text: 'Logs ship to Loki.' }] })
    await rt.captureSource({ scopeId, sourceId: 'l', content: 'logs to Loki' })
    chat.script(
      proposal({ text: 'Logs ship to Loki via promtail.', evidence: ['l'] }),
      decision('update', {
        targets: ['mem_01JNOTSHOWNTOTHEMODEL0000'],
        text: 'Logs ship to Loki.',
      }),
    )
    expect((await failure(rt.flush({ scopeId }))).code).toBe('invalid_inference_output')
    expect((await rt.backend.journal.window({ scopeId })).cursor.position).toBe(0)
  })

  it('timeouts and provider errors fail with typed errors and are not counted', async () => {
    const slow = await open({ timeoutMs: 150 })
    try {
      const scopeId = scope()
      await slow.captureSource({ scopeId, content: 'anything' })
      chat.script({ ...proposal(), delayMs: 1000 })
      const timeout = await failure(slow.flush({ scopeId }))
      expect(timeout.code).toBe('inference_timeout')
      expect(timeout.details?.['source_attempts']).toBeUndefined()
      chat.script({ status: 503 })
      expect((await failure(slow.flush({ scopeId }))).code).toBe('inference_unavailable')
      const w = await slow.backend.journal.window({ scopeId })
      expect([w.cursor.position, w.failure, w.isolating]).toEqual([0, null, false])
      chat.modelsStatus = 500
      expect((await slow.readiness()).status).toBe('degraded')
    } finally {
      await slow.close()
    }
  })
})
