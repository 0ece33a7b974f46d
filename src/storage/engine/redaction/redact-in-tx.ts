/*
 * One redaction inside its write transaction (docs/storage.md "Redaction"): the target's stored
 * text is replaced by the marker and a redaction record takes a number of the scope's change
 * sequence. The flush decision records that quote the target are erased with it, in the same
 * transaction: those whose window holds an erased source (their candidates, model output and
 * error messages were made from its text), and the one written by the flush that wrote an erased
 * version (its candidates hold the version's text).
 */
import { invalidRequest, PowerContextError } from '../../../core/errors.js'
import type { ArtifactRef } from '../../../core/memory-model.js'
import { isActive } from '../../../core/memory-state.js'
import { REDACTED_TEXT } from '../../../core/redaction.js'
import type { DialectTx, MemoryRow, SourceRow, VersionRow } from '../../spi/dialect-tx.js'
import type { FlushRecordRow } from '../../spi/journal-tx.js'
import type { RedactedItem, RedactionRow } from '../../spi/redaction-types.js'
import { requireMemory, requireVersion } from '../guards.js'
import { redactedRecordDetails, redactedSourcePayload } from './redaction-reads.js'

/** One explicit thing to erase. */
export type RedactTarget =
  | { readonly kind: 'source'; readonly sourceId: string }
  | { readonly kind: 'version'; readonly memoryRef: ArtifactRef }
  | { readonly kind: 'record'; readonly recordId: string }

/** One thing to erase, with what found it. */
export interface Planned {
  readonly target: RedactTarget
  readonly rule: string | null
  readonly fields: readonly string[]
}

/** When, why and by which operation the erase runs. */
export interface RedactContext {
  readonly scopeId: string
  readonly at: string
  readonly operationId: string
  readonly reason: string
}

type Found =
  | { readonly source: SourceRow }
  | { readonly memory: MemoryRow; readonly version: VersionRow }
  | { readonly record: FlushRecordRow }

/** The item reporting a planned target. */
export function itemOf(
  p: Planned,
  status: RedactedItem['status'],
  seq: number | null,
): RedactedItem {
  const t = p.target
  return Object.freeze({
    target: t.kind,
    sourceId: t.kind === 'source' ? t.sourceId : null,
    memoryRef: t.kind === 'version' ? t.memoryRef : null,
    recordId: t.kind === 'record' ? t.recordId : null,
    rule: p.rule,
    fields: p.fields,
    status,
    seq,
  })
}

/**
 * The target's stored rows.
 * @throws PowerContextError `source_not_found`, `memory_not_found`, `invalid_request` (no such
 *   decision record in the scope)
 */
export async function requireTarget(
  tx: DialectTx,
  scopeId: string,
  t: RedactTarget,
): Promise<Found> {
  if (t.kind === 'source') {
    const row = await tx.getSource(scopeId, 'content', t.sourceId)
    if (row === undefined) {
      throw new PowerContextError(
        'source_not_found',
        `no source ${t.sourceId} in scope ${scopeId}`,
        { source_ids: [t.sourceId] },
      )
    }
    return { source: row }
  }
  if (t.kind === 'record') {
    const [row] = await tx.journal.listRecords({
      scopeId,
      recordId: t.recordId,
      after: 0,
      limit: 1,
    })
    if (row === undefined) {
      throw invalidRequest('record_id', `no decision record ${t.recordId} in scope ${scopeId}`)
    }
    return { record: row }
  }
  const memory = await requireMemory(tx, scopeId, t.memoryRef.artifactId)
  return { memory, version: await requireVersion(tx, memory.memoryId, t.memoryRef.revision) }
}

/** The decision records that quote a found target and are not erased yet, by window end. */
async function quotingRecords(tx: DialectTx, scopeId: string, f: Found): Promise<FlushRecordRow[]> {
  let rows: FlushRecordRow[] = []
  if ('source' in f) rows = await tx.redactions.recordsCovering(scopeId, f.source.position)
  else if ('version' in f)
    rows = await tx.redactions.recordsOfOperation(scopeId, f.version.operationId)
  const open: FlushRecordRow[] = []
  for (const r of rows) {
    if ((await tx.redactions.ofRecord(scopeId, r.recordId)) === undefined) open.push(r)
  }
  return open
}

/** What erasing a target would also erase (a dry run lists it; nothing is written). */
export async function plannedWith(tx: DialectTx, scopeId: string, p: Planned): Promise<Planned[]> {
  const found = await requireTarget(tx, scopeId, p.target)
  const quoting = await quotingRecords(tx, scopeId, found)
  return [p, ...quoting.map((r) => recordPlan(r, p))]
}

const recordPlan = (r: FlushRecordRow, by: Planned): Planned => ({
  target: { kind: 'record', recordId: r.recordId },
  rule: by.rule,
  fields: [],
})

/**
 * Erases one target and the decision records quoting it in the caller's write transaction; a
 * target already erased is `unchanged` (its quoting records are still erased when they were not:
 * a source redacted before records were erased with it).
 */
export async function redactOneInTx(
  tx: DialectTx,
  ctx: RedactContext,
  p: Planned,
): Promise<RedactedItem[]> {
  const found = await requireTarget(tx, ctx.scopeId, p.target)
  const quoting = await quotingRecords(tx, ctx.scopeId, found)
  const items = [await eraseFound(tx, ctx, p, found)]
  for (const r of quoting) items.push(await eraseRecord(tx, ctx, recordPlan(r, p), r))
  return items
}

type Where = Partial<
  Pick<RedactionRow, 'sourceType' | 'sourceId' | 'memoryId' | 'version' | 'recordId'>
> &
  Pick<RedactionRow, 'target'>

/**
 * Erases once: a target with an earlier redaction record is `unchanged`; else `erase` runs and a
 * record takes the scope's next change seq.
 */
async function eraseOnce(
  tx: DialectTx,
  ctx: RedactContext,
  p: Planned,
  earlier: RedactionRow | undefined,
  where: Where,
  erase: () => Promise<void>,
): Promise<RedactedItem> {
  if (earlier !== undefined) return itemOf(p, 'unchanged', earlier.seq)
  const seq = await tx.journal.allocateSeq(ctx.scopeId)
  await erase()
  await tx.redactions.insert({
    scopeId: ctx.scopeId,
    seq,
    sourceType: null,
    sourceId: null,
    memoryId: null,
    version: null,
    recordId: null,
    ...where,
    rule: p.rule,
    reason: ctx.reason,
    redactedAt: ctx.at,
    operationId: ctx.operationId,
  })
  return itemOf(p, 'redacted', seq)
}

async function eraseRecord(
  tx: DialectTx,
  ctx: RedactContext,
  p: Planned,
  row: FlushRecordRow,
): Promise<RedactedItem> {
  const earlier = await tx.redactions.ofRecord(ctx.scopeId, row.recordId)
  const details = redactedRecordDetails(row.detailsJson)
  return eraseOnce(tx, ctx, p, earlier, { target: 'record', recordId: row.recordId }, () =>
    tx.redactions.eraseRecord(ctx.scopeId, row.recordId, details),
  )
}

async function eraseFound(
  tx: DialectTx,
  ctx: RedactContext,
  p: Planned,
  found: Found,
): Promise<RedactedItem> {
  const { scopeId } = ctx
  if ('record' in found) return eraseRecord(tx, ctx, p, found.record)
  if ('source' in found) {
    const s = found.source
    const earlier = await tx.redactions.ofSource(scopeId, s.sourceType, s.sourceId)
    const where = { target: 'source' as const, sourceType: s.sourceType, sourceId: s.sourceId }
    return eraseOnce(tx, ctx, p, earlier, where, () =>
      tx.redactions.eraseSource(
        scopeId,
        s.sourceType,
        s.sourceId,
        redactedSourcePayload(s.payload),
      ),
    )
  }
  const { memory, version } = found
  const earlier = (await tx.redactions.ofMemory(memory.memoryId)).find(
    (r) => r.version === version.version,
  )
  const where = { target: 'version' as const, memoryId: memory.memoryId, version: version.version }
  return eraseOnce(tx, ctx, p, earlier, where, async () => {
    await tx.redactions.eraseVersion(
      memory.memoryId,
      version.version,
      version.operationId,
      REDACTED_TEXT,
    )
    // The head, its full-text row and its vector row carry the current text: they leave with it.
    if (isActive(memory.state) && memory.currentVersion === version.version) {
      await tx.deleteHead(memory.memoryId)
    }
  })
}
