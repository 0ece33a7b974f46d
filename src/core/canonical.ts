import canonicalize from 'canonicalize'

import { invalidRequest } from './errors.js'

/** A JSON value as the canonical encoder accepts it. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/**
 * Deepest nesting of arrays/objects accepted in canonical JSON (e.g. source metadata). The encoder
 * is recursive; a 2 MiB body could otherwise nest deeper than the stack allows.
 */
export const MAX_JSON_DEPTH = 64

/** An object as `JSON.parse` makes it (or a null-prototype one). */
function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function nfcDeep(value: unknown, path: string, depth = 0): JsonValue {
  if (depth > MAX_JSON_DEPTH)
    throw invalidRequest(path, `nests deeper than ${MAX_JSON_DEPTH} levels`)
  if (value === null || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidRequest(path, 'must be a finite number')
    return value
  }
  if (typeof value === 'string') {
    if (!value.isWellFormed()) throw invalidRequest(path, 'contains a lone surrogate')
    return value.normalize('NFC')
  }
  if (Array.isArray(value)) return value.map((item, i) => nfcDeep(item, `${path}[${i}]`, depth + 1))
  if (typeof value === 'object' && isPlainObject(value)) {
    const out: Record<string, JsonValue> = {}
    for (const [key, item] of Object.entries(value)) {
      if (!key.isWellFormed()) throw invalidRequest(path, 'has a key with a lone surrogate')
      const nfcKey = key.normalize('NFC')
      if (Object.hasOwn(out, nfcKey))
        throw invalidRequest(path, `keys collide after NFC: ${nfcKey}`)
      // A defined property, never an assignment: a `__proto__` key stays a key.
      Object.defineProperty(out, nfcKey, {
        value: nfcDeep(item, `${path}.${nfcKey}`, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    return out
  }
  throw invalidRequest(path, 'is not a JSON value')
}

function canonicalAt(value: unknown, path: string, depth: number): string {
  const text = canonicalize(nfcDeep(value, path, depth))
  if (text === undefined) throw invalidRequest(path, 'is not a JSON value')
  return text
}

/**
 * Canonical JSON text: every string and key NFC-normalised, then RFC 8785 (JCS) serialisation.
 * Two values with the same meaning always give the same text.
 * @throws PowerContextError `invalid_request` for non-JSON values, NaN/Infinity, lone surrogates
 *   or keys that collide after NFC.
 */
export function canonicalJson(value: unknown, path = 'value'): string {
  return canonicalAt(value, path, 0)
}

/** Levels of a value {@link canonicalJsonSliced} encodes member by member. */
const SLICED_LEVELS = 2

/**
 * {@link canonicalJson} of a large value (a flush decision record of several MB) in slices: the
 * members of its top-level objects and arrays (two levels) are encoded one at a time, `pause()`
 * awaited before each, so the caller can yield to the event loop. The text and the errors are
 * those of `canonicalJson`: canonical JSON composes (an object is its members in key order, an
 * array its items in order), and members are checked in their own order before keys are sorted.
 */
export async function canonicalJsonSliced(
  value: unknown,
  path: string,
  pause: () => Promise<void>,
  depth = 0,
): Promise<string> {
  if (depth >= SLICED_LEVELS || value === null || typeof value !== 'object')
    return canonicalAt(value, path, depth)
  if (Array.isArray(value)) {
    const items: string[] = []
    for (const [i, item] of value.entries()) {
      await pause()
      items.push(await canonicalJsonSliced(item, `${path}[${i}]`, pause, depth + 1))
    }
    return `[${items.join(',')}]`
  }
  if (!isPlainObject(value)) return canonicalAt(value, path, depth)
  const members = new Map<string, string>()
  for (const [key, item] of Object.entries(value)) {
    if (!key.isWellFormed()) throw invalidRequest(path, 'has a key with a lone surrogate')
    const nfcKey = key.normalize('NFC')
    if (members.has(nfcKey)) throw invalidRequest(path, `keys collide after NFC: ${nfcKey}`)
    await pause()
    members.set(nfcKey, await canonicalJsonSliced(item, `${path}.${nfcKey}`, pause, depth + 1))
  }
  // The default sort compares UTF-16 code units, as RFC 8785 orders keys.
  const keys = [...members.keys()].sort()
  const parts: string[] = []
  for (const key of keys) {
    await pause()
    parts.push(`${JSON.stringify(key)}:${members.get(key)!}`)
  }
  return `{${parts.join(',')}}`
}

/** Canonical bytes: UTF-8 of {@link canonicalJson}. */
export function canonicalBytes(value: unknown, path = 'value'): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value, path))
}

function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

/**
 * Sorts references by their canonical bytes and drops duplicates (same canonical bytes), so a
 * set of refs has exactly one canonical order.
 */
export function normalizeRefList<T>(refs: readonly T[], path: string): T[] {
  const keyed = refs.map((ref, i) => ({ ref, key: canonicalJson(ref, `${path}[${i}]`) }))
  keyed.sort((a, b) => compareUtf8(a.key, b.key))
  const out: T[] = []
  let last: string | undefined
  for (const { ref, key } of keyed) {
    if (key !== last) out.push(ref)
    last = key
  }
  return out
}
