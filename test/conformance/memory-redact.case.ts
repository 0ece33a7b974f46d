/*
 * Conformance: the administrative erase (`admin redact`, docs/storage.md "Redaction"). The text of
 * a source or of one memory version is replaced by a marker and leaves every projection; ids,
 * versions, hashes and the change feed stay, the redaction takes a change seq, verify stays clean
 * and export/import carry it.
 */
import { expect } from 'vitest'

import { REDACTED_TEXT } from '../../src/core/redaction.js'
import { findSecret } from '../../src/core/secret-rules.js'
import type { ExportRecord } from '../../src/storage/spi/export-types.js'
import { plantSourceContent, plantVersionText } from '../support/planted-secrets.js'
import type { ConformanceSuite } from './harness.case.js'
import { ALL_STATES, expectCode, newScope, rememberOne, searchIds, unsafe } from './harness.case.js'

/**
 * Synthetic credentials of two providers' shapes (never real). The server refuses to store them,
 * so only the scan test has them, planted as rows an older build wrote.
 */
const AWS_KEY = 'AKIAQ7ZX3EXAMPLE2KEY'
const GITHUB_TOKEN = 'ghp_R3dact1onTestT0kenAbcdefGhijkLmnopQr'
/** Personal data, which an administrator erases just the same (no secret rule matches it). */
const PHONE = '+1 415 555 0142'

/** Tests that need {@link ConformanceOptions.plantRows} (a raw connection to the database). */
export const PLANTED_ROW_TESTS = [
  'redact > scan: a dry run lists ids and rules only; the run erases exactly the matches',
]

/** The rule the shared rule set names first for a text (src/core/secret-rules.ts). */
async function ruleOf(text: string): Promise<string> {
  return ((await findSecret(text)) as { rule: string }).rule
}

export function redactArea(suite: ConformanceSuite): void {
  suite.area('redact', (t) => {
    t.test('a version: marker with time and reason, out of search, hash and ids kept', async () => {
      const b = t.backend
      const scopeId = newScope()
      const m = await rememberOne(b, scopeId, {
        kind: 'fact',
        text: `call Dana Whitfield on ${PHONE} about invoices`,
      })
      const memoryId = m.memoryRef.artifactId
      expect(await searchIds(b, scopeId, 'Whitfield invoices')).toEqual([memoryId])
      const before = await b.changes({ scopeId, since: 0 })
      const r = await b.redact({
        scopeId,
        target: { memoryRef: m.memoryRef },
        reason: 'personal data',
      })
      expect(r.dryRun).toBe(false)
      expect(r.items).toEqual([
        {
          target: 'version',
          sourceId: null,
          memoryRef: m.memoryRef,
          recordId: null,
          rule: null,
          fields: [],
          status: 'redacted',
          seq: before.headSeq + 1,
        },
      ])
      const got = await b.get({ scopeId, memoryId })
      expect(got.memory.text).toBe(REDACTED_TEXT)
      expect(got.memory.contentHash).toBe(m.contentHash)
      expect(got.memory.memoryRef).toEqual(m.memoryRef)
      expect(got.state).toBe('active')
      expect(got.memory.redaction).toEqual({
        redactedAt: expect.any(String),
        reason: 'personal data',
        rule: null,
      })
      const history = await b.history({ scopeId, memoryId })
      expect(history.versions.map((v) => v.text)).toEqual([REDACTED_TEXT])
      expect(JSON.stringify(history)).not.toContain(PHONE)
      expect(JSON.stringify(history)).not.toContain('Whitfield')
      expect(await searchIds(b, scopeId, 'Whitfield invoices')).toEqual([])
      const listed = await b.list({ scopeId, states: ALL_STATES })
      expect(listed.memories.map((x) => x.text)).toEqual([REDACTED_TEXT])
      expect((await b.recent({ scopeIds: [scopeId] })).memories).toEqual([])
      const feed = await b.changes({ scopeId, since: before.headSeq })
      expect(feed.headSeq).toBe(before.headSeq + 1)
      expect(feed.changes).toEqual([])
      expect(feed.redactions).toEqual([
        expect.objectContaining({
          seq: before.headSeq + 1,
          target: 'version',
          reason: 'personal data',
        }),
      ])
      // A repeat is a no-op naming the first redaction.
      const again = await b.redact({ scopeId, target: { memoryRef: m.memoryRef } })
      expect(again.items[0]).toMatchObject({ status: 'unchanged', seq: before.headSeq + 1 })
      expect(again.erasure).not.toBeNull()
      expect((await b.verify()).problems).toEqual([])
    })

    t.test(
      'an erased current version takes new text only; its old text cannot come back',
      async () => {
        const b = t.backend
        const scopeId = newScope()
        const m = await rememberOne(b, scopeId, {
          kind: 'fact',
          text: `Dana's mobile is ${PHONE}`,
        })
        await b.redact({ scopeId, target: { memoryRef: m.memoryRef } })
        await expectCode(
          b.update({ scopeId, memoryRef: m.memoryRef, kind: 'decision' }),
          'invalid_request',
        )
        const u = await b.update({
          scopeId,
          memoryRef: m.memoryRef,
          text: "Dana's mobile number lives in the CRM",
        })
        expect(u.memory.memoryRef.revision).toBe(2)
        expect(await searchIds(b, scopeId, 'mobile CRM')).toEqual([m.memoryRef.artifactId])
        await b.forget({ scopeId, memoryId: m.memoryRef.artifactId })
        await expectCode(
          b.restore({ scopeId, memoryId: m.memoryRef.artifactId, toRevision: 1 }),
          'invalid_request',
        )
        expect((await b.get({ scopeId, memoryId: m.memoryRef.artifactId })).state).toBe('forgotten')
        expect((await b.verify()).problems).toEqual([])
      },
    )

    t.test('a source: marker content, no metadata, repeats stay idempotent', async () => {
      const b = t.backend
      const scopeId = newScope()
      const content = `Dana Whitfield, mobile ${PHONE}, 12 Elm Street`
      const metadata = { note: 'pasted contact card' }
      const first = await b.captureSource({ scopeId, sourceId: 'card', content, metadata })
      const r = await b.redact({ scopeId, target: { sourceId: 'card' } })
      expect(r.items[0]).toMatchObject({ target: 'source', sourceId: 'card', status: 'redacted' })
      const [view] = (await b.getSources({ scopeId, sourceIds: ['card'] })).sources
      expect(view).toMatchObject({ content: REDACTED_TEXT, metadata: {}, legacyPayload: null })
      expect(view?.redaction).toMatchObject({ reason: 'redacted by an administrator', rule: null })
      expect(view?.position).toBe(first.position)
      const listed = await b.listSources({ scopeId })
      expect(JSON.stringify(listed)).not.toContain(PHONE)
      expect(JSON.stringify(listed)).not.toContain('contact card')
      const repeat = await b.captureSource({ scopeId, sourceId: 'card', content, metadata })
      expect(repeat).toMatchObject({ position: first.position, created: false })
      await expectCode(
        b.captureSource({ scopeId, sourceId: 'card', content: 'something else' }),
        'source_conflict',
      )
      expect((await b.verify()).problems).toEqual([])
    })

    t.test(
      'scan: a dry run lists ids and rules only; the run erases exactly the matches',
      async () => {
        const b = t.backend
        const scopeId = newScope()
        await b.captureSource({ scopeId, sourceId: 'clean', content: 'we use vault for keys' })
        await b.captureSource({ scopeId, sourceId: 'leak', content: 'placeholder' })
        const clean = await rememberOne(b, scopeId, {
          kind: 'fact',
          text: 'passwords live in vault',
        })
        const leak = await rememberOne(b, scopeId, { kind: 'fact', text: 'placeholder' })
        // Stored by an older build, before the server refused credentials.
        await t.plantRows(b, async (exec) => {
          await plantSourceContent(exec, scopeId, 'leak', `AWS key ${AWS_KEY}`)
          await plantVersionText(
            exec,
            leak.memoryRef.artifactId,
            'ci token rotates monthly',
            `was ${GITHUB_TOKEN}`,
          )
        })
        await b.rebuild()
        expect((await b.verify()).problems).toEqual([])
        expect(await searchIds(b, scopeId, 'token rotates monthly')).toEqual([
          leak.memoryRef.artifactId,
        ])
        const head = (await b.changes({ scopeId, since: 0 })).headSeq
        const dry = await b.redact({ scopeId, target: { scan: true }, dryRun: true })
        expect(dry.dryRun).toBe(true)
        expect(dry.erasure).toBeNull()
        expect(dry.items).toEqual([
          expect.objectContaining({
            target: 'source',
            sourceId: 'leak',
            rule: await ruleOf(`AWS key ${AWS_KEY}`),
            fields: ['content'],
            status: 'would_redact',
            seq: null,
          }),
          expect.objectContaining({
            target: 'version',
            memoryRef: leak.memoryRef,
            rule: await ruleOf(`was ${GITHUB_TOKEN}`),
            fields: ['reason'],
            status: 'would_redact',
          }),
        ])
        expect(JSON.stringify(dry)).not.toContain(AWS_KEY)
        expect((await b.changes({ scopeId, since: 0 })).headSeq).toBe(head)
        const run = await b.redact({ scopeId, target: { scan: true } })
        expect(run.items.map((i) => [i.status, i.seq])).toEqual([
          ['redacted', head + 1],
          ['redacted', head + 2],
        ])
        expect(run.erasure).not.toBeNull()
        const got = await b.get({ scopeId, memoryId: leak.memoryRef.artifactId })
        expect(got.memory.reason).toBe(REDACTED_TEXT)
        const rule = await ruleOf(`was ${GITHUB_TOKEN}`)
        expect(got.memory.redaction?.reason).toBe(`secret detected (${rule})`)
        expect(got.memory.redaction?.rule).toBe(rule)
        const changes = await b.changes({ scopeId, since: 0 })
        expect(JSON.stringify(changes)).not.toContain(GITHUB_TOKEN)
        expect((await b.get({ scopeId, memoryId: clean.memoryRef.artifactId })).memory.text).toBe(
          'passwords live in vault',
        )
        expect((await b.redact({ scopeId, target: { scan: true }, dryRun: true })).items).toEqual(
          [],
        )
        expect((await b.verify()).problems).toEqual([])
      },
    )

    t.test('bad input is refused with a typed error and writes nothing', async () => {
      const b = t.backend
      const scopeId = newScope()
      const m = await rememberOne(b, scopeId, { kind: 'fact', text: 'bad input target' })
      await b.captureSource({ scopeId, sourceId: 'ok', content: 'fine' })
      const head = (await b.changes({ scopeId, since: 0 })).headSeq
      const ref = m.memoryRef
      await expectCode(b.redact({ scopeId, target: { sourceId: 'nope' } }), 'source_not_found')
      await expectCode(
        b.redact({ scopeId, target: { memoryRef: { artifactId: ref.artifactId, revision: 9 } } }),
        'memory_not_found',
      )
      await expectCode(
        b.redact({ scopeId: newScope(), target: { memoryRef: ref } }),
        'memory_not_found',
      )
      await expectCode(
        b.redact({ scopeId, target: { sourceId: 'nope' }, dryRun: true }),
        'source_not_found',
      )
      await expectCode(
        b.redact({ scopeId, target: unsafe({ sourceId: 'ok', scan: true }) }),
        'invalid_request',
      )
      await expectCode(b.redact({ scopeId, target: unsafe({}) }), 'invalid_request')
      await expectCode(b.redact({ scopeId, target: unsafe({ scan: false }) }), 'invalid_request')
      await expectCode(
        b.redact({ scopeId, target: { sourceId: 'ok' }, reason: 'x'.repeat(513) }),
        'invalid_request',
      )
      await expectCode(b.redact({ scopeId: '', target: { scan: true } }), 'invalid_request')
      expect((await b.changes({ scopeId, since: 0 })).headSeq).toBe(head)
      expect((await b.get({ scopeId, memoryId: ref.artifactId })).memory.text).toBe(
        'bad input target',
      )
    })

    t.test('export and import carry redactions', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 's', content: `phone ${PHONE}` })
      const m = await rememberOne(b, scopeId, { kind: 'fact', text: `phone ${PHONE} again` })
      await b.forget({ scopeId, memoryId: m.memoryRef.artifactId })
      await b.redact({ scopeId, target: { sourceId: 's' }, reason: 'personal data' })
      await b.redact({ scopeId, target: { memoryRef: m.memoryRef }, reason: 'personal data' })
      const rows: ExportRecord[] = []
      await b.exportRows((r) => void rows.push(r))
      expect(JSON.stringify(rows)).not.toContain(PHONE)
      expect(rows.filter((r) => r.type === 'redaction')).not.toHaveLength(0)
      const copy = await t.open()
      await copy.importRows(rows)
      expect((await copy.verify()).problems).toEqual([])
      const got = await copy.get({ scopeId, memoryId: m.memoryRef.artifactId })
      expect(got.memory.text).toBe(REDACTED_TEXT)
      expect(got.memory.redaction).toEqual({
        redactedAt: expect.any(String),
        reason: 'personal data',
        rule: null,
      })
      const [source] = (await copy.getSources({ scopeId, sourceIds: ['s'] })).sources
      expect(source?.content).toBe(REDACTED_TEXT)
      expect(source?.redaction).toMatchObject({ reason: 'personal data', rule: null })
      const feed = await copy.changes({ scopeId, since: 0 })
      expect(feed.redactions?.map((x) => x.target)).toEqual(['source', 'version'])
      // An export whose erased version lost its record does not import.
      const broken = rows.filter((r) => r.type !== 'redaction' || r.row.target !== 'version')
      const end = broken.at(-1)
      if (end?.type === 'end')
        broken[broken.length - 1] = { ...end, counts: { ...end.counts, redaction: 1 } }
      await expectCode((await t.open()).importRows(broken), 'invalid_request')
    })
  })
}
