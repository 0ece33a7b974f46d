/*
 * `admin redact` (docs/storage.md "Redaction"): erases the stored text of one source, of one
 * memory version, of one flush decision record, or of every stored item the secret rules match in
 * a scope. The bytes are replaced by a marker and removed from every projection (head, full-text
 * and vector rows); ids, versions, hashes, positions and the change feed stay, and the redaction
 * itself takes a number of the scope's change sequence. The decision records quoting an erased
 * source or version are erased with it (redact-in-tx.ts). Each redaction is one write
 * transaction; the adapter then lets go of the erased bytes in its files (`eraseRedactedBytes`).
 */
import { checkArtifactRef } from '../../../core/command-rules.js'
import { invalidRequest } from '../../../core/errors.js'
import { checkScopeId, checkSourceId } from '../../../core/ids.js'
import { defaultRedactionReason } from '../../../core/redaction.js'
import { normalizeReason } from '../../../core/text-rules.js'
import type {
  ErasureReport,
  RedactCommand,
  RedactedItem,
  RedactResult,
} from '../../spi/redaction-types.js'
import { forgetCandidateTokens } from '../search/candidate-tokens.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { forgetSoundRows } from '../version-codec.js'
import {
  itemOf,
  type Planned,
  plannedWith,
  redactOneInTx,
  type RedactTarget,
} from './redact-in-tx.js'
import { scanScope, type SecretFinding } from './redact-scan.js'

/** A validated redaction. */
export interface CheckedRedact {
  readonly scopeId: string
  readonly target: RedactTarget | { readonly kind: 'scan' }
  readonly reason: string | null
  readonly dryRun: boolean
}

/**
 * Validates a redaction: a scope, exactly one target (`sourceId`, `memoryRef`, `recordId` or
 * `scan: true`), an optional reason (≤ 512 characters) and `dryRun`.
 * @throws PowerContextError `invalid_request`
 */
export function checkRedact(cmd: RedactCommand): CheckedRedact {
  const scopeId = checkScopeId(cmd.scopeId)
  const t = (cmd.target ?? {}) as Record<string, unknown>
  const given = ['sourceId', 'memoryRef', 'recordId', 'scan'].filter((k) => t[k] !== undefined)
  if (given.length !== 1) {
    throw invalidRequest('target', 'give exactly one of source_id, memory_ref, record_id or scan')
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
  if (t['recordId'] !== undefined) {
    const recordId = checkSourceId(t['recordId'], 'record_id')
    return { scopeId, target: { kind: 'record', recordId }, reason, dryRun }
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

/** Runs a checked redaction; see the file comment. */
export async function redact(deps: RedactDeps, c: CheckedRedact): Promise<RedactResult> {
  const planned: Planned[] =
    c.target.kind === 'scan'
      ? (await scanScope(deps.run, c.scopeId)).map(toPlanned)
      : [{ target: c.target, rule: null, fields: [] }]
  // Each target once, also when a scan found a record its source's erase already covers.
  const seen = new Set<string>()
  const once = (items: readonly RedactedItem[]) =>
    items.filter((i) => {
      const key = itemKey(i)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
  if (c.dryRun) {
    // Unknown explicit targets fail in a dry run too (nothing is written either way).
    const items: RedactedItem[] = []
    for (const p of planned) {
      const all = await deps.run.read((tx) => plannedWith(tx, c.scopeId, p))
      items.push(...once(all.map((x) => itemOf(x, 'would_redact', null))))
    }
    return { dryRun: true, items, erasure: null }
  }
  const items: RedactedItem[] = []
  for (const p of planned) {
    const now = deps.now()
    const ctx = {
      scopeId: c.scopeId,
      at: now.toISOString(),
      operationId: deps.newOperationId(now.getTime()),
      reason: c.reason ?? defaultRedactionReason(p.rule),
    }
    const done = await deps.run.write((tx) => redactOneInTx(tx, ctx, p))
    items.push(...once(done))
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
  const target: RedactTarget =
    f.sourceId !== null
      ? { kind: 'source', sourceId: f.sourceId }
      : f.recordId !== null
        ? { kind: 'record', recordId: f.recordId }
        : { kind: 'version', memoryRef: f.memoryRef! }
  return { target, rule: f.rule, fields: f.fields }
}

/** One key per erased target. */
function itemKey(i: RedactedItem): string {
  const ref = i.memoryRef === null ? '' : `${i.memoryRef.artifactId}@${i.memoryRef.revision}`
  return `${i.target}:${i.sourceId ?? i.recordId ?? ref}`
}
