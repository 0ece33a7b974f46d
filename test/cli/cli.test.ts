import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'

const dataDir = mkdtempSync(join(tmpdir(), 'pc-cli-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(['node', 'powercontext', '--data-dir', dataDir, ...args], {
    out: (t) => (out += t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => (err += t.endsWith('\n') ? t : `${t}\n`),
  })
  return { code, out, err }
}

async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args)
  expect(r.err).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.out) as T
}

interface WireMemory {
  memory_ref: { artifact_id: string; revision: number }
  state: string
  text: string
}

describe('powercontext CLI on a data directory', () => {
  const scope = 'cli:demo'

  it('runs the whole lifecycle with --json wire shapes', async () => {
    const created = await json<{ results: { status: string; memory: WireMemory }[] }>(
      'remember',
      '--scope',
      scope,
      '--kind',
      'decision',
      'Production releases need owner approval',
    )
    expect(created.results[0]?.status).toBe('created')
    const id = created.results[0]!.memory.memory_ref.artifact_id
    expect(id).toMatch(/^mem_[0-9A-HJKMNP-TV-Z]{26}$/)

    const again = await json<{ results: { status: string }[] }>(
      'remember',
      '--scope',
      scope,
      '--kind',
      'decision',
      '  Production releases need owner approval ',
    )
    expect(again.results[0]?.status).toBe('unchanged')

    const found = await json<{
      mode: string
      hits: { memory_ref: { artifact_id: string }; matched_by: string[] }[]
    }>('search', '--scope', scope, 'releases', 'approval')
    expect(found.mode).toBe('fts')
    expect(found.hits.map((h) => h.memory_ref.artifact_id)).toEqual([id])
    expect(found.hits[0]?.matched_by).toEqual(['fts'])

    const updated = await json<{ status: string; memory: WireMemory }>(
      'update',
      '--scope',
      scope,
      '--revision',
      '1',
      '--text',
      'Production releases need two approvals',
      id,
    )
    expect(updated.memory.memory_ref.revision).toBe(2)

    const stale = await cli('update', '--scope', scope, '--revision', '1', '--text', 'x', id)
    expect(stale.code).toBe(1)
    expect(stale.err).toContain('revision_conflict')

    const old = await json<{ memory: WireMemory; current_revision: number }>(
      'get',
      '--scope',
      scope,
      '--revision',
      '1',
      id,
    )
    expect(old.memory.text).toBe('Production releases need owner approval')
    expect(old.current_revision).toBe(2)

    expect((await json<{ status: string }>('forget', '--scope', scope, id)).status).toBe(
      'forgotten',
    )
    expect((await json<{ hits: unknown[] }>('search', '--scope', scope, 'releases')).hits).toEqual(
      [],
    )
    const listed = await json<{ memories: WireMemory[] }>(
      'list',
      '--scope',
      scope,
      '--state',
      'forgotten',
    )
    expect(listed.memories.map((m) => m.memory_ref.artifact_id)).toEqual([id])

    const restored = await json<{ status: string; memory: WireMemory }>(
      'restore',
      '--scope',
      scope,
      '--to-revision',
      '1',
      id,
    )
    expect(restored.status).toBe('restored')
    expect(restored.memory).toMatchObject({
      state: 'active',
      text: 'Production releases need owner approval',
    })
    expect(restored.memory.memory_ref.revision).toBe(3)

    const history = await json<{ versions: WireMemory[]; transitions: { op: string }[] }>(
      'history',
      '--scope',
      scope,
      id,
    )
    expect(history.versions.map((v) => v.memory_ref.revision)).toEqual([1, 2, 3])
    expect(history.transitions.map((t) => t.op)).toEqual([
      'add',
      'update',
      'forget',
      'restore',
      'update',
    ])

    const changes = await json<{ changes: { seq: number }[]; head_seq: number }>(
      'changes',
      '--scope',
      scope,
      '--since',
      '2',
    )
    expect(changes.changes.map((c) => c.seq)).toEqual([3, 4, 5])
    expect(changes.head_seq).toBe(5)
  })

  it('lists scopes with counts per state, paged with --after', async () => {
    await cli('remember', '--scope', 'cli:scopes/a', 'Scoped fact one')
    const forgotten = await json<{ results: { memory: WireMemory }[] }>(
      'remember',
      '--scope',
      'cli:scopes/a',
      'Scoped fact two',
    )
    await cli(
      'forget',
      '--scope',
      'cli:scopes/a',
      forgotten.results[0]!.memory.memory_ref.artifact_id,
    )
    await cli('capture', '--scope', 'cli:scopes/b', '--source-id', 's1', 'evidence only')
    const page = await cli('scopes', '--after', 'cli:scopes', '--limit', '1')
    expect(page.code).toBe(0)
    expect(page.out).toMatch(
      /^cli:scopes\/a {2}2 memories \(active 1, forgotten 1, merged 0, retired 0\) {2}last change \d{4}-/,
    )
    expect(page.out.trim().split('\n').at(-1)).toBe('more: --after cli:scopes/a')
    const next = await json<{ scopes: Record<string, unknown>[] }>(
      'scopes',
      '--after',
      'cli:scopes/a',
      '--limit',
      '1',
    )
    expect(next.scopes[0]).toMatchObject({
      scope_id: 'cli:scopes/b',
      memory_count: 0,
      last_change_at: null,
      high_watermark: 1,
      cursor: 0,
    })
    const bad = await cli('scopes', '--limit', '0')
    expect(bad.code).toBe(1)
  })

  it('prints the prepared context for a query, the brief without one, and empty', async () => {
    const s = 'cli:context'
    await cli('remember', '--scope', s, '--kind', 'constraint', 'Never commit secrets.')
    await cli('remember', '--scope', s, '--kind', 'fact', 'Secrets live in the vault.')
    await cli('remember', '--scope', 'cli:context-user', '--kind', 'preference', 'Terse answers.')
    const recall = await cli('context', '--scope', s, 'where', 'do', 'secrets', 'live?')
    expect(recall.code).toBe(0)
    const lines = recall.out.trimEnd().split('\n')
    expect(lines[0]).toBe(
      'Project memory of scope cli:context (the scope_id of the PowerContext memory tools).',
    )
    expect(lines[1]).toBe('PowerContext prepared untrusted historical context.')
    expect(lines.at(-3)).toBe('BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1')
    expect(lines.at(-1)).toBe('END_POWERCONTEXT_PREPARED_CONTEXT_V1')
    expect(lines.at(-2)).toContain('"content":"Secrets live in the vault."')
    const brief = await json<{ status: string; content: string; content_bytes: number }>(
      'context',
      '--scope',
      s,
      '--extra-scope',
      'cli:context-user',
      '--max-bytes',
      '1000',
    )
    expect(brief.status).toBe('ready')
    expect(brief.content).toContain('"scope_id":"cli:context-user"')
    expect(brief.content).toContain('Never commit secrets.')
    expect(brief.content).not.toContain('vault')
    expect(brief.content_bytes).toBeLessThanOrEqual(1000)
    const empty = await cli('context', '--scope', s, 'zebra')
    expect([empty.code, empty.out]).toEqual([0, 'empty: no memory to prepare\n'])
    expect((await cli('context', '--scope', s, '--max-bytes', '100', 'x')).code).toBe(1)
  })

  it('adds a batch from an entries file', async () => {
    const file = join(dataDir, 'entries.json')
    writeFileSync(
      file,
      JSON.stringify([
        { kind: 'fact', text: 'alpha one' },
        { kind: 'preference', text: 'beta two', observed_at: '2024-05-01T10:00:00+02:00' },
      ]),
    )
    const r = await json<{ results: { memory: WireMemory & { observed_at: string | null } }[] }>(
      'remember',
      '--scope',
      'cli:batch',
      '--entries',
      file,
    )
    expect(r.results.map((x) => x.memory.text)).toEqual(['alpha one', 'beta two'])
    expect(r.results[1]?.memory.observed_at).toBe('2024-05-01T08:00:00.000Z')
  })

  it('verifies and rebuilds the data directory', async () => {
    const verify = await cli('admin', 'verify')
    expect(verify.code).toBe(0)
    expect(verify.out).toMatch(/^ok: \d+ memories/)
    const rebuild = await cli('admin', 'rebuild')
    expect(rebuild.code).toBe(0)
    expect(rebuild.out).toMatch(/rebuilt: \d+ active memories/)
    expect((await cli('admin', 'verify')).code).toBe(0)
  })

  it('reports typed errors with exit code 1 and usage errors with 2', async () => {
    const missing = await cli('get', '--scope', scope, 'mem_00000000000000000000000000')
    expect(missing).toMatchObject({ code: 1 })
    expect(missing.err).toContain('error: memory_not_found:')
    const badLimit = await cli('--json', 'search', '--scope', scope, '--limit', '0', 'x')
    expect(badLimit.code).toBe(1)
    expect(JSON.parse(badLimit.err)).toMatchObject({ error: { code: 'invalid_request' } })
    expect((await cli('search', '--scope', scope, '--limit', 'abc', 'x')).code).toBe(2)
    expect((await cli('nonsense')).code).toBe(2)
    const blank = await cli('remember', '--scope', scope, '   ')
    expect(blank.code).toBe(1)
    expect(blank.err).toContain('invalid_request')
  })

  it('merges, previews a restore and applies it with the preview token', async () => {
    const scope = 'cli:merge'
    const ids: string[] = []
    for (const text of ['merge alpha', 'merge beta']) {
      const r = await json<{ results: { memory: WireMemory }[] }>(
        'remember',
        '--scope',
        scope,
        text,
      )
      ids.push(r.results[0]!.memory.memory_ref.artifact_id)
    }
    const merged = await json<{ merge_id: string; memory: WireMemory; inputs: WireMemory[] }>(
      'merge',
      '--scope',
      scope,
      '--text',
      'merge alpha and beta',
      `${ids[0]}@1`,
      `${ids[1]}@1`,
    )
    expect(merged.merge_id).toMatch(/^mrg_/)
    expect(merged.inputs.map((m) => m.state)).toEqual(['merged', 'merged'])
    const preview = await json<{
      plan: { restore: { memory_id: string }[]; retire: { memory_id: string }[] }
      preview_token: string
    }>('restore', '--scope', scope, '--preview', ids[0]!)
    expect(preview.plan.restore.map((r) => r.memory_id).sort()).toEqual([...ids].sort())
    expect(preview.plan.retire.map((r) => r.memory_id)).toEqual([
      merged.memory.memory_ref.artifact_id,
    ])
    const restored = await json<{ status: string; retired: WireMemory[] }>(
      'restore',
      '--scope',
      scope,
      '--preview-token',
      preview.preview_token,
      ids[0]!,
    )
    expect(restored.status).toBe('restored')
    expect(restored.retired.map((m) => m.state)).toEqual(['retired'])
    const stale = await cli(
      'restore',
      '--scope',
      scope,
      '--preview-token',
      preview.preview_token,
      ids[1]!,
    )
    expect(stale.code).toBe(1)
    expect(stale.err).toContain('preview_stale')
    // Inputs without @REVISION: the CLI rejects the command line (usage, exit 2).
    const bad = await cli('merge', '--scope', scope, '--text', 'x', ids[0]!, ids[1]!)
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('expected MEMORY_ID@REVISION')
  })
})

describe('powercontext changes pages the log', () => {
  it('one page says where the next starts; --all follows next_since over 1,000+ changes', async () => {
    const scope = 'cli:paged'
    const file = join(dataDir, 'entries.json')
    for (let b = 0; b < 11; b++) {
      const entries = Array.from({ length: 100 }, (_, i) => ({
        kind: 'fact',
        text: `page ${b} ${i}`,
      }))
      writeFileSync(file, JSON.stringify(b === 10 ? entries.slice(0, 5) : entries))
      expect((await cli('remember', '--scope', scope, '--entries', file)).code).toBe(0)
    }
    const page = await json<{
      changes: unknown[]
      head_seq: number
      has_more: boolean
      next_since: number
    }>('changes', '--scope', scope)
    expect(page.changes).toHaveLength(1000)
    expect(page).toMatchObject({ head_seq: 1005, has_more: true, next_since: 1000 })
    const text = await cli('changes', '--scope', scope, '--since', '990')
    expect(text.out.trim().split('\n').slice(-1)).toEqual(['head seq: 1005'])
    const cut = await cli('changes', '--scope', scope, '--limit', '3')
    expect(cut.out.trim().split('\n').slice(-2)).toEqual([
      'head seq: 1005',
      'more after seq 3: add --since 3 (or --all)',
    ])
    const all = await json<{ changes: { seq: number }[]; has_more: boolean; next_since: number }>(
      'changes',
      '--scope',
      scope,
      '--all',
      '--limit',
      '400',
    )
    expect(all.changes.map((c) => c.seq)).toEqual(Array.from({ length: 1005 }, (_, i) => i + 1))
    expect(all).toMatchObject({ has_more: false, next_since: 1005 })
    const beyond = await cli('changes', '--scope', scope, '--since', '1006')
    expect(beyond.code).not.toBe(0)
    expect(beyond.err).toMatch(/invalid_request: since: 1006 is beyond/)
  }, 120_000)
})
