import { invalidRequest } from './errors.js'

/** Maximum UTF-8 size of a memory's text, measured after normalisation. */
export const MAX_TEXT_BYTES = 8192
/** Maximum length of a reason, in code points. */
export const MAX_REASON_CODE_POINTS = 512
/** Maximum length of a kind, in code points. */
export const MAX_KIND_CODE_POINTS = 128
/** Kinds the product knows; `kind` stays an open string. */
export const KNOWN_KINDS = ['fact', 'preference', 'decision', 'constraint', 'working_note'] as const

const encoder = new TextEncoder()

/** UTF-8 byte length of a string. */
export function utf8Length(s: string): number {
  return encoder.encode(s).length
}

/**
 * Rejects strings that cannot be stored faithfully: lone surrogates (not valid Unicode) and NUL.
 * @throws PowerContextError `invalid_request`
 */
export function assertStorableString(field: string, s: string): void {
  if (!s.isWellFormed()) throw invalidRequest(field, 'contains a lone surrogate')
  if (s.includes('\u0000')) throw invalidRequest(field, 'contains a NUL character')
}

function requireString(field: string, value: unknown): string {
  if (typeof value !== 'string') throw invalidRequest(field, 'must be a string')
  assertStorableString(field, value)
  return value
}

/**
 * Memory text rule: NFC, trim Unicode whitespace, non-empty, at most 8192 UTF-8 bytes.
 * @throws PowerContextError `invalid_request`
 */
export function normalizeText(value: unknown, field = 'text'): string {
  const text = requireString(field, value).normalize('NFC').trim()
  if (text.length === 0) throw invalidRequest(field, 'must not be blank')
  if (utf8Length(text) > MAX_TEXT_BYTES) {
    throw invalidRequest(field, `must be at most ${MAX_TEXT_BYTES} UTF-8 bytes`)
  }
  return text
}

/**
 * Kind rule: an open string (known: fact, preference, decision, constraint, working_note); NFC,
 * trimmed, non-empty, at most 128 code points.
 * @throws PowerContextError `invalid_request`
 */
export function normalizeKind(value: unknown, field = 'kind'): string {
  const kind = requireString(field, value).normalize('NFC').trim()
  if (kind.length === 0) throw invalidRequest(field, 'must not be blank')
  if ([...kind].length > MAX_KIND_CODE_POINTS) {
    throw invalidRequest(field, `must be at most ${MAX_KIND_CODE_POINTS} characters`)
  }
  return kind
}

/**
 * Reason rule: NFC, trimmed; blank or absent becomes `null`; at most 512 code points. Audit only,
 * never evidence.
 * @throws PowerContextError `invalid_request`
 */
export function normalizeReason(value: unknown, field = 'reason'): string | null {
  if (value === undefined || value === null) return null
  const reason = requireString(field, value).normalize('NFC').trim()
  if (reason.length === 0) return null
  if ([...reason].length > MAX_REASON_CODE_POINTS) {
    throw invalidRequest(field, `must be at most ${MAX_REASON_CODE_POINTS} characters`)
  }
  return reason
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/

/**
 * `observed_at` rule: an RFC 3339 timestamp with a zone, normalised to UTC
 * `YYYY-MM-DDTHH:MM:SS.sssZ`; absent → `null`.
 * @throws PowerContextError `invalid_request`
 */
export function normalizeTimestamp(value: unknown, field = 'observed_at'): string | null {
  if (value === undefined || value === null) return null
  const s = requireString(field, value).trim()
  const m = RFC3339.exec(s)
  if (m === null) throw invalidRequest(field, 'must be an RFC 3339 timestamp with a time zone')
  const [, y, mo, d, h, , sec] = m.map(Number) as number[] as [number, ...number[]]
  const date = new Date(s.replace(' ', 'T'))
  const probe = new Date(0)
  probe.setUTCFullYear(y!, mo! - 1, d!)
  const calendarOk =
    probe.getUTCFullYear() === y && probe.getUTCMonth() === mo! - 1 && probe.getUTCDate() === d
  if (!calendarOk || Number.isNaN(date.getTime()) || (h ?? 0) > 23 || (sec ?? 0) > 59) {
    throw invalidRequest(field, 'is not a valid date and time')
  }
  return date.toISOString()
}
