import { checkSourceRefs } from '../../../core/command-rules.js'
import { canonicalContent, hashCanonicalContent } from '../../../core/content-hash.js'
import { invalidRequest } from '../../../core/errors.js'
import { type Pause, timeSlicer } from '../../../core/event-loop-slices.js'
import { checkScopeId } from '../../../core/ids.js'
import type { Memory, VersionContent } from '../../../core/memory-model.js'
import { isActive } from '../../../core/memory-state.js'
import { refuseSecrets } from '../../../core/secret-rules.js'
import {
  normalizeKind,
  normalizeReason,
  normalizeText,
  normalizeTimestamp,
} from '../../../core/text-rules.js'
import type { DialectTx, NewChangeRow } from '../../spi/dialect-tx.js'
import {
  REMEMBER_MAX_ENTRIES,
  type RememberCommand,
  type RememberEntry,
  type RememberResult,
} from '../../spi/memory-backend.js'
import { requireSources } from '../guards.js'
import { projectHead } from '../projection.js'
import { changeRow, firstMemoryRow, newVersionRow } from '../row-builders.js'
import { contentOfRow, viewOf } from '../version-codec.js'
import type { CheckedEntry, OpDeps, WriteContext } from '../write-context.js'

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

/** remember: each entry is created unless an active memory already has its content. */
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
  // A hundred 8 KB entries are hundreds of ms of hashing, index rows and checks: in slices.
  const pause = timeSlicer()
  for (const entry of entries) {
    await pause()
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
  for (const head of await tx.findActiveByHash(scopeId, hashCanonicalContent(canonical))) {
    const current = (await tx.loadCurrent([head.memoryId])).get(head.memoryId)
    // Hash equality is re-checked against the canonical bytes themselves.
    if (
      current !== undefined &&
      isActive(current.row.state) &&
      canonicalContent(contentOfRow(current.version)) === canonical
    ) {
      return viewOf(current.version, current.row)
    }
  }
  return undefined
}

/**
 * Checks remember: 1–100 entries, each checked, then each looked at by the secret rules, one
 * entry at a time with `pause()` awaited between them (100 texts of 8 KB are tens of ms of rule
 * matching; the default pause yields to the event loop once a slice's budget is spent).
 * @throws PowerContextError `invalid_request`, `secret_detected`.
 */
export async function checkRemember(cmd: RememberCommand, pause: Pause = timeSlicer()) {
  const scopeId = checkScopeId(cmd.scopeId)
  if (
    !Array.isArray(cmd.entries) ||
    cmd.entries.length === 0 ||
    cmd.entries.length > REMEMBER_MAX_ENTRIES
  ) {
    throw invalidRequest('entries', `must hold 1–${REMEMBER_MAX_ENTRIES} entries`)
  }
  const entries: ReturnType<typeof checkEntry>[] = []
  for (const [i, entry] of cmd.entries.entries()) {
    await pause()
    entries.push(checkEntry(entry, i))
  }
  for (const [i, e] of entries.entries()) {
    await pause()
    refuseSecrets({
      [`entries[${i}].text`]: e.content.text,
      [`entries[${i}].reason`]: e.reason ?? undefined,
    })
  }
  return { scopeId, entries }
}

/** Adds memories; an entry equal to an active memory's current content is `unchanged`. */
export async function remember(deps: OpDeps, cmd: RememberCommand): Promise<RememberResult> {
  const { scopeId, entries } = await checkRemember(cmd)
  const ctx = await deps.context(entries.map((e) => e.content.text))
  return deps.run.write((tx) => rememberInTx(tx, ctx, scopeId, entries))
}
