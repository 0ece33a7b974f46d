import { monotonicFactory } from 'ulid'

import { invalidRequest } from './errors.js'

/** Prefix of every memory id. */
export const MEMORY_ID_PREFIX = 'mem_'
/** Prefix of every operation id (groups the change-log rows of one request). */
export const OPERATION_ID_PREFIX = 'op_'
/** Maximum length of any identifier (memory, scope, source ids). */
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

/**
 * Source ids follow the scope id rule: printable ASCII, 1–128 characters, case-sensitive.
 * @throws PowerContextError `invalid_request`
 */
export function checkSourceId(value: unknown, field = 'source_id'): string {
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
