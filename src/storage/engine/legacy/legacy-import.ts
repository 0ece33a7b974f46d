/*
 * Upgrade of one scope from the Python reference (docs/upgrade.md), inside one write transaction:
 * sources at their journal positions, every collection revision replayed as memory operations in
 * the order they happened (add → a memory at version 1, revise → its next version, deactivate →
 * forget, reactivate → restore), the head manifest checked against the result, the flush cursor
 * carried over, and the map from old citations to exact versions written as it goes. Nothing is
 * normalised on the way: a value this runtime would store differently fails the scope.
 */
import { canonicalJson } from '../../../core/canonical.js'
import { checkSourceRefs } from '../../../core/command-rules.js'
import { invalidRequest } from '../../../core/errors.js'
import { checkScopeId, checkSourceId, newMemoryId, newOperationId } from '../../../core/ids.js'
import type { VersionContent } from '../../../core/memory-model.js'
import {
  canApply,
  INITIAL_STATE,
  STATE_TRANSITIONS,
  stateAfter,
} from '../../../core/memory-state.js'
import { secretFree } from '../../../core/secret-rules.js'
import { normalizeKind, normalizeReason, normalizeText } from '../../../core/text-rules.js'
import type { DialectTx, MemoryRow, NewChangeRow } from '../../spi/dialect-tx.js'
import type { LegacyCitationRow } from '../../spi/legacy-tx.js'
import type {
  LegacyChange,
  LegacyScopeCounts,
  LegacyScopeImport,
  LegacyScopeResult,
  LegacyStep,
} from '../../spi/legacy-types.js'
import { casOrConflict, requireSources } from '../guards.js'
import { paged } from '../maintenance/paged.js'
import { checkCapture } from '../ops/capture.js'
import { insertSourceProjected } from '../ops/freshness.js'
import { changeRow, firstMemoryRow, headOf, newVersionRow, nextRow } from '../row-builders.js'

const PAGE = 500
const PROGRESS_EVERY = 1000

function refuse(scopeId: string, what: string): never {
  throw invalidRequest('legacy', `scope ${scopeId}: ${what}`)
}

/** The value itself, when this runtime's rule keeps it unchanged; else the scope is refused. */
function exact<T>(scopeId: string, what: string, value: T, rule: (v: T) => T): T {
  let normalised: T
  try {
    normalised = rule(value)
  } catch (err) {
    refuse(scopeId, `${what} is not accepted here (${(err as Error).message})`)
  }
  if (normalised !== value) refuse(scopeId, `${what} would be stored differently here`)
  return value
}

interface Tally {
  sources: number
  memories: number
  versions: number
  changes: number
  cursor: number | null
  versionsOf: Map<string, number>
  entriesOf: Map<string, number>
}

/** Applies one scope's steps; `at` stamps every row (the reference stored no times). */
export async function importLegacyScopeInTx(
  tx: DialectTx,
  input: LegacyScopeImport,
  at: string,
): Promise<LegacyScopeResult> {
  const scopeId = checkScopeId(input.scopeId)
  const done = await tx.legacy.getUpgrade(scopeId)
  if (done !== undefined) {
    return { status: 'already', upgrade: done, counts: JSON.parse(done.countsJson) }
  }
  if (
    (await tx.headSeq(scopeId)) > 0 ||
    (await tx.journal.highWatermark(scopeId)) > 0 ||
    (await tx.journal.getCursor(scopeId)) !== undefined
  ) {
    refuse(scopeId, 'already holds memories or sources here')
  }
  const t: Tally = {
    sources: 0,
    memories: 0,
    versions: 0,
    changes: 0,
    cursor: null,
    versionsOf: new Map(),
    entriesOf: new Map(),
  }
  const progress = (): void => input.onProgress?.({ sources: t.sources, versions: t.versions })
  for await (const step of input.steps()) {
    await applyStep(tx, scopeId, step, t, at)
    if ((t.sources + t.versions) % PROGRESS_EVERY === 0) progress()
  }
  progress()
  const forgotten = await projectHeads(tx, scopeId)
  const counts: LegacyScopeCounts = {
    sources: t.sources,
    memories: t.memories,
    versions: t.versions,
    forgotten,
    changes: t.changes,
    citations: t.versions,
    cursor: t.cursor,
  }
  const upgrade = {
    scopeId,
    legacyScopeId: input.legacyScopeId,
    origin: input.origin,
    fingerprint: input.fingerprint,
    cursorBase: t.cursor ?? 0,
    countsJson: canonicalJson(counts),
    operationId: newOperationId(),
    upgradedAt: at,
  }
  await tx.legacy.insertUpgrade(upgrade)
  return { status: 'upgraded', upgrade, counts }
}

async function applyStep(
  tx: DialectTx,
  scopeId: string,
  step: LegacyStep,
  t: Tally,
  at: string,
): Promise<void> {
  switch (step.type) {
    case 'source': {
      const sourceId = exact(scopeId, `source id ${step.sourceId}`, step.sourceId, checkSourceId)
      const checked = checkCapture({
        scopeId,
        sourceId,
        content: step.content,
        metadata: step.metadata,
      })
      const position = await tx.nextSourcePosition(scopeId)
      if (position !== step.position) {
        refuse(scopeId, `source ${sourceId} is at position ${step.position}, expected ${position}`)
      }
      await insertSourceProjected(tx, {
        scopeId,
        sourceType: 'content',
        sourceId,
        position,
        payloadHash: checked.payloadHash,
        payload: checked.payload,
        createdAt: at,
      })
      await tx.legacy.insertPayload({
        scopeId,
        sourceType: 'content',
        sourceId,
        payload: step.originalPayload,
      })
      t.sources += 1
      return
    }
    case 'revision': {
      const ctx = { operationId: newOperationId(), at }
      const changes: NewChangeRow[] = []
      for (const change of step.changes) {
        changes.push(await applyChange(tx, scopeId, step.memoryArtifactId, change, t, ctx))
      }
      if (changes.length > 0) await tx.appendChanges(scopeId, changes)
      t.changes += changes.length
      return
    }
    case 'head':
      return checkHead(tx, scopeId, step, t)
    case 'cursor': {
      const hw = await tx.journal.highWatermark(scopeId)
      if (step.position > hw) refuse(scopeId, `cursor ${step.position} is beyond source ${hw}`)
      const next = { scopeId, position: step.position, isolateThrough: 0, updatedAt: at }
      if (!(await tx.journal.casCursor(next, 0))) refuse(scopeId, 'the cursor already exists')
      t.cursor = step.position
      return
    }
  }
}

async function applyChange(
  tx: DialectTx,
  scopeId: string,
  artifactId: string,
  change: LegacyChange,
  t: Tally,
  ctx: { operationId: string; at: string },
): Promise<NewChangeRow> {
  const entry = `entry ${change.entryId}`
  const latest = await tx.legacy.latestOfEntry(scopeId, artifactId, change.entryId)
  if ('version' in change) {
    const v = change.version
    const expected = latest === undefined ? 1 : latest.version + 1
    if ((change.op === 'add') !== (latest === undefined) || v.version !== expected) {
      refuse(scopeId, `${entry}: ${change.op} of version ${v.version} does not follow its history`)
    }
    if ((latest?.entryVersionId ?? null) !== v.previousVersionId) {
      refuse(scopeId, `${entry}@${v.version}: its previous version is not the one replayed`)
    }
    const content: VersionContent = {
      kind: exact(scopeId, `${entry}@${v.version} kind`, v.kind, normalizeKind),
      text: exact(scopeId, `${entry}@${v.version} text`, v.text, (t) =>
        secretFree('text', normalizeText(t)),
      ),
      sources: checkSourceRefs(v.sourceIds.map((sourceId) => ({ name: 'content', sourceId }))),
      artifacts: [],
      observedAt: null,
    }
    await requireSources(tx, scopeId, content.sources)
    const reason = exact(scopeId, `${entry} reason`, change.reason, (r) =>
      secretFree('reason', normalizeReason(r)),
    )
    const memoryId = latest?.memoryId ?? newMemoryId()
    const version = newVersionRow({
      memoryId,
      scopeId,
      version: v.version,
      content,
      operation: change.op === 'add' ? 'add' : 'update',
      operationId: ctx.operationId,
      reason,
      at: ctx.at,
    })
    let before: MemoryRow | undefined
    let after: MemoryRow
    if (latest === undefined) {
      after = firstMemoryRow(version, ctx.at)
      await tx.insertMemory(after)
      await tx.insertVersion(version)
      t.memories += 1
      t.entriesOf.set(artifactId, (t.entriesOf.get(artifactId) ?? 0) + 1)
    } else {
      before = await currentRow(tx, scopeId, latest.memoryId, latest.version)
      await tx.insertVersion(version)
      after = nextRow(before, { version, at: ctx.at })
      await casOrConflict(tx, after, before)
    }
    await tx.legacy.insertCitation({
      scopeId,
      memoryArtifactId: artifactId,
      entryId: change.entryId,
      entryVersionId: v.entryVersionId,
      firstRevision: v.createdInRevision,
      memoryId,
      version: v.version,
    })
    t.versions += 1
    t.versionsOf.set(artifactId, (t.versionsOf.get(artifactId) ?? 0) + 1)
    return changeRow(change.op === 'add' ? 'add' : 'update', before, after, { ...ctx, reason })
  }
  return applyStateChange(tx, scopeId, change, latest, ctx)
}

async function applyStateChange(
  tx: DialectTx,
  scopeId: string,
  change: Extract<LegacyChange, { op: 'deactivate' | 'reactivate' }>,
  latest: LegacyCitationRow | undefined,
  ctx: { operationId: string; at: string },
): Promise<NewChangeRow> {
  const entry = `entry ${change.entryId}`
  if (latest === undefined || latest.entryVersionId !== change.entryVersionId) {
    refuse(scopeId, `${entry}: ${change.op} names a version that is not its latest`)
  }
  const before = await currentRow(tx, scopeId, latest.memoryId, latest.version)
  // The reference's deactivate / reactivate are our forget / restore.
  const op = change.op === 'deactivate' ? 'forget' : 'restore'
  if (!canApply(op, before.state))
    refuse(scopeId, `${entry}: ${change.op} of a ${before.state} memory`)
  const reason = exact(scopeId, `${entry} reason`, change.reason, (r) =>
    secretFree('reason', normalizeReason(r)),
  )
  const after = nextRow(before, { state: stateAfter(op, before.state), at: ctx.at })
  await casOrConflict(tx, after, before)
  return changeRow(op, before, after, {
    ...ctx,
    reason,
  })
}

async function currentRow(
  tx: DialectTx,
  scopeId: string,
  memoryId: string,
  version: number,
): Promise<MemoryRow> {
  const row = await tx.getMemory(memoryId)
  if (row?.scopeId !== scopeId || row.currentVersion !== version) {
    refuse(scopeId, `memory ${memoryId} is not at the replayed version ${version}`)
  }
  return row
}

/** The replay must end where the old collection's head is: same versions, same states. */
async function checkHead(
  tx: DialectTx,
  scopeId: string,
  head: Extract<LegacyStep, { type: 'head' }>,
  t: Tally,
): Promise<void> {
  const id = head.memoryArtifactId
  if ((t.versionsOf.get(id) ?? 0) !== head.versionCount) {
    refuse(
      scopeId,
      `collection ${id}: ${head.versionCount} entry versions stored, replay wrote ${t.versionsOf.get(id) ?? 0}`,
    )
  }
  if ((t.entriesOf.get(id) ?? 0) !== head.entries.length) {
    refuse(
      scopeId,
      `collection ${id}: its head lists ${head.entries.length} entries, replay made ${t.entriesOf.get(id) ?? 0}`,
    )
  }
  for (const e of head.entries) {
    const c = await tx.legacy.findCitation({
      scopeId,
      memoryArtifactId: id,
      entryId: e.entryId,
      entryVersionId: e.entryVersionId,
    })
    const row = c === undefined ? undefined : await tx.getMemory(c.memoryId)
    // A reference entry is active or inactive; inactive replays to forgotten.
    const state = e.state === 'active' ? INITIAL_STATE : STATE_TRANSITIONS.forget.to
    if (c === undefined || row?.currentVersion !== c.version || row.state !== state) {
      refuse(
        scopeId,
        `collection ${id}@${head.revision}: entry ${e.entryId} does not replay to its head`,
      )
    }
  }
}

/** Projects every active memory of the scope (heads and full-text rows); returns the forgotten count. */
async function projectHeads(tx: DialectTx, scopeId: string): Promise<number> {
  const of = (state: 'active' | 'forgotten') =>
    paged(
      '',
      PAGE,
      (after, limit) =>
        tx.listMemories({ scopeId, states: [state], kinds: undefined, after, limit }),
      (m) => m.memoryId,
    )
  let batch: string[] = []
  const project = async (): Promise<void> => {
    for (const c of (await tx.loadCurrent(batch)).values()) await tx.putHead(headOf(c.version))
    batch = []
  }
  for await (const m of of('active')) {
    batch.push(m.memoryId)
    if (batch.length >= PAGE) await project()
  }
  await project()
  let forgotten = 0
  for await (const _m of of('forgotten')) forgotten += 1
  return forgotten
}
