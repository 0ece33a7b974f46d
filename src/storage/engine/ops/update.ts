import { checkArtifactRef, checkSourceRefs } from '../../../core/command-rules.js'
import { canonicalContent, normalizeSourceRefs } from '../../../core/content-hash.js'
import { invalidRequest } from '../../../core/errors.js'
import { checkScopeId } from '../../../core/ids.js'
import type { VersionContent } from '../../../core/memory-model.js'
import { isActive } from '../../../core/memory-state.js'
import {
  normalizeKind,
  normalizeReason,
  normalizeText,
  normalizeTimestamp,
} from '../../../core/text-rules.js'
import type { DialectTx, MemoryRow, NewChangeRow, VersionRow } from '../../spi/dialect-tx.js'
import type { UpdateCommand, UpdateResult } from '../../spi/memory-backend.js'
import { optional, refused } from '../command-checks.js'
import {
  casOrConflict,
  requireActiveAt,
  requireMemory,
  requireSources,
  requireVersion,
} from '../guards.js'
import { projectHead } from '../projection.js'
import { changeRow, newVersionRow, nextRow } from '../row-builders.js'
import { updateTexts } from '../vectors/texts-to-project.js'
import { contentOfRow, isRedactedVersionRow, viewOf } from '../version-codec.js'
import type { CheckedUpdate, OpDeps, WriteContext } from '../write-context.js'

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
  if (isActive(next.state)) await projectHead(tx, ctx, version)
  return { row: next, version, change: changeRow('update', row, next, { ...ctx, reason }) }
}

/** update: CAS on the exact revision; evidence union; identical content is a no-op. */
export async function updateInTx(
  tx: DialectTx,
  ctx: WriteContext,
  cmd: CheckedUpdate,
): Promise<UpdateResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryRef.artifactId)
  requireActiveAt(row, cmd.memoryRef.revision)
  await requireSources(tx, cmd.scopeId, cmd.sources)
  const current = await requireVersion(tx, row.memoryId, row.currentVersion)
  if (cmd.text === undefined && isRedactedVersionRow(current)) {
    throw invalidRequest('text', 'the current version was redacted: give the new text')
  }
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

/**
 * Checks update: the exact base revision, optional new content.
 * @throws PowerContextError `invalid_request`, `secret_detected`
 */
export function checkUpdate(cmd: UpdateCommand): CheckedUpdate {
  return refused({
    scopeId: checkScopeId(cmd.scopeId),
    memoryRef: checkArtifactRef(cmd.memoryRef),
    text: optional(cmd.text, (t) => normalizeText(t)),
    kind: optional(cmd.kind, (k) => normalizeKind(k)),
    sources: checkSourceRefs(cmd.sources),
    observedAt: cmd.observedAt === undefined ? undefined : normalizeTimestamp(cmd.observedAt),
    reason: normalizeReason(cmd.reason),
  })
}

/** Writes a new version of an active memory at exactly `memoryRef.revision`. */
export async function update(deps: OpDeps, cmd: UpdateCommand): Promise<UpdateResult> {
  const checked = checkUpdate(cmd)
  const texts = await deps.textsToProject((tx) =>
    updateTexts(tx, { ...checked, memoryId: checked.memoryRef.artifactId }),
  )
  const ctx = await deps.context(texts)
  return deps.run.write((tx) => updateInTx(tx, ctx, checked))
}
