/*
 * Secrets stored the way an older build stored them, before the server refused credentials: rows
 * written behind the backend's back (as the damage tests do), with hashes that match, so the
 * database is sound and `verify` is clean. A backend then projects them with `rebuild`.
 */
import { canonicalJson } from '../../src/core/canonical.js'
import { canonicalContent, hashCanonicalContent } from '../../src/core/content-hash.js'
import { sourcePayloadHash } from '../../src/storage/engine/ops/capture.js'

/** Runs one statement with `?` parameters on the database (a raw connection of the test's own). */
export type Exec = (sql: string, params: readonly unknown[]) => Promise<void>

/** Replaces version 1 of a memory (kind `fact`, no evidence) with `text`, hash fixed. */
export async function plantVersionText(
  exec: Exec,
  memoryId: string,
  text: string,
  reason: string | null = null,
): Promise<void> {
  const hash = hashCanonicalContent(
    canonicalContent({ kind: 'fact', text, sources: [], artifacts: [], observedAt: null }),
  )
  await exec(
    'UPDATE memory_versions SET text = ?, reason = ?, content_hash = ? WHERE memory_id = ? AND version = 1',
    [text, reason, hash, memoryId],
  )
  await exec('UPDATE memory_heads SET content_hash = ? WHERE memory_id = ?', [hash, memoryId])
}

/** Replaces a `text/plain` source's content and metadata, payload hash fixed. */
export async function plantSourceContent(
  exec: Exec,
  scopeId: string,
  sourceId: string,
  content: string,
  metadata: Record<string, unknown> = {},
): Promise<void> {
  const payload = canonicalJson(
    { content, media_type: 'text/plain', metadata, occurred_at: null },
    'source',
  )
  await exec(
    "UPDATE sources SET payload = ?, payload_hash = ? WHERE scope_id = ? AND source_type = 'content' AND source_id = ?",
    [payload, sourcePayloadHash(payload), scopeId, sourceId],
  )
}
