/*
 * `admin upgrade-from-reference` from a SQLite database of the Python reference (docs/upgrade.md):
 * reference databases written with the reference's tables and Pydantic payload bytes
 * (make_reference_db.py); every old citation resolves to the same text afterwards; the old tables
 * stay untouched; reruns move nothing twice; interrupted runs resume; the preflight refuses
 * unknown schemas, databases being written and, by default, anything it cannot map.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { PowerContextError } from '../../src/core/errors.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import type { UpgradeReport } from '../../src/runtime/reference-upgrade.js'
import { expectCode } from '../conformance/memory-backend.case.js'
import {
  expectCitationsResolve,
  legacyCitationOf,
  makeReferenceDb,
  referenceCitations,
  sqliteReferenceDigest,
} from './reference-fixture.js'

const root = mkdtempSync(join(tmpdir(), 'pc-upgrade-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const fresh = (label: string): string => join(root, `${label}-${(n += 1)}`)

const A = 'git:github.com/acme/api'

async function upgraded(
  reference: string,
  options: Parameters<MemoryRuntime['upgradeFromReference']>[1] = {},
): Promise<{ rt: MemoryRuntime; report: UpgradeReport; dataDir: string }> {
  const dataDir = fresh('data')
  const rt = await MemoryRuntime.open({ dataDir })
  const report = await rt.upgradeFromReference(reference, options)
  return { rt, report, dataDir }
}

describe('upgrade from a SQLite reference database', () => {
  const reference = makeReferenceDb(join(root, 'basic.db'))
  const citations = referenceCitations(reference)

  it('moves every scope, entry version, source and cursor; every old citation reads its text', async () => {
    const before = sqliteReferenceDigest(reference)
    const { rt, report } = await upgraded(reference)
    try {
      expect(report.outcome).toBe('upgraded')
      expect(report.moved).toMatchObject({
        scopes: 3,
        entries: 7,
        versions: 10,
        inactive: 1,
        sources: 9,
        cursors: 2,
        citations: 10,
      })
      expect(report.toMove).toMatchObject({ scopes: 3, entries: 7, versions: 10, sources: 9 })
      expect((await rt.verify()).problems).toEqual([])
      expect(citations).toHaveLength(10)
      await expectCitationsResolve(rt, citations)
      // The old database is the archive: not one row changed.
      expect(sqliteReferenceDigest(reference)).toBe(before)
    } finally {
      await rt.close()
    }
  })

  it('keeps versions in order, inactive entries forgotten with their reason, and reactivations', async () => {
    const { rt } = await upgraded(reference)
    try {
      const all = await rt.list({ scopeId: A, states: ['active', 'forgotten'] })
      expect(all.memories.map((m) => [m.kind, m.state, m.memoryRef.revision]).sort()).toEqual(
        [
          ['constraint', 'active', 1],
          ['decision', 'active', 1],
          ['fact', 'active', 2],
          ['preference', 'active', 2],
          ['working_note', 'forgotten', 1],
        ].sort(),
      )
      const region = all.memories.find((m) => m.kind === 'fact')!
      const history = await rt.history({ scopeId: A, memoryId: region.memoryRef.artifactId })
      expect(history.versions.map((v) => v.text)).toEqual([
        '默认部署区域为华东',
        '默认部署区域改为华北（2026 年起）',
      ])
      expect(history.transitions.map((t) => [t.op, t.reason])).toEqual([
        ['add', null],
        ['update', 'region moved'],
      ])
      const note = all.memories.find((m) => m.kind === 'working_note')!
      const noteHistory = await rt.history({ scopeId: A, memoryId: note.memoryRef.artifactId })
      expect(noteHistory.transitions.map((t) => [t.op, t.toState, t.reason])).toEqual([
        ['add', 'active', 'explicit remember'],
        ['forget', 'forgotten', 'done'],
      ])
      const decision = all.memories.find((m) => m.kind === 'decision')!
      expect(decision.sources.map((s) => s.sourceId)).toContain('note-zeta')

      const b = citations.find((c) => c.scopeId.startsWith('local:'))!.scopeId
      const editor = (await rt.list({ scopeId: b })).memories.find((m) => m.kind === 'preference')!
      const bh = await rt.history({ scopeId: b, memoryId: editor.memoryRef.artifactId })
      expect(bh.transitions.map((t) => [t.op, t.reason])).toEqual([
        ['add', null],
        ['forget', 'switched editors'],
        ['restore', 'switched back'],
        ['update', 'detail'],
      ])
      const hits = await rt.search({ scopeId: A, query: '部署区域' })
      expect(hits.hits[0]?.text).toBe('默认部署区域改为华北（2026 年起）')
    } finally {
      await rt.close()
    }
  })

  it('carries sources at their positions with their exact original bytes, and the cursor', async () => {
    const { rt, dataDir } = await upgraded(reference)
    try {
      const zetaView = await rt.getSources({ scopeId: A, sourceIds: ['note-zeta'] })
      expect(zetaView.sources[0]?.legacyPayload).toBe(
        '{"name":"note-zeta","materialization":"captured","description":null,"content":"Decision log excerpt","metadata":{"zeta":1,"alpha":{"nested":["x",2.5]},"说明":"中文"}}',
      )
      expect(zetaView.sources[0]?.metadata).toEqual({
        zeta: 1,
        alpha: { nested: ['x', 2.5] },
        说明: '中文',
      })
      const old = new Database(reference, { readonly: true })
      const oldRows = old
        .prepare(
          'SELECT scope_id, source_id, payload, journal_position FROM pc_sources ORDER BY scope_id, journal_position',
        )
        .all() as {
        scope_id: string
        source_id: string
        payload: Buffer
        journal_position: number
      }[]
      old.close()
      await rt.close()
      const db = new Database(join(dataDir, 'powercontext.db'), { readonly: true })
      for (const r of oldRows) {
        const here = db
          .prepare('SELECT position, payload FROM sources WHERE scope_id = ? AND source_id = ?')
          .get(r.scope_id, r.source_id) as { position: number; payload: string }
        expect(here.position).toBe(r.journal_position)
        const original = JSON.parse(r.payload.toString('utf8')) as {
          content: string
          metadata: object
        }
        const payload = JSON.parse(here.payload) as { content: string; metadata: object }
        expect(payload.content).toBe(original.content)
        expect(payload.metadata).toEqual(original.metadata)
        const kept = db
          .prepare(
            'SELECT payload FROM legacy_source_payloads WHERE scope_id = ? AND source_id = ?',
          )
          .get(r.scope_id, r.source_id) as { payload: Buffer }
        expect(Buffer.compare(kept.payload, r.payload)).toBe(0)
      }
      const zeta = db
        .prepare("SELECT payload FROM legacy_source_payloads WHERE source_id = 'note-zeta'")
        .get() as { payload: Buffer }
      // Key order and bytes as the reference wrote them (not the canonical order).
      expect(zeta.payload.toString('utf8')).toContain(
        '"metadata":{"zeta":1,"alpha":{"nested":["x",2.5]},"说明":"中文"}',
      )
      const cursors = db
        .prepare('SELECT scope_id, position FROM source_cursors ORDER BY scope_id')
        .all()
      expect(cursors).toEqual([
        { scope_id: A, position: 4 },
        { scope_id: citations.find((c) => c.scopeId.startsWith('local:'))!.scopeId, position: 1 },
      ])
      db.close()
      // Flush goes on from the carried cursor: only position 5 is new.
      const again = await MemoryRuntime.open({ dataDir })
      const flushed = await again.flush({ scopeId: A })
      expect([flushed.previousCursor, flushed.cursor]).toEqual([4, 5])
      expect((await again.verify()).ok).toBe(true)
      await again.close()
    } finally {
      await rt.close().catch(() => undefined)
    }
  })

  it('moves nothing twice, and reports a scope the reference wrote into after its upgrade', async () => {
    const ref = join(root, 'rerun.db')
    copyFileSync(reference, ref)
    const { rt } = await upgraded(ref)
    try {
      const rerun = await rt.upgradeFromReference(ref)
      expect(rerun.outcome).toBe('nothing_to_do')
      expect(rerun.alreadyUpgraded).toBe(3)
      const w = new Database(ref)
      w.prepare("INSERT INTO pc_sources VALUES (?, 'content', 'late', ?, 6)").run(
        A,
        Buffer.from(
          '{"name":"late","materialization":"captured","description":null,"content":"late","metadata":{}}',
        ),
      )
      w.close()
      const third = await rt.upgradeFromReference(ref)
      expect(third.notMoved.map((p) => [p.legacyScopeId, p.status])).toEqual([[A, 'changed']])
      expect(
        (await rt.list({ scopeId: A, states: ['active', 'forgotten'] })).memories,
      ).toHaveLength(5)
      expect((await rt.verify()).ok).toBe(true)
    } finally {
      await rt.close()
    }
  })

  it('resumes an interrupted run: finished scopes stay, the one under way rolled back', async () => {
    const dataDir = fresh('resume')
    const rt = await MemoryRuntime.open({ dataDir })
    try {
      let scopes = 0
      await expect(
        rt.upgradeFromReference(reference, {
          onProgress: (p) => {
            if (p.phase !== 'upgrade') return
            if (p.scopesDone === 1 && (scopes += 1) >= 1) throw new Error('power cut')
          },
        }),
      ).rejects.toThrow()
      const states = await Promise.all(
        [...new Set(citations.map((c) => c.scopeId))].map((s) => rt.backend.legacyScopeState(s)),
      )
      expect(states.filter((s) => s.upgrade !== undefined)).toHaveLength(1)
      expect(states.filter((s) => s.holdsData)).toHaveLength(1)
      expect((await rt.verify()).ok).toBe(true)
      const resumed = await rt.upgradeFromReference(reference)
      expect(resumed.outcome).toBe('upgraded')
      expect(resumed.alreadyUpgraded).toBe(1)
      expect(resumed.moved.scopes).toBe(2)
      expect((await rt.verify()).ok).toBe(true)
      const memories = await rt.list({ scopeId: A, states: ['active', 'forgotten'] })
      expect(memories.memories).toHaveLength(5)
    } finally {
      await rt.close()
    }
  })

  it('a dry run rehearses every scope and writes nothing', async () => {
    const { rt, report } = await upgraded(reference, { dryRun: true })
    try {
      expect(report.outcome).toBe('rehearsed')
      expect(report.moved).toMatchObject({ scopes: 3, versions: 10, sources: 9, citations: 10 })
      for (const c of citations) {
        const state = await rt.backend.legacyScopeState(c.scopeId)
        expect(state).toEqual({ upgrade: undefined, holdsData: false })
      }
      expect((await rt.verify()).counts.memories).toBe(0)
    } finally {
      await rt.close()
    }
  })

  it('upgrades in place: the reference tables in the very file this runtime uses', async () => {
    const dataDir = fresh('inplace')
    const file = join(dataDir, 'powercontext.db')
    const rt0 = await MemoryRuntime.open({ dataDir })
    await rt0.close()
    rmSync(file)
    makeReferenceDb(file)
    const before = sqliteReferenceDigest(file)
    const rt = await MemoryRuntime.open({ dataDir })
    try {
      const report = await rt.upgradeFromReference(file)
      expect(report.outcome).toBe('upgraded')
      expect(report.moved.versions).toBe(10)
      expect((await rt.verify()).ok).toBe(true)
    } finally {
      await rt.close()
    }
    expect(sqliteReferenceDigest(file)).toBe(before)
  })
})

describe('get by an old citation', () => {
  const reference = makeReferenceDb(join(root, 'cite.db'))
  const [first] = referenceCitations(reference)
  const legacy = (over: Partial<{ revision: number; entryVersionId: string; family: string }>) => ({
    memoryRef: {
      family: over.family ?? 'memory',
      artifactId: first!.citation.memory_ref.artifact_id,
      revision: over.revision ?? first!.citation.memory_ref.revision,
    },
    entryId: first!.citation.entry_id,
    entryVersionId: over.entryVersionId ?? first!.citation.entry_version_id,
  })

  it('is memory_not_found for an unknown or impossible citation, invalid_request for a bad one', async () => {
    const { rt } = await upgraded(reference)
    try {
      const scopeId = first!.scopeId
      expect((await rt.get({ scopeId, legacyCitation: legacy({}) })).memory.text).toBe(first!.text)
      await expectCode(
        rt.get({ scopeId, legacyCitation: legacy({ entryVersionId: 'mem_ver_nope' }) }),
        'memory_not_found',
      )
      await expectCode(
        rt.get({ scopeId: 'other:scope', legacyCitation: legacy({}) }),
        'memory_not_found',
      )
      if (first!.citation.memory_ref.revision > 1) {
        await expectCode(
          rt.get({ scopeId, legacyCitation: legacy({ revision: 1 }) }),
          'memory_not_found',
        )
      }
      await expectCode(
        rt.get({ scopeId, legacyCitation: legacy({ family: 'handoff' }) }),
        'invalid_request',
      )
      await expectCode(
        rt.get({ scopeId, memoryId: 'mem_x', legacyCitation: legacy({}) }),
        'invalid_request',
      )
    } finally {
      await rt.close()
    }
  })

  it('works from the command line with --legacy-citation', async () => {
    const { rt, dataDir } = await upgraded(reference)
    await rt.close()
    const out: string[] = []
    const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s) }
    const code = await main(
      [
        'node',
        'powercontext',
        '--data-dir',
        dataDir,
        '--json',
        'get',
        '--scope',
        first!.scopeId,
        '--legacy-citation',
        JSON.stringify(first!.citation),
      ],
      io,
    )
    expect(out.join('\n')).not.toMatch(/error/)
    expect(code).toBe(0)
    expect((JSON.parse(out.join('')) as { memory: { text: string } }).memory.text).toBe(first!.text)
  })
})

describe('preflight refusals', () => {
  it('refuses an unknown schema and writes nothing', async () => {
    const ref = makeReferenceDb(join(root, 'unknown.db'), ['--bad', 'unknown-column'])
    const { rt, report } = await upgraded(ref)
    try {
      expect(report.outcome).toBe('refused')
      expect(report.refused).toEqual(['table pc_sources has unknown columns captured_at'])
      expect((await rt.verify()).counts.memories).toBe(0)
    } finally {
      await rt.close()
    }
  })

  it('refuses a file that is not a reference database', async () => {
    const dataDir = fresh('notref')
    const rt = await MemoryRuntime.open({ dataDir })
    try {
      const report = await rt.upgradeFromReference(join(dataDir, 'powercontext.db'))
      expect(report.outcome).toBe('refused')
      await expectCode(rt.upgradeFromReference(join(dataDir, 'missing.db')), 'invalid_request')
    } finally {
      await rt.close()
    }
  })

  it('refuses while the reference database is being written, and holds writers off while it runs', async () => {
    const ref = makeReferenceDb(join(root, 'busy.db'))
    const writer = new Database(ref)
    writer.pragma('busy_timeout = 0')
    writer.exec('BEGIN IMMEDIATE')
    const dataDir = fresh('busy')
    const rt = await MemoryRuntime.open({ dataDir })
    try {
      await expectCode(rt.upgradeFromReference(ref), 'state_conflict')
      writer.exec('ROLLBACK')
      let blocked: string | undefined
      const report = await rt.upgradeFromReference(ref, {
        onProgress: () => {
          if (blocked !== undefined) return
          try {
            writer.exec('BEGIN IMMEDIATE')
            writer.exec('ROLLBACK')
            blocked = 'no'
          } catch (err) {
            blocked = (err as { code?: string }).code ?? 'error'
          }
        },
      })
      expect(report.outcome).toBe('upgraded')
      expect(blocked).toBe('SQLITE_BUSY')
    } finally {
      writer.close()
      await rt.close()
    }
  })
})

describe('what cannot be mapped', () => {
  const cases: [string, RegExp][] = [
    ['unicode-scope', /scope id "项目:中文" is not valid here .*--map-scope/],
    ['long-scope', /scope id "git:x+" is not valid here \(scope_id: must be 1–128 characters\)/],
    ['artifact-ref', /cites the artifact handoff\/handoff@1, which has no atomic counterpart/],
    ['skill-source', /of type external-skill-snapshot, which has no counterpart here/],
    ['big-int', /holds the integer 12345678901234567890, beyond what is kept exactly/],
    [
      'secret',
      /source prompt-1: content: looks like a credential \(rule aws_access_key_id\); refused\n.* version 1 text is not accepted here: text: looks like a credential \(rule credential_assignment\); refused$/,
    ],
  ]
  for (const [bad, message] of cases) {
    it(`lists ${bad}, refuses by default, and moves the rest with skipUnmappable`, async () => {
      const ref = makeReferenceDb(join(root, `${bad}.db`), ['--bad', bad])
      const { rt, report } = await upgraded(ref)
      try {
        expect(report.outcome).toBe('unmappable')
        expect(report.notMoved).toHaveLength(1)
        expect(report.notMoved[0]?.problems.join('\n')).toMatch(message)
        expect((await rt.verify()).counts.memories).toBe(0)
        const partial = await rt.upgradeFromReference(ref, { skipUnmappable: true })
        expect(partial.outcome).toBe('upgraded')
        expect(partial.moved.scopes).toBe(3)
        expect(partial.notMoved.map((p) => p.status)).toEqual(['blocked'])
        expect((await rt.verify()).ok).toBe(true)
      } finally {
        await rt.close()
      }
    })
  }

  it('moves a scope whose old id is not valid here under --map-scope, its citations with it', async () => {
    const ref = makeReferenceDb(join(root, 'mapped.db'), ['--bad', 'unicode-scope'])
    const cited = referenceCitations(ref).find((c) => c.scopeId === '项目:中文')!
    const { rt, report } = await upgraded(ref, {
      mapScopes: new Map([['项目:中文', 'project:zh']]),
    })
    try {
      expect(report.outcome).toBe('upgraded')
      expect(report.moved.scopes).toBe(4)
      const got = await rt.get({
        scopeId: 'project:zh',
        legacyCitation: legacyCitationOf(cited.citation),
      })
      expect(got.memory.text).toBe('作用域名是中文')
      expect((await rt.backend.legacyScopeState('project:zh')).upgrade?.legacyScopeId).toBe(
        '项目:中文',
      )
    } finally {
      await rt.close()
    }
  })
})

/** Runs `powercontext --data-dir DIR admin upgrade-from-reference --from REF …`. */
const upgradeCli = (
  io: { out(s: string): void; err(s: string): void },
  dataDir: string,
  from: string,
  ...more: string[]
): Promise<number> =>
  main(
    [
      'node',
      'powercontext',
      '--data-dir',
      dataDir,
      'admin',
      'upgrade-from-reference',
      '--from',
      from,
      ...more,
    ],
    io,
  )

describe('the command', () => {
  it('prints the preflight and the result, and exits 1 when something cannot be mapped', async () => {
    const ok = makeReferenceDb(join(root, 'cli.db'))
    const lines: string[] = []
    const io = { out: (s: string) => lines.push(s), err: (s: string) => lines.push(`ERR ${s}`) }
    const dataDir = fresh('cli')
    expect(await upgradeCli(io, dataDir, ok, '--dry-run')).toBe(0)
    expect(lines.join('\n')).toMatch(
      /rehearsed \(dry run, rolled back\): 3 scopes, 7 memories \(10 versions, 1 forgotten\)/,
    )
    lines.length = 0
    expect(await upgradeCli(io, dataDir, ok)).toBe(0)
    const text = lines.join('\n')
    expect(text).toMatch(
      /to move: 3 scopes, 7 entries → memories \(10 versions, 1 forgotten\), 9 sources, 2 cursors/,
    )
    expect(text).toMatch(/1 handoff artifacts \(1 revisions\)/)
    expect(text).toMatch(/1 experience-incubation cursors/)
    expect(text).toMatch(/upgraded: 3 scopes/)
    expect(text).toMatch(/verify: ok/)
    const bad = makeReferenceDb(join(root, 'cli-bad.db'), ['--bad', 'artifact-ref'])
    lines.length = 0
    expect(await upgradeCli(io, fresh('cli'), bad)).toBe(1)
    expect(lines.join('\n')).toMatch(/unmappable: scope "project:refs"/)
    expect(await upgradeCli(io, fresh('cli'), ok, '--map-scope', 'nope')).toBe(2)
  })

  it('is a typed error, never a crash, for a reference it cannot open', async () => {
    const lines: string[] = []
    const io = { out: (s: string) => lines.push(s), err: (s: string) => lines.push(s) }
    const code = await main(
      [
        'node',
        'powercontext',
        '--data-dir',
        fresh('cli'),
        'admin',
        'upgrade-from-reference',
        '--from',
        join(root, 'nope.db'),
      ],
      io,
    )
    expect(code).toBe(1)
    expect(lines.join('\n')).toMatch(/error: invalid_request: no reference database file/)
    expect(PowerContextError).toBeDefined()
  })
})
