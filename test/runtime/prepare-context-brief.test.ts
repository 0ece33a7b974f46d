/**
 * Prepared context on a real SQLite file: the brief keeps the standing memories in front of a
 * burst of newer ones (kind order, stated before extracted), and `excludeRefs` leaves versions a
 * session already holds out so the budget goes to new items.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PowerContextError } from '../../src/core/errors.js'
import type { ArtifactRef } from '../../src/core/memory-model.js'
import { PREPARED_CONTEXT_BEGIN } from '../../src/core/prepared-context.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-brief-'))
let rt: MemoryRuntime
let n = 0
const scope = (name: string) => `brief:${name}:${++n}`

beforeAll(async () => {
  rt = await MemoryRuntime.open({ dataDir: dir })
})
afterAll(async () => {
  await rt.close()
  rmSync(dir, { recursive: true, force: true })
})

async function remember(scopeId: string, kind: string, text: string, sourceId?: string) {
  await sleep(2) // one millisecond stamp per write, so "newest first" is well defined
  if (sourceId !== undefined) await rt.captureSource({ scopeId, sourceId, content: text })
  const sources = sourceId === undefined ? [] : [{ name: 'content' as const, sourceId }]
  const { results } = await rt.remember({ scopeId, entries: [{ kind, text, sources }] })
  return results[0]!.memory
}
const cited = (content: string | null): ArtifactRef[] => {
  const lines = (content ?? '').split('\n')
  const json = lines[lines.indexOf(PREPARED_CONTEXT_BEGIN) + 1]!
  const { items } = JSON.parse(json) as {
    items: { citation: { artifact_id: string; revision: number } }[]
  }
  return items.map((i) => ({ artifactId: i.citation.artifact_id, revision: i.citation.revision }))
}

describe('the session-start brief', () => {
  it('keeps standing constraints and preferences in front of 50 newer decisions', async () => {
    const s = scope('standing')
    const rule = await remember(s, 'constraint', 'Never commit generated files.')
    const tabs = await remember(s, 'preference', 'The user wants tabs for indentation.')
    for (let i = 0; i < 50; i++) {
      await remember(s, 'decision', `Decision ${i}: module ${i} uses the shared retry helper.`)
    }
    const refs = (await rt.prepareContext({ scopeId: s })).items.map((i) => i.memoryRef)
    expect(refs).toHaveLength(8)
    expect(refs.slice(0, 2)).toEqual([rule.memoryRef, tabs.memoryRef])
  })

  it('shows stated memories of a kind before extracted ones, each newest first', async () => {
    const s = scope('stated')
    const said = await remember(
      s,
      'preference',
      'Answer in short paragraphs.',
      'claude-code-user-prompt:0a1b',
    )
    const direct = await remember(s, 'preference', 'Prefer table-driven tests.')
    const extracted: ArtifactRef[] = []
    for (let i = 0; i < 10; i++) {
      const m = await remember(s, 'preference', `Commit ${i} style: imports sorted.`, `commit-${i}`)
      extracted.push(m.memoryRef)
    }
    const refs = (await rt.prepareContext({ scopeId: s })).items.map((i) => i.memoryRef)
    expect(refs).toEqual([direct.memoryRef, said.memoryRef, ...extracted.toReversed().slice(0, 6)])
  })
})

describe('excludeRefs', () => {
  it('leaves the given versions out and fills the budget with the next ones', async () => {
    const s = scope('exclude')
    const all: ArtifactRef[] = []
    for (let i = 0; i < 12; i++) {
      all.push(
        (await remember(s, 'fact', `The deploy script step ${i} checks the gateway.`)).memoryRef,
      )
    }
    const first = await rt.prepareContext({ scopeId: s, query: 'deploy gateway' })
    expect(first.items).toHaveLength(8)
    const given = first.items.map((i) => i.memoryRef)
    const second = await rt.prepareContext({
      scopeId: s,
      query: 'deploy gateway',
      excludeRefs: given,
    })
    const next = second.items.map((i) => i.memoryRef)
    expect(next).toHaveLength(4)
    expect(next.filter((r) => given.some((g) => g.artifactId === r.artifactId))).toEqual([])
    expect(cited(second.content)).toEqual(next)
    // The brief too; an older version of a memory is not its newest one, so it is still shown.
    const rule = await remember(s, 'constraint', 'Run the deploy script only from CI.')
    const { memory: rule2 } = await rt.update({
      scopeId: s,
      memoryRef: rule.memoryRef,
      text: 'Run the deploy script only from CI, never by hand.',
    })
    expect((await rt.prepareContext({ scopeId: s, excludeRefs: [rule2.memoryRef] })).status).toBe(
      'empty',
    )
    const brief = await rt.prepareContext({ scopeId: s, excludeRefs: [rule.memoryRef] })
    expect(brief.items.map((i) => i.memoryRef)).toEqual([rule2.memoryRef])
  })

  it('refuses more than 256 refs and malformed ones', async () => {
    const s = scope('bad')
    const ref = { artifactId: 'mem_01JAAAAAAAAAAAAAAAAAAAAAAA', revision: 1 }
    const err = await rt
      .prepareContext({ scopeId: s, excludeRefs: Array.from({ length: 257 }, () => ref) })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PowerContextError)
    expect((err as PowerContextError).code).toBe('invalid_request')
    const bad = await rt
      .prepareContext({ scopeId: s, excludeRefs: [{ artifactId: 'x', revision: 0 }] })
      .catch((e: unknown) => e)
    expect((bad as PowerContextError).message).toContain('exclude_refs[0]')
  })
})
