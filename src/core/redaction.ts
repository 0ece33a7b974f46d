/**
 * Administrative erase (docs/storage.md "Redaction"): the stored text of a source, of one memory
 * version or of a flush decision record is replaced by a marker while ids, versions, hashes and
 * the change feed stay. A version
 * is redacted when its text is the marker AND its stored hash no longer matches its bytes (a
 * memory whose real text is the marker still verifies, so it is not taken for a redacted one);
 * `verify` also requires a redaction record for every such row.
 */

/** What a redacted text, source content or reason reads as. */
export const REDACTED_TEXT = '[redacted]'

/** What a redaction erases. */
export const REDACTION_TARGETS = ['source', 'version', 'record'] as const
export type RedactionTarget = (typeof REDACTION_TARGETS)[number]

/** When and why a stored text was erased (shown instead of the text). */
export interface RedactionInfo {
  readonly redactedAt: string
  readonly reason: string
  /** The secret rule that found it (`admin redact --scan`), else null. */
  readonly rule: string | null
}

/** The reason recorded when a redaction names none. */
export function defaultRedactionReason(rule: string | null): string {
  return rule === null ? 'redacted by an administrator' : `secret detected (${rule})`
}
