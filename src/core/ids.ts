import { monotonicFactory } from 'ulid'

import { invalidRequest } from './errors.js'

/** Prefix of every memory id. */
export const MEMORY_ID_PREFIX = 'mem_'
/** Prefix of every operation id (groups the change-log rows of one request). */
export const OPERATION_ID_PREFIX = 'op_'
/** Maximum length of a memory or scope id (source ids: {@link MAX_SOURCE_ID_CHARS}). */
export const MAX_ID_LENGTH = 128

const nextUlid = monotonicFactory()
const PRINTABLE_ASCII = /^[\x21-\x7E]+$/

/** A new memory id: `mem_` + ULID (time-ordered, 30 ASCII characters). */
export function newMemoryId(now = Date.now()): string {
  return MEMORY_ID_PREFIX + nextUlid(now)
}

/** Prefix of every merge id. */
export const MERGE_ID_PREFIX = 'mrg_'

/** A new merge id: `mrg_` + ULID. */
export function newMergeId(now = Date.now()): string {
  return MERGE_ID_PREFIX + nextUlid(now)
}

/** A new operation id: `op_` + ULID. */
export function newOperationId(now = Date.now()): string {
  return OPERATION_ID_PREFIX + nextUlid(now)
}

/** Prefix of every receipt id. */
export const RECEIPT_ID_PREFIX = 'rcp_'

/** A new receipt id: `rcp_` + ULID (time-ordered). */
export function newReceiptId(now = Date.now()): string {
  return RECEIPT_ID_PREFIX + nextUlid(now)
}

/** Whether `value` is a well-formed id (printable ASCII without spaces, 1–128 characters). */
export function isPrintableId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_ID_LENGTH && PRINTABLE_ASCII.test(value)
}

function checkPrintableId(field: string, value: unknown): string {
  if (typeof value !== 'string') throw invalidRequest(field, 'must be a string')
  if (value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw invalidRequest(field, `must be 1–${MAX_ID_LENGTH} characters`)
  }
  if (!PRINTABLE_ASCII.test(value)) {
    throw invalidRequest(field, 'must be printable ASCII without spaces')
  }
  return value
}

/**
 * Scope ids are opaque, printable ASCII (no spaces), 1–128 characters, case-sensitive.
 * @throws PowerContextError `invalid_request`
 */
export function checkScopeId(value: unknown, field = 'scope_id'): string {
  return checkPrintableId(field, value)
}

/** Maximum length of a source id, in Unicode characters (code points) after NFC. */
export const MAX_SOURCE_ID_CHARS = 256
/** Maximum length of a source id in UTF-8 bytes (follows from {@link MAX_SOURCE_ID_CHARS}). */
export const MAX_SOURCE_ID_BYTES = MAX_SOURCE_ID_CHARS * 4

/** A control character (C0, DEL, C1) or a lone UTF-16 surrogate (not encodable as UTF-8). */
const CONTROL_OR_LONE_SURROGATE = /[\p{Cc}\p{Cs}]/u
const EDGE_WHITESPACE = /^\s|\s$/u

/**
 * Source ids are any Unicode text the Python reference accepted, kept exact: normalised to NFC
 * (two spellings of one id are one source), 1–256 characters (so at most 1,024 UTF-8 bytes), no
 * control characters, no white space at either end; case-sensitive. Returns the NFC form.
 * @throws PowerContextError `invalid_request`
 */
export function checkSourceId(value: unknown, field = 'source_id'): string {
  if (typeof value !== 'string') throw invalidRequest(field, 'must be a string')
  if (CONTROL_OR_LONE_SURROGATE.test(value)) {
    throw invalidRequest(field, 'must be text without control characters')
  }
  const id = value.normalize('NFC')
  const chars = countCodePoints(id)
  if (chars === 0 || chars > MAX_SOURCE_ID_CHARS) {
    throw invalidRequest(field, `must be 1–${MAX_SOURCE_ID_CHARS} characters`)
  }
  if (EDGE_WHITESPACE.test(id)) {
    throw invalidRequest(field, 'must not begin or end with white space')
  }
  return id
}

/** Whether `value` is a well-formed source id in its stored (NFC) form. */
export function isSourceId(value: unknown): value is string {
  try {
    return checkSourceId(value) === value
  } catch {
    return false
  }
}

function countCodePoints(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i)
    if (c < 0xd800 || c > 0xdbff) n += 1
  }
  return n
}

/**
 * Ids named by the caller that are kept in ASCII columns (flush record ids): printable ASCII,
 * 1–128 characters, case-sensitive.
 * @throws PowerContextError `invalid_request`
 */
export function checkRecordId(value: unknown, field = 'record_id'): string {
  return checkPrintableId(field, value)
}

/**
 * Memory ids are ASCII, at most 128 characters. Ids this runtime creates are `mem_` + ULID; any
 * other well-formed id simply does not exist (`memory_not_found` later), so only shape is checked.
 * @throws PowerContextError `invalid_request`
 */
export function checkMemoryId(value: unknown, field = 'memory_id'): string {
  return checkPrintableId(field, value)
}

/**
 * A version number (`revision`): an integer ≥ 1.
 * @throws PowerContextError `invalid_request`
 */
export function checkRevision(value: unknown, field = 'revision'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidRequest(field, 'must be an integer ≥ 1')
  }
  return value
}
