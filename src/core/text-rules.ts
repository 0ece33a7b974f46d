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

/** Maximum length of a search query, in characters (code points), as the contract states. */
export const MAX_QUERY_CODE_POINTS = 8192

/**
 * Query rule (search, related, prepare): NFC, trim Unicode whitespace, non-empty, at most 8,192
 * characters (code points, as the contract's `maxLength` counts them — not UTF-8 bytes: an
 * 8,192-character CJK query is 24 KiB and is accepted).
 * @throws PowerContextError `invalid_request`
 */
export function normalizeQuery(value: unknown, field = 'query'): string {
  const query = requireString(field, value).normalize('NFC').trim()
  if (query.length === 0) throw invalidRequest(field, 'must not be blank')
  if (query.length > MAX_QUERY_CODE_POINTS && [...query].length > MAX_QUERY_CODE_POINTS) {
    throw invalidRequest(field, `must be at most ${MAX_QUERY_CODE_POINTS} characters`)
  }
  return query
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

/** Whether `t` lies in 23:59:59 UTC of a month's last day (RFC 3339: where a leap second goes). */
function isLeapSecondSlot(t: Date): boolean {
  const next = new Date(t.getTime() + 1000)
  return t.getUTCHours() === 23 && t.getUTCMinutes() === 59 && next.getUTCDate() === 1
}

/**
 * `observed_at` rule: an RFC 3339 timestamp with a zone, normalised to UTC
 * `YYYY-MM-DDTHH:MM:SS.sssZ`; absent → `null`. A leap second (`23:59:60Z` on a month's last day,
 * RFC 3339 §5.7, or the same instant in local time under an offset) is accepted and stored as
 * the instant that follows it, as POSIX time counts it (`…T00:00:00.000Z` of the next day): a
 * UTC instant of JavaScript has no second 60.
 * @throws PowerContextError `invalid_request`
 */
export function normalizeTimestamp(value: unknown, field = 'observed_at'): string | null {
  if (value === undefined || value === null) return null
  const s = requireString(field, value).trim()
  const m = RFC3339.exec(s)
  if (m === null) throw invalidRequest(field, 'must be an RFC 3339 timestamp with a time zone')
  const [, y, mo, d, h, min, sec] = m.map(Number) as number[] as [number, ...number[]]
  const parsed = new Date((sec === 60 ? s.replace(/:60(?=[.Zz+-])/, ':59') : s).replace(' ', 'T'))
  const leap = sec === 60 && min === 59 && isLeapSecondSlot(parsed)
  const date = leap ? new Date(Math.floor(parsed.getTime() / 1000) * 1000 + 1000) : parsed
  const probe = new Date(0)
  probe.setUTCFullYear(y!, mo! - 1, d!)
  const calendarOk =
    probe.getUTCFullYear() === y && probe.getUTCMonth() === mo! - 1 && probe.getUTCDate() === d
  if (!calendarOk || Number.isNaN(date.getTime()) || (h ?? 0) > 23 || ((sec ?? 0) > 59 && !leap)) {
    throw invalidRequest(field, 'is not a valid date and time')
  }
  return date.toISOString()
}
