/*
 * `admin redact` (docs/storage.md "Redaction"): erases the stored text of one source, of one
 * memory version, or of every stored item the secret rules match in a scope. The bytes are
 * replaced by a marker and removed from every projection (head, full-text and vector rows); ids,
 * versions, hashes, positions and the change feed stay, and the redaction itself takes a number of
 * the scope's change sequence. Each redaction is one write transaction; the adapter then lets go
 * of the erased bytes in its files (`eraseRedactedBytes`).
 */
import { checkArtifactRef } from '../../../core/command-rules.js'
import { invalidRequest, PowerContextError } from '../../../core/errors.js'
import { checkScopeId, checkSourceId } from '../../../core/ids.js'
import type { ArtifactRef } from '../../../core/memory-model.js'
import { isActive } from '../../../core/memory-state.js'
import { defaultRedactionReason, REDACTED_TEXT } from '../../../core/redaction.js'
import { normalizeReason } from '../../../core/text-rules.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type {
  ErasureReport,
  RedactCommand,
  RedactedItem,
  RedactResult,
} from '../../spi/redaction-types.js'
import { requireMemory, requireVersion } from '../guards.js'
import { forgetCandidateTokens } from '../search/candidate-tokens.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { forgetSoundRows } from '../version-codec.js'
import { scanScope, type SecretFinding } from './redact-scan.js'
import { redactedSourcePayload } from './redaction-reads.js'

/** A validated redaction. */
export interface CheckedRedact {
  readonly scopeId: string
  readonly target:
    | { readonly kind: 'source'; readonly sourceId: string }
    | { readonly kind: 'version'; readonly memoryRef: ArtifactRef }
    | { readonly kind: 'scan' }
  readonly reason: string | null
  readonly dryRun: boolean
}

/**
 * Validates a redaction: a scope, exactly one target (`sourceId`, `memoryRef` or `scan: true`),
 * an optional reason (≤ 512 characters) and `dryRun`.
 * @throws PowerContextError `invalid_request`
 */
export function checkRedact(cmd: RedactCommand): CheckedRedact {
  const scopeId = checkScopeId(cmd.scopeId)
  const t = (cmd.target ?? {}) as Record<string, unknown>
  const given = ['sourceId', 'memoryRef', 'scan'].filter((k) => t[k] !== undefined)
  if (given.length !== 1) {
    throw invalidRequest('target', 'give exactly one of source_id, memory_ref or scan')
  }
  const dryRun = cmd.dryRun ?? false
  if (typeof dryRun !== 'boolean') throw invalidRequest('dry_run', 'must be a boolean')
  const reason = normalizeReason(cmd.reason)
  if (t['scan'] !== undefined) {
    if (t['scan'] !== true) throw invalidRequest('scan', 'must be true')
    return { scopeId, target: { kind: 'scan' }, reason, dryRun }
  }
  if (t['sourceId'] !== undefined) {
    return {
      scopeId,
      target: { kind: 'source', sourceId: checkSourceId(t['sourceId']) },
      reason,
      dryRun,
    }
  }
  const memoryRef = checkArtifactRef(t['memoryRef'])
  return { scopeId, target: { kind: 'version', memoryRef }, reason, dryRun }
}

/** The erasure report of a backend with no step of its own. */
export const NO_ERASE_STEP: ErasureReport = Object.freeze({
  filesClean: false,
  steps: [],
  pending: 'this backend has no erase step of its own',
  ms: 0,
})

/** What a redaction needs of its backend. */
export interface RedactDeps {
  readonly run: TxRunner
  readonly now: () => Date
  readonly newOperationId: (at: number) => string
  /** Lets go of erased bytes in the database files once redactions committed. */
  readonly erase: (scopeId: string) => Promise<ErasureReport>
}

/** One thing to erase, with what found it. */
interface Planned {
  readonly target: CheckedRedact['target'] & { kind: 'source' | 'version' }
  readonly rule: string | null
  readonly fields: readonly string[]
}

/** Runs a checked redaction; see the file comment. */
export async function redact(deps: RedactDeps, c: CheckedRedact): Promise<RedactResult> {
  const planned: Planned[] =
    c.target.kind === 'scan'
      ? (await scanScope(deps.run, c.scopeId)).map(toPlanned)
      : [{ target: c.target, rule: null, fields: [] }]
  if (c.dryRun) {
    // Unknown explicit targets fail in a dry run too (nothing is written either way).
    if (c.target.kind !== 'scan')
      await deps.run.read((tx) => requireTarget(tx, c.scopeId, c.target as Planned['target']))
    return { dryRun: true, items: planned.map((p) => item(p, 'would_redact', null)), erasure: null }
  }
  const items: RedactedItem[] = []
  for (const p of planned) {
    const now = deps.now()
    const ctx = { at: now.toISOString(), operationId: deps.newOperationId(now.getTime()) }
    const reason = c.reason ?? defaultRedactionReason(p.rule)
    items.push(await deps.run.write((tx) => redactOneInTx(tx, ctx, c.scopeId, p, reason)))
  }
  if (items.length === 0) return { dryRun: false, items, erasure: null }
  // In-process caches keyed by stored text (versions found sound, candidates' tokens): the
  // erased text leaves them too.
  forgetSoundRows()
  forgetCandidateTokens()
  // Also after a repeat: an earlier erase may have left the WAL to a reader (docs/storage.md).
  return { dryRun: false, items, erasure: await deps.erase(c.scopeId) }
}

function toPlanned(f: SecretFinding): Planned {
  const target =
    f.sourceId !== null
      ? { kind: 'source' as const, sourceId: f.sourceId }
      : { kind: 'version' as const, memoryRef: f.memoryRef as ArtifactRef }
  return { target, rule: f.rule, fields: f.fields }
}

function item(p: Planned, status: RedactedItem['status'], seq: number | null): RedactedItem {
  const t = p.target
  return Object.freeze({
    target: t.kind,
    sourceId: t.kind === 'source' ? t.sourceId : null,
    memoryRef: t.kind === 'version' ? t.memoryRef : null,
    rule: p.rule,
    fields: p.fields,
    status,
    seq,
  })
}

/**
 * The target's stored row.
 * @throws PowerContextError `source_not_found`, `memory_not_found`
 */
async function requireTarget(tx: DialectTx, scopeId: string, t: Planned['target']) {
  if (t.kind === 'source') {
    const row = await tx.getSource(scopeId, 'content', t.sourceId)
    if (row === undefined) {
      throw new PowerContextError(
        'source_not_found',
        `no source ${t.sourceId} in scope ${scopeId}`,
        {
          source_ids: [t.sourceId],
        },
      )
    }
    return { source: row } as const
  }
  const row = await requireMemory(tx, scopeId, t.memoryRef.artifactId)
  return {
    memory: row,
    version: await requireVersion(tx, row.memoryId, t.memoryRef.revision),
  } as const
}

/** Erases one target in the caller's write transaction; a target already erased is `unchanged`. */
async function redactOneInTx(
  tx: DialectTx,
  ctx: { at: string; operationId: string },
  scopeId: string,
  p: Planned,
  reason: string,
): Promise<RedactedItem> {
  const found = await requireTarget(tx, scopeId, p.target)
  const record = {
    scopeId,
    rule: p.rule,
    reason,
    redactedAt: ctx.at,
    operationId: ctx.operationId,
  }
  if ('source' in found) {
    const s = found.source
    const earlier = await tx.redactions.ofSource(scopeId, s.sourceType, s.sourceId)
    if (earlier !== undefined) return item(p, 'unchanged', earlier.seq)
    const seq = await tx.journal.allocateSeq(scopeId)
    await tx.redactions.eraseSource(
      scopeId,
      s.sourceType,
      s.sourceId,
      redactedSourcePayload(s.payload),
    )
    await tx.redactions.insert({
      ...record,
      seq,
      target: 'source',
      sourceType: s.sourceType,
      sourceId: s.sourceId,
      memoryId: null,
      version: null,
    })
    return item(p, 'redacted', seq)
  }
  const { memory, version } = found
  const earlier = (await tx.redactions.ofMemory(memory.memoryId)).find(
    (r) => r.version === version.version,
  )
  if (earlier !== undefined) return item(p, 'unchanged', earlier.seq)
  const seq = await tx.journal.allocateSeq(scopeId)
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
  await tx.redactions.insert({
    ...record,
    seq,
    target: 'version',
    sourceType: null,
    sourceId: null,
    memoryId: memory.memoryId,
    version: version.version,
  })
  return item(p, 'redacted', seq)
}
