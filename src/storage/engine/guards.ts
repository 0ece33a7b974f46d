import { checkSourceRefs } from '../../core/command-rules.js'
import { canonicalContent, normalizeSourceRefs } from '../../core/content-hash.js'
import { invalidRequest, PowerContextError } from '../../core/errors.js'
import type { ArtifactRef, Memory, SourceRef, VersionContent } from '../../core/memory-model.js'
import {
  normalizeKind,
  normalizeReason,
  normalizeText,
  normalizeTimestamp,
} from '../../core/text-rules.js'
import type { DialectTx, MemoryRow, NewChangeRow, VersionRow } from '../spi/dialect-tx.js'
import type {
  ForgetResult,
  RememberEntry,
  RememberResult,
  UpdateResult,
} from '../spi/memory-backend.js'
import { projectHead } from './projection.js'
import { changeRow, firstMemoryRow, newVersionRow, nextRow } from './row-builders.js'
import type { PreparedVectors } from './vectors/vector-support.js'
import { contentOfRow, viewOf } from './version-codec.js'

/** Context shared by the rows of one write request. */
export interface WriteContext {
  readonly operationId: string
  readonly at: string
  readonly newMemoryId: () => string
  /** Vectors embedded before the transaction for the texts it will project (none: FTS only). */
  readonly vectors?: PreparedVectors | undefined
}

export interface CheckedEntry {
  readonly content: VersionContent
  readonly reason: string | null
}

/** Validates one `remember` entry (`entries[i]` in error fields). */
export function checkEntry(entry: unknown, i: number): CheckedEntry {
  const path = `entries[${i}]`
  if (typeof entry !== 'object' || entry === null) throw invalidRequest(path, 'must be an object')
  const e = entry as Partial<RememberEntry>
  return {
    content: {
      kind: normalizeKind(e.kind, `${path}.kind`),
      text: normalizeText(e.text, `${path}.text`),
      sources: checkSourceRefs(e.sources, `${path}.sources`),
      artifacts: [],
      observedAt: normalizeTimestamp(e.observedAt, `${path}.observed_at`),
    },
    reason: normalizeReason(e.reason, `${path}.reason`),
  }
}

export interface CheckedUpdate {
  readonly scopeId: string
  readonly memoryRef: ArtifactRef
  readonly text: string | undefined
  readonly kind: string | undefined
  readonly sources: readonly SourceRef[]
  readonly observedAt: string | null | undefined
  readonly reason: string | null
}

/**
 * Loads a memory of the scope. A memory of another scope is reported exactly like a missing one,
 * so scope ids cannot be probed.
 * @throws PowerContextError `memory_not_found`
 */
export async function requireMemory(
  tx: DialectTx,
  scopeId: string,
  memoryId: string,
): Promise<MemoryRow> {
  const row = await tx.getMemory(memoryId)
  if (row === undefined || row.scopeId !== scopeId) {
    throw new PowerContextError('memory_not_found', `memory ${memoryId} not found in scope`, {
      memory_id: memoryId,
    })
  }
  return row
}

/** Loads a stored version, which must exist for a consistent memory row. */
export async function requireVersion(
  tx: DialectTx,
  memoryId: string,
  version: number,
): Promise<VersionRow> {
  const row = await tx.getVersion(memoryId, version)
  if (row === undefined) {
    throw new PowerContextError(
      'memory_not_found',
      `memory ${memoryId} has no version ${version}`,
      {
        memory_id: memoryId,
        revision: version,
      },
    )
  }
  return row
}

/** @throws PowerContextError `source_not_found` when any evidence source is not in the scope. */
export async function requireSources(
  tx: DialectTx,
  scopeId: string,
  refs: readonly SourceRef[],
): Promise<void> {
  if (refs.length === 0) return
  const missing = await tx.missingSources(scopeId, [...new Set(refs.map((r) => r.sourceId))])
  if (missing.length > 0) {
    throw new PowerContextError(
      'source_not_found',
      `source not found in scope: ${missing.join(', ')}`,
      {
        source_ids: missing,
      },
    )
  }
}

/** @throws PowerContextError `revision_conflict` when the stored row moved under us. */
export async function casOrConflict(
  tx: DialectTx,
  next: MemoryRow,
  before: MemoryRow,
): Promise<void> {
  const ok = await tx.casMemory(next, {
    version: before.currentVersion,
    stateVersion: before.stateVersion,
  })
  if (!ok) {
    throw new PowerContextError(
      'revision_conflict',
      `memory ${before.memoryId} changed concurrently`,
      {
        memory_id: before.memoryId,
      },
    )
  }
}

/** DESIGN §3 remember: each entry is created unless an active memory already has its content. */
export async function rememberInTx(
  tx: DialectTx,
  ctx: WriteContext,
  scopeId: string,
  entries: readonly CheckedEntry[],
): Promise<RememberResult> {
  await requireSources(
    tx,
    scopeId,
    entries.flatMap((e) => e.content.sources),
  )
  const results: { status: 'created' | 'unchanged'; memory: Memory }[] = []
  const createdInBatch = new Map<string, Memory>()
  const changes: NewChangeRow[] = []
  for (const entry of entries) {
    const canonical = canonicalContent(entry.content)
    const existing =
      createdInBatch.get(canonical) ?? (await findActiveDuplicate(tx, scopeId, entry.content))
    if (existing !== undefined) {
      results.push({ status: 'unchanged', memory: existing })
      continue
    }
    const memoryId = ctx.newMemoryId()
    const version = newVersionRow({
      memoryId,
      scopeId,
      version: 1,
      content: entry.content,
      operation: 'add',
      operationId: ctx.operationId,
      reason: entry.reason,
      at: ctx.at,
    })
    const row = firstMemoryRow(version, ctx.at)

    await tx.insertMemory(row)
    await tx.insertVersion(version)
    await projectHead(tx, ctx, version)
    changes.push(changeRow('add', undefined, row, { ...ctx, reason: entry.reason }))
    const memory = viewOf(version, row)
    createdInBatch.set(canonical, memory)
    results.push({ status: 'created', memory })
  }
  if (changes.length > 0) await tx.appendChanges(scopeId, changes)
  return { results }
}

async function findActiveDuplicate(
  tx: DialectTx,
  scopeId: string,
  content: VersionContent,
): Promise<Memory | undefined> {
  const canonical = canonicalContent(content)
  const { contentHash } = newVersionRow({
    memoryId: '-',
    scopeId,
    version: 1,
    content,
    operation: 'add',
    operationId: '-',
    reason: null,
    at: '-',
  })
  for (const head of await tx.findActiveByHash(scopeId, contentHash)) {
    const current = (await tx.loadCurrent([head.memoryId])).get(head.memoryId)
    // Hash equality is re-checked against the canonical bytes themselves.
    if (
      current !== undefined &&
      current.row.state === 'active' &&
      canonicalContent(contentOfRow(current.version)) === canonical
    ) {
      return viewOf(current.version, current.row)
    }
  }
  return undefined
}

/** Rejects a change to a memory that is not active at exactly the caller's version. */
export function requireActiveAt(row: MemoryRow, revision: number | undefined): void {
  if (row.state !== 'active') {
    throw new PowerContextError(
      'state_conflict',
      `memory ${row.memoryId} is ${row.state}, not active`,
      {
        memory_id: row.memoryId,
        state: row.state,
      },
    )
  }
  if (revision !== undefined && revision !== row.currentVersion) {
    throw new PowerContextError(
      'revision_conflict',
      `memory ${row.memoryId} is at revision ${row.currentVersion}, not ${revision}`,
      {
        memory_id: row.memoryId,
        current_revision: row.currentVersion,
      },
    )
  }
}

/** Writes version n+1 of `row` with `content`, keeping the head projection current. */
export async function writeNextVersion(
  tx: DialectTx,
  ctx: WriteContext,
  row: MemoryRow,
  content: VersionContent,
  reason: string | null,
): Promise<{ row: MemoryRow; version: VersionRow; change: NewChangeRow }> {
  const version = newVersionRow({
    memoryId: row.memoryId,
    scopeId: row.scopeId,
    version: row.currentVersion + 1,
    content,
    operation: 'update',
    operationId: ctx.operationId,
    reason,
    at: ctx.at,
  })
  await tx.insertVersion(version)
  const next = nextRow(row, { version, at: ctx.at })
  await casOrConflict(tx, next, row)
  if (next.state === 'active') await projectHead(tx, ctx, version)
  return { row: next, version, change: changeRow('update', row, next, { ...ctx, reason }) }
}

/** DESIGN §3 update: CAS on the exact revision; evidence union; identical content is a no-op. */
export async function updateInTx(
  tx: DialectTx,
  ctx: WriteContext,
  cmd: CheckedUpdate,
): Promise<UpdateResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryRef.artifactId)
  requireActiveAt(row, cmd.memoryRef.revision)
  await requireSources(tx, cmd.scopeId, cmd.sources)
  const current = await requireVersion(tx, row.memoryId, row.currentVersion)
  const before = contentOfRow(current)
  const content: VersionContent = {
    kind: cmd.kind ?? before.kind,
    text: cmd.text ?? before.text,
    sources: normalizeSourceRefs([...before.sources, ...cmd.sources]),
    artifacts: before.artifacts,
    observedAt: cmd.observedAt === undefined ? before.observedAt : cmd.observedAt,
  }
  if (canonicalContent(content) === canonicalContent(before)) {
    return { status: 'unchanged', memory: viewOf(current, row) }
  }
  const written = await writeNextVersion(tx, ctx, row, content, cmd.reason)
  await tx.appendChanges(row.scopeId, [written.change])
  return { status: 'updated', memory: viewOf(written.version, written.row) }
}

/** DESIGN §3 forget: active → forgotten; already forgotten is a no-op. */
export async function forgetInTx(
  tx: DialectTx,
  ctx: WriteContext,
  cmd: {
    scopeId: string
    memoryId: string
    expectedRevision: number | undefined
    reason: string | null
  },
): Promise<ForgetResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  const current = await requireVersion(tx, row.memoryId, row.currentVersion)
  if (row.state === 'forgotten') {
    if (cmd.expectedRevision !== undefined && cmd.expectedRevision !== row.currentVersion) {
      requireActiveAt({ ...row, state: 'active' }, cmd.expectedRevision)
    }
    return { status: 'unchanged', memory: viewOf(current, row) }
  }
  requireActiveAt(row, cmd.expectedRevision)
  const next = nextRow(row, { state: 'forgotten', at: ctx.at })
  await casOrConflict(tx, next, row)
  await tx.deleteHead(row.memoryId)
  await tx.appendChanges(row.scopeId, [
    changeRow('forget', row, next, { ...ctx, reason: cmd.reason }),
  ])
  return { status: 'forgotten', memory: viewOf(current, next) }
}
