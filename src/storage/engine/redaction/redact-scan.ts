/*
 * `admin redact --scan`: every stored text of a scope the secret rules match — sources' content
 * and metadata, versions' text and reason, flush decision records' details. Each page is read in its own short read transaction
 * and tested outside it (a rule set may be slow or asynchronous; no transaction waits on it).
 * Already erased rows read as the marker and match nothing.
 */
import type { ArtifactRef } from '../../../core/memory-model.js'
import { findSecret } from '../../../core/secret-rules.js'
import type { SourceRow, VersionRow } from '../../spi/dialect-tx.js'
import type { FlushRecordRow } from '../../spi/journal-tx.js'
import { decodeSource } from '../ops/capture.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { isRedactedVersionRow } from '../version-codec.js'
import { redactedRecordDetails } from './redaction-reads.js'

const PAGE = 200

/** One stored item carrying text the secret rules match. Never carries the text. */
export interface SecretFinding {
  readonly sourceId: string | null
  readonly memoryRef: ArtifactRef | null
  readonly recordId: string | null
  /** The first rule that matched. */
  readonly rule: string
  /**
   * Which stored fields matched (`content`, `metadata`, `text`, `reason`, and for a decision
   * record `details.<member>`, e.g. `details.candidates`).
   */
  readonly fields: readonly string[]
}

/** The first rule matching any of the fields, and every field some rule matches. */
async function match(
  fields: readonly (readonly [string, string | null])[],
): Promise<{ rule: string; fields: string[] } | undefined> {
  let rule: string | undefined
  const hit: string[] = []
  for (const [name, text] of fields) {
    if (text === null || text.length === 0) continue
    // Awaited: the rule set may answer synchronously or with a promise.
    const found = (await findSecret(text)) as { rule: string } | undefined
    if (found === undefined) continue
    rule ??= found.rule
    hit.push(name)
  }
  return rule === undefined ? undefined : { rule, fields: hit }
}

async function sourceFinding(row: SourceRow): Promise<SecretFinding | undefined> {
  const s = decodeSource(row)
  const metadata = Object.keys(s.metadata).length === 0 ? null : JSON.stringify(s.metadata)
  const m = await match([
    ['content', s.content],
    ['metadata', metadata],
  ])
  return m === undefined
    ? undefined
    : { sourceId: row.sourceId, memoryRef: null, recordId: null, ...m }
}

async function versionFinding(v: VersionRow): Promise<SecretFinding | undefined> {
  if (isRedactedVersionRow(v)) return undefined
  const m = await match([
    ['text', v.text],
    ['reason', v.reason],
  ])
  const memoryRef = { artifactId: v.memoryId, revision: v.version }
  return m === undefined ? undefined : { sourceId: null, memoryRef, recordId: null, ...m }
}

/** Every string inside a JSON value, one per line. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out)
  else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      out.push(k)
      stringsOf(x, out)
    }
  }
  return out
}

async function recordFinding(r: FlushRecordRow): Promise<SecretFinding | undefined> {
  if (r.detailsJson === redactedRecordDetails(r.detailsJson)) return undefined
  const details = JSON.parse(r.detailsJson) as Record<string, unknown>
  const m = await match(
    Object.entries(details).map(([k, v]) => [`details.${k}`, stringsOf(v).join('\n')] as const),
  )
  return m === undefined
    ? undefined
    : { sourceId: null, memoryRef: null, recordId: r.recordId, ...m }
}

/**
 * Every finding of the scope: sources by position, then versions by memory id and version, then
 * decision records by window end.
 */
export async function scanScope(run: TxRunner, scopeId: string): Promise<SecretFinding[]> {
  const findings: SecretFinding[] = []
  const through = await run.read((tx) => tx.journal.highWatermark(scopeId))
  for (let after = 0; after < through; after += PAGE) {
    const rows = await run.read((tx) =>
      tx.journal.listSources(scopeId, after, Math.min(after + PAGE, through)),
    )
    for (const row of rows) {
      const f = await sourceFinding(row)
      if (f !== undefined) findings.push(f)
    }
  }
  for (let after = { memoryId: '', version: 0 }; ;) {
    const key = after
    const rows = await run.read((tx) => tx.redactions.scopeVersions(scopeId, key, PAGE))
    for (const v of rows) {
      const f = await versionFinding(v)
      if (f !== undefined) findings.push(f)
    }
    const last = rows.at(-1)
    if (last === undefined || rows.length < PAGE) break
    after = { memoryId: last.memoryId, version: last.version }
  }
  for (let after = 0; ;) {
    const from = after
    const rows = await run.read((tx) =>
      tx.journal.listRecords({ scopeId, recordId: undefined, after: from, limit: PAGE }),
    )
    for (const r of rows) {
      const f = await recordFinding(r)
      if (f !== undefined) findings.push(f)
    }
    const last = rows.at(-1)
    if (last === undefined || rows.length < PAGE) break
    after = Number(last.toPosition)
  }
  return findings
}
