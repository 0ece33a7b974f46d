/*
 * Conformance: the administrative erase of flush decision records (docs/storage.md "Redaction").
 * A record is erased alone (`recordId`), with the source its window holds, or with the version its
 * flush wrote; it keeps ids, positions and counts; the scan reads its details; verify, the change
 * feed and export/import know it.
 */
import { expect } from 'vitest'

import { REDACTED_TEXT } from '../../src/core/redaction.js'
import { findSecret } from '../../src/core/secret-rules.js'
import type { ExportRecord } from '../../src/storage/spi/export-types.js'
import type { FlushRecordDraft } from '../../src/storage/spi/flush-types.js'
import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import { createDecision, flushWindow } from '../support/flush-window.js'
import { plantSourceContent } from '../support/planted-secrets.js'
import type { ConformanceSuite } from './harness.case.js'
import { expectCode, newScope, unsafe } from './harness.case.js'

/** Personal data (no secret rule matches it), which an administrator erases just the same. */
const PHONE = '+1 415 555 0177'
/** Synthetic credentials of two providers' shapes (never real), planted as an older build stored them. */
const AWS_KEY = 'AKIAR3C0RDEXAMPLEK3Y'
const GITHUB_TOKEN = 'ghp_Rec0rdRedact1onT0kenAbcdefGhijkLmnop'

/** Tests that need {@link ConformanceOptions.plantRows} (a raw connection to the database). */
export const PLANTED_RECORD_TESTS = [
  'redact records > a source erased before records were erased with it: a repeat erases them',
  'redact records > scan: a record quoting a secret is found, alone or with its source',
]

const draft = (details: Record<string, unknown>): FlushRecordDraft => ({
  mode: 'structured',
  model: null,
  promptVersion: null,
  details: details as FlushRecordDraft['details'],
})

async function recordOf(b: MemoryBackend, scopeId: string, recordId: string) {
  const [r] = (await b.journal.records({ scopeId, recordId })).records
  if (r === undefined) throw new Error(`no record ${recordId}`)
  return r
}

async function ruleOf(text: string): Promise<string> {
  return ((await findSecret(text)) as { rule: string }).rule
}

/** Raw SQL that puts a record's details back (as an older build left them). */
const SET_DETAILS = 'UPDATE flush_records SET details_json = ? WHERE scope_id = ? AND record_id = ?'

export function redactRecordArea(suite: ConformanceSuite): void {
  suite.area('redact records', (t) => {
    t.test('a record alone: ids, positions and counts stay, reads say redacted', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 'card', content: 'contact card pasted' })
      const res = await flushWindow(b, scopeId, 1, { candidates: [{ text: `Dana ${PHONE}` }] }, [
        createDecision('a contact card was pasted', 'card'),
      ])
      const recordId = res.recordId
      const before = await b.changes({ scopeId, since: 0 })
      const r = await b.redact({ scopeId, target: { recordId }, reason: 'personal data' })
      expect(r.items).toEqual([
        {
          target: 'record',
          sourceId: null,
          memoryRef: null,
          recordId,
          rule: null,
          fields: [],
          status: 'redacted',
          seq: before.headSeq + 1,
        },
      ])
      const got = await recordOf(b, scopeId, recordId)
      expect(JSON.stringify(got)).not.toContain(PHONE)
      expect(got).toMatchObject({ fromPosition: 0, toPosition: 1, operationId: res.operationId })
      expect(got.details).toEqual({
        applied: [
          {
            op: 'create',
            status: 'created',
            memory_id: res.applied[0]!.memory.memoryRef.artifactId,
            revision: 1,
          },
        ],
        change_seqs: res.changes.map((c) => c.seq),
        model_calls: 0,
        redacted: REDACTED_TEXT,
        skipped: [],
        window: { source_ids: ['card'] },
      })
      expect(got.redaction).toEqual({
        redactedAt: expect.any(String),
        reason: 'personal data',
        rule: null,
      })
      // The source and the memory are not touched.
      const [source] = (await b.getSources({ scopeId, sourceIds: ['card'] })).sources
      expect(source?.content).toBe('contact card pasted')
      expect(source?.redaction).toBeUndefined()
      const feed = await b.changes({ scopeId, since: before.headSeq })
      expect(feed.redactions).toEqual([
        expect.objectContaining({ target: 'record', recordId, sourceId: null, memoryRef: null }),
      ])
      const again = await b.redact({ scopeId, target: { recordId } })
      expect(again.items).toEqual([
        expect.objectContaining({ recordId, status: 'unchanged', seq: before.headSeq + 1 }),
      ])
      expect((await b.verify()).problems).toEqual([])
    })

    t.test('a source: the records whose window holds it are erased with it', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 'card', content: `Dana, mobile ${PHONE}` })
      await b.captureSource({ scopeId, sourceId: 'note', content: 'deploys go through CI' })
      const first = await flushWindow(b, scopeId, 2, { candidates: [{ text: `Dana ${PHONE}` }] })
      await b.captureSource({ scopeId, sourceId: 'later', content: 'port is 8080' })
      const second = await flushWindow(b, scopeId, 3, { candidates: [{ text: 'port is 8080' }] })
      const head = (await b.changes({ scopeId, since: 0 })).headSeq
      const dry = await b.redact({ scopeId, target: { sourceId: 'card' }, dryRun: true })
      expect(dry.items.map((i) => [i.target, i.sourceId ?? i.recordId, i.status])).toEqual([
        ['source', 'card', 'would_redact'],
        ['record', first.recordId, 'would_redact'],
      ])
      expect((await b.changes({ scopeId, since: 0 })).headSeq).toBe(head)
      const run = await b.redact({ scopeId, target: { sourceId: 'card' }, reason: 'pii' })
      expect(run.items.map((i) => [i.target, i.sourceId ?? i.recordId, i.status, i.seq])).toEqual([
        ['source', 'card', 'redacted', head + 1],
        ['record', first.recordId, 'redacted', head + 2],
      ])
      const records = (await b.journal.records({ scopeId })).records
      expect(JSON.stringify(records)).not.toContain(PHONE)
      expect(records[0]?.redaction).toMatchObject({ reason: 'pii', rule: null })
      expect(records[1]).toMatchObject({ recordId: second.recordId })
      expect(records[1]?.details['candidates']).toEqual([{ text: 'port is 8080' }])
      expect(records[1]?.redaction).toBeUndefined()
      const feed = await b.changes({ scopeId, since: head })
      expect(feed.redactions?.map((r) => [r.target, r.reason])).toEqual([
        ['source', 'pii'],
        ['record', 'pii'],
      ])
      expect((await b.verify()).problems).toEqual([])
    })

    t.test('a skipped source: its error message and its skip record go with it', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 'bad', content: `{"phone": "${PHONE}"` })
      const w = await b.journal.window({ scopeId })
      const failed = await b.journal.fail({
        scopeId,
        expected: w.cursor,
        through: 1,
        error: { code: 'invalid_request', message: `cannot parse {"phone": "${PHONE}"` },
        maxAttempts: 1,
        record: draft({ failure: { message: `cannot parse ${PHONE}` } }),
      })
      expect(failed.skipped).not.toBeNull()
      const r = await b.redact({ scopeId, target: { sourceId: 'bad' } })
      expect(r.items.map((i) => [i.target, i.sourceId ?? i.recordId])).toEqual([
        ['source', 'bad'],
        ['record', failed.recordId],
      ])
      const feed = await b.changes({ scopeId, since: 0 })
      expect(feed.skippedSources?.[0]?.error).toEqual({
        code: 'invalid_request',
        message: REDACTED_TEXT,
      })
      expect(JSON.stringify(feed)).not.toContain(PHONE)
      const rec = await recordOf(b, scopeId, failed.recordId!)
      expect(rec.details['skipped']).toEqual([
        {
          source_id: 'bad',
          position: 1,
          attempts: 1,
          error: { code: 'invalid_request', message: REDACTED_TEXT },
        },
      ])
      expect(JSON.stringify(rec)).not.toContain(PHONE)
      expect((await b.verify()).problems).toEqual([])
    })

    t.test('a version: the record of the flush that wrote it is erased with it', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 'call', content: 'call notes' })
      const res = await flushWindow(
        b,
        scopeId,
        1,
        { candidates: [{ text: `call Dana on ${PHONE}` }] },
        [createDecision(`call Dana on ${PHONE}`, 'call')],
      )
      const ref = res.applied[0]!.memory.memoryRef
      const r = await b.redact({ scopeId, target: { memoryRef: ref } })
      expect(r.items.map((i) => [i.target, i.memoryRef ?? i.recordId, i.status])).toEqual([
        ['version', ref, 'redacted'],
        ['record', res.recordId, 'redacted'],
      ])
      const rec = await recordOf(b, scopeId, res.recordId)
      expect(JSON.stringify(rec)).not.toContain(PHONE)
      expect((await b.get({ scopeId, memoryId: ref.artifactId })).memory.text).toBe(REDACTED_TEXT)
      // The source was not quoted by the version's erase: it stays.
      const [source] = (await b.getSources({ scopeId, sourceIds: ['call'] })).sources
      expect(source?.content).toBe('call notes')
      expect((await b.verify()).problems).toEqual([])
    })

    t.test('a source erased before records were erased with it: a repeat erases them', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 'card', content: `mobile ${PHONE}` })
      const res = await flushWindow(b, scopeId, 1, { candidates: [{ text: `mobile ${PHONE}` }] })
      const original = JSON.stringify((await recordOf(b, scopeId, res.recordId)).details)
      await b.redact({ scopeId, target: { sourceId: 'card' } })
      // As an older build left it: the source erased, its window's record not.
      await t.plantRows(b, async (exec) => {
        await exec(SET_DETAILS, [original, scopeId, res.recordId])
        await exec('DELETE FROM redactions WHERE scope_id = ? AND record_id = ?', [
          scopeId,
          res.recordId,
        ])
        // Its change seq was the scope's last one.
        await exec('UPDATE scopes SET change_seq = change_seq - 1 WHERE scope_id = ?', [scopeId])
      })
      expect(JSON.stringify(await recordOf(b, scopeId, res.recordId))).toContain(PHONE)
      const again = await b.redact({ scopeId, target: { sourceId: 'card' } })
      expect(again.items.map((i) => [i.target, i.status])).toEqual([
        ['source', 'unchanged'],
        ['record', 'redacted'],
      ])
      expect(JSON.stringify(await recordOf(b, scopeId, res.recordId))).not.toContain(PHONE)
      expect((await b.verify()).problems).toEqual([])
    })

    t.test('scan: a record quoting a secret is found, alone or with its source', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 'leak', content: 'placeholder' })
      const first = await flushWindow(b, scopeId, 1, { candidates: [{ text: 'placeholder' }] })
      await b.captureSource({ scopeId, sourceId: 'clean', content: 'we keep keys in vault' })
      const second = await flushWindow(b, scopeId, 2, { candidates: [{ text: 'placeholder' }] })
      await b.captureSource({ scopeId, sourceId: 'fine', content: 'ports are 80 and 443' })
      const third = await flushWindow(b, scopeId, 3, {
        candidates: [{ text: 'ports are 80 and 443' }],
      })
      const leakText = `AWS key ${AWS_KEY}`
      const quoted = `token ${GITHUB_TOKEN}`
      // Stored by an older build, before the server refused credentials.
      await t.plantRows(b, async (exec) => {
        await plantSourceContent(exec, scopeId, 'leak', leakText)
        const withKey = { candidates: [{ text: leakText }], window: { source_ids: ['leak'] } }
        await exec(SET_DETAILS, [JSON.stringify(withKey), scopeId, first.recordId])
        const withToken = { proposals: { raw: quoted }, window: { source_ids: ['clean'] } }
        await exec(SET_DETAILS, [JSON.stringify(withToken), scopeId, second.recordId])
      })
      expect((await b.verify()).problems).toEqual([])
      const dry = await b.redact({ scopeId, target: { scan: true }, dryRun: true })
      expect(dry.items).toEqual([
        expect.objectContaining({
          target: 'source',
          sourceId: 'leak',
          rule: await ruleOf(leakText),
          fields: ['content'],
        }),
        expect.objectContaining({
          target: 'record',
          recordId: first.recordId,
          rule: await ruleOf(leakText),
          fields: [],
        }),
        expect.objectContaining({
          target: 'record',
          recordId: second.recordId,
          rule: await ruleOf(quoted),
          fields: ['details.proposals'],
          status: 'would_redact',
        }),
      ])
      expect(JSON.stringify(dry)).not.toContain(GITHUB_TOKEN)
      const run = await b.redact({ scopeId, target: { scan: true } })
      expect(run.items.map((i) => [i.target, i.status])).toEqual([
        ['source', 'redacted'],
        ['record', 'redacted'],
        ['record', 'redacted'],
      ])
      const records = (await b.journal.records({ scopeId })).records
      expect(JSON.stringify(records)).not.toContain(AWS_KEY)
      expect(JSON.stringify(records)).not.toContain(GITHUB_TOKEN)
      expect(records.find((r) => r.recordId === third.recordId)?.redaction).toBeUndefined()
      expect((await b.redact({ scopeId, target: { scan: true }, dryRun: true })).items).toEqual([])
      expect((await b.verify()).problems).toEqual([])
    })

    t.test('bad input is refused with a typed error and writes nothing', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 's', content: 'fine' })
      const res = await flushWindow(b, scopeId, 1, {})
      const head = (await b.changes({ scopeId, since: 0 })).headSeq
      await expectCode(b.redact({ scopeId, target: { recordId: 'flr_nope' } }), 'invalid_request')
      await expectCode(
        b.redact({ scopeId, target: { recordId: 'flr_nope' }, dryRun: true }),
        'invalid_request',
      )
      await expectCode(
        b.redact({ scopeId: newScope(), target: { recordId: res.recordId } }),
        'invalid_request',
      )
      await expectCode(
        b.redact({ scopeId, target: unsafe({ recordId: res.recordId, sourceId: 's' }) }),
        'invalid_request',
      )
      await expectCode(b.redact({ scopeId, target: unsafe({ recordId: '' }) }), 'invalid_request')
      expect((await b.changes({ scopeId, since: 0 })).headSeq).toBe(head)
      expect((await recordOf(b, scopeId, res.recordId)).redaction).toBeUndefined()
    })

    t.test('export and import carry erased records', async () => {
      const b = t.backend
      const scopeId = newScope()
      await b.captureSource({ scopeId, sourceId: 'card', content: `phone ${PHONE}` })
      const res = await flushWindow(b, scopeId, 1, { candidates: [{ text: `phone ${PHONE}` }] })
      await b.redact({ scopeId, target: { sourceId: 'card' }, reason: 'personal data' })
      const rows: ExportRecord[] = []
      await b.exportRows((r) => void rows.push(r))
      expect(JSON.stringify(rows)).not.toContain(PHONE)
      expect(rows[0]).toMatchObject({ type: 'header', version: 4 })
      const copy = await t.open()
      await copy.importRows(rows)
      expect((await copy.verify()).problems).toEqual([])
      const rec = await recordOf(copy, scopeId, res.recordId)
      expect(rec.redaction).toMatchObject({ reason: 'personal data', rule: null })
      expect(rec.details['redacted']).toBe(REDACTED_TEXT)
      const feed = await copy.changes({ scopeId, since: 0 })
      expect(feed.redactions?.map((x) => [x.target, x.recordId])).toEqual([
        ['source', null],
        ['record', res.recordId],
      ])
      // An export written before erased records existed (format 3) has no `recordId`.
      const old = rows.map((r) => {
        if (r.type === 'header') return { ...r, version: 3 }
        if (r.type !== 'redaction' || r.row.recordId !== null) return r
        const { recordId: _, ...row } = r.row
        return { ...r, row: unsafe<typeof r.row>(row) }
      })
      const older = await t.open()
      await older.importRows(old)
      expect((await older.verify()).problems).toEqual([])
    })
  })
}
