/**
 * HTTP robustness: thousands of generated malformed requests against a real server on loopback,
 * across every route of the contract. Every response must be a 4xx in the contract's error
 * envelope whose `request_id` equals the `X-PowerContext-Request-ID` header; afterwards the
 * server must still serve and the seeded data must be exactly as before.
 *
 * Generation is deterministic: an exhaustive pass derived from the contract's request schemas
 * (every field × every kind of violation), curated schema-valid but domain-invalid requests, and
 * fast-check samples with a fixed seed. A schema-mutated body the contract would accept is dropped
 * before sending (checked with the server's own validator), so no valid request is ever sent.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { OPENAPI_DOCUMENT } from '../../src/contract/openapi-document.js'
import { type OperationId, OPERATIONS } from '../../src/contract/operations.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { SqliteMemoryBackend } from '../../src/storage/sqlite/index.js'
import { CAPTURE_BODY_VALUES, MAX_BODY_VALUES } from '../../src/wire/body-values.js'
import { ContractValidator } from '../../src/wire/contract-validator.js'
import { MAX_BODY_BYTES } from '../../src/wire/operation-handlers.js'
import { assertErrorEnvelope, assertMatchesContract } from '../support/contract-assert.js'

const SCOPE = 'project:robustness/api'
const SOURCE_ID = 'src-robust-1'
const SOURCE_CONTENT = 'Retro notes: the gateway must retry idempotent requests three times.'
const SEED = 20_250_601
const CONCURRENCY = 16
/** fast-check samples per route, on top of the exhaustive schema pass. */
const RANDOM_PER_POST_ROUTE = 110
const RANDOM_PER_GET_ROUTE = 60
const DEADLINE_MS = 45_000
const REQUEST_TIMEOUT_MS = 20_000
const GENERATED_ID = /^[0-9a-f]{16}$/

// ---------------------------------------------------------------------------------------------
// Contract schemas
// ---------------------------------------------------------------------------------------------

interface JsonSchema {
  readonly $ref?: string
  readonly type?: string | readonly string[]
  readonly oneOf?: readonly JsonSchema[]
  readonly enum?: readonly unknown[]
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly minItems?: number
  readonly maxItems?: number
  readonly items?: JsonSchema
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: readonly string[]
}

const SCHEMAS = OPENAPI_DOCUMENT.components.schemas as unknown as Readonly<
  Record<string, JsonSchema>
>

function resolve(schema: JsonSchema): JsonSchema {
  let s = schema
  while (s.$ref !== undefined) {
    const next = SCHEMAS[s.$ref.replace('#/components/schemas/', '')]
    if (next === undefined) throw new Error(`unresolved ${s.$ref}`)
    s = next
  }
  return s
}

function allowedTypes(schema: JsonSchema): Set<string> {
  const out = new Set<string>()
  const add = (x: JsonSchema): void => {
    const r = resolve(x)
    if (r.type !== undefined) for (const t of [r.type].flat()) out.add(t)
    for (const branch of r.oneOf ?? []) add(branch)
  }
  add(schema)
  return out
}

/** The branch of `schema` (itself or one of its `oneOf`) that admits `type`. */
function branch(schema: JsonSchema, type: string): JsonSchema | undefined {
  const r = resolve(schema)
  if (r.type !== undefined && [r.type].flat().includes(type)) return r
  for (const b of r.oneOf ?? []) {
    const found = branch(b, type)
    if (found !== undefined) return found
  }
  return undefined
}

function jsonType(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

const admits = (types: Set<string>, v: unknown): boolean => {
  const t = jsonType(v)
  return types.has(t) || (t === 'integer' && types.has('number'))
}

/** A schema-valid value (for filling arrays past `maxItems`). */
function sampleValid(schema: JsonSchema): unknown {
  const s = resolve(schema)
  if (s.enum !== undefined) return s.enum[0]
  const types = allowedTypes(s)
  if (types.has('string')) return 'a'.repeat(Math.max(1, s.minLength ?? 1))
  if (types.has('integer')) return s.minimum ?? 1
  if (types.has('object')) {
    const out: Record<string, unknown> = {}
    for (const key of s.required ?? []) out[key] = sampleValid(s.properties![key]!)
    return out
  }
  return null
}

type Path = readonly (string | number)[]

interface Field {
  readonly path: Path
  readonly schema: JsonSchema
  readonly required: boolean
}

interface ObjectAt {
  readonly path: Path
  readonly schema: JsonSchema
}

/** Every field and object of a request body, walking into the values the base body holds. */
function walk(
  schema: JsonSchema,
  value: unknown,
  path: Path,
  fields: Field[],
  objects: ObjectAt[],
) {
  const s = resolve(schema)
  if (s.properties !== undefined && isRecord(value)) {
    objects.push({ path, schema: s })
    for (const [key, sub] of Object.entries(s.properties)) {
      fields.push({
        path: [...path, key],
        schema: sub,
        required: s.required?.includes(key) ?? false,
      })
      if (key in value) walk(sub, value[key], [...path, key], fields, objects)
    }
  }
  const arr = branch(s, 'array')
  if (arr?.items !== undefined && Array.isArray(value) && value.length > 0) {
    walk(arr.items, value[0], [...path, 0], fields, objects)
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

function getAt(root: unknown, path: Path): unknown {
  let cur: unknown = root
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined
    cur = (cur as Record<string | number, unknown>)[key]
  }
  return cur
}

/** A copy of `root` with `path` set (own property, even for `__proto__`) or deleted. */
function edit(root: unknown, path: Path, op: { set: unknown } | 'delete'): unknown {
  const copy = structuredClone(root)
  const parent = getAt(copy, path.slice(0, -1))
  const key = path.at(-1)!
  if (typeof parent !== 'object' || parent === null) return copy
  if (op === 'delete') delete (parent as Record<string | number, unknown>)[key]
  else
    Object.defineProperty(parent, key, {
      value: op.set,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  return copy
}

const pathText = (path: Path): string => (path.length === 0 ? 'body' : path.join('.'))

// ---------------------------------------------------------------------------------------------
// Invalid values
// ---------------------------------------------------------------------------------------------

interface Labeled {
  readonly label: string
  readonly value: unknown
}

const TYPE_SAMPLES: readonly unknown[] = [
  'text',
  '',
  0,
  7,
  -3,
  2.5,
  1e21,
  true,
  false,
  null,
  [],
  ['a'],
  [1, [2]],
  {},
  { nested: 'object' },
  { artifact_id: 'mem_x', revision: 1 },
]

/** Violates `^[\x21-\x7E]+$` (spaces, controls, non-ASCII) or the 128-character limit. */
const BAD_IDS: readonly string[] = [
  'has space',
  'tab\tid',
  'line\nbreak',
  'nul\u0000id',
  'del\u007f',
  'naïve',
  'emoji-🙂',
  '日本語',
  '\u00a0',
  ' ',
  'x'.repeat(129),
  'y'.repeat(300),
]

const FORBIDDEN_ID_CHARS = [' ', '\t', '\n', '\u0000', '\u007f', 'é', 'ß', '🙂', '\u2028', '\u00a0']

const BAD_TIMESTAMPS = [
  'yesterday',
  '2025-02-30T10:00:00Z',
  '2025-01-01T10:00:00',
  '2025-01-01',
  '2025-13-45T99:99:99Z',
]

const describeValue = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v)
  return text.length > 24 ? `${text.slice(0, 20)}…(${text.length})` : text
}

/** Deterministic violations of one field's schema (value-level; objects are handled apart). */
function violations(schema: JsonSchema, current: unknown): Labeled[] {
  const types = allowedTypes(schema)
  const out: Labeled[] = []
  const push = (label: string, value: unknown): void => {
    if (!out.some((o) => JSON.stringify(o.value) === JSON.stringify(value)))
      out.push({ label, value })
  }
  for (const v of TYPE_SAMPLES) if (!admits(types, v)) push(`wrong type ${jsonType(v)}`, v)

  const str = branch(schema, 'string')
  if (str !== undefined) {
    if ((str.minLength ?? 0) >= 1) push('empty string', '')
    if (str.maxLength !== undefined) {
      push(`maxLength+1`, 'a'.repeat(str.maxLength + 1))
      // Far beyond maxLength, but under the body limit (that one has its own probes).
      const huge = Math.min(Math.max(str.maxLength * 8, 100_000), 1_800_000)
      push(`huge string ${huge}`, 'h'.repeat(huge))
    }
    if (str.pattern !== undefined) for (const bad of BAD_IDS) push('pattern', bad)
    if (str.enum !== undefined) {
      for (const bad of ['unknown-value', String(str.enum[0]).toUpperCase(), ''])
        if (!str.enum.includes(bad)) push('not in enum', bad)
    }
  }

  const int = branch(schema, 'integer')
  if (int !== undefined) {
    const { minimum: min, maximum: max } = int
    if (min !== undefined) {
      push('below minimum', min - 1)
      if (min > -1) push('negative', -1)
      push('hugely negative', -(2 ** 53))
      if (min >= 1) push('zero', 0)
    }
    if (max !== undefined) {
      push('above maximum', max + 1 > max ? max + 1 : 2 ** 64)
      push('huge', 1e21)
      push('max double', Number.MAX_VALUE)
    }
    for (const f of [1.5, 0.1, -2.75, (min ?? 0) + 0.5]) push('fractional', f)
  }

  const arr = branch(schema, 'array')
  if (arr !== undefined && arr.items !== undefined) {
    const item = Array.isArray(current) && current.length > 0 ? current[0] : sampleValid(arr.items)
    if ((arr.minItems ?? 0) >= 1) push('empty array', [])
    if (arr.maxItems !== undefined)
      push(
        `maxItems+1`,
        Array.from({ length: arr.maxItems + 1 }, () => structuredClone(item)),
      )
    for (const bad of violations(arr.items, item).slice(0, 6))
      push(`bad item: ${bad.label}`, [bad.value])
  }
  return out
}

/** Random violations of one field's schema. */
function violationArb(schema: JsonSchema, current: unknown): fc.Arbitrary<Labeled> {
  const types = allowedTypes(schema)
  const arbs: fc.Arbitrary<Labeled>[] = [
    fc
      .jsonValue({ maxDepth: 2 })
      .filter((v) => !admits(types, v))
      .map((v) => ({ label: `wrong type ${jsonType(v)}`, value: v })),
  ]
  const str = branch(schema, 'string')
  if (str !== undefined) {
    const max = str.maxLength
    if (max !== undefined)
      arbs.push(
        fc
          .tuple(fc.integer({ min: max + 1, max: max + 256 }), fc.constantFrom('a', 'Z', '-', '_'))
          .map(([n, c]) => ({ label: `too long (${n})`, value: c.repeat(n) })),
      )
    if ((str.minLength ?? 0) >= 1) arbs.push(fc.constant({ label: 'empty string', value: '' }))
    if (str.pattern !== undefined)
      arbs.push(
        fc
          .tuple(
            fc.string({ maxLength: 12 }),
            fc.constantFrom(...FORBIDDEN_ID_CHARS),
            fc.string({ maxLength: 12 }),
          )
          .map(([a, c, b]) => ({ label: 'pattern', value: `${a}${c}${b}` })),
      )
    if (str.enum !== undefined) {
      const allowed = str.enum
      arbs.push(
        fc
          .string({ maxLength: 12 })
          .filter((v) => !allowed.includes(v))
          .map((v) => ({ label: 'not in enum', value: v })),
      )
    }
  }
  const int = branch(schema, 'integer')
  if (int !== undefined) {
    const { minimum: min, maximum: max } = int
    arbs.push(
      fc
        .double({ min: -1e12, max: 1e12, noNaN: true, noDefaultInfinity: true })
        .filter((v) => !Number.isInteger(v))
        .map((v) => ({ label: 'fractional', value: v })),
    )
    if (min !== undefined)
      arbs.push(
        fc
          .integer({ min: -(2 ** 31), max: min - 1 })
          .map((v) => ({ label: 'below minimum', value: v })),
      )
    if (max !== undefined)
      arbs.push(
        (max < 2 ** 31 - 1
          ? fc.integer({ min: max + 1, max: 2 ** 31 - 1 })
          : fc.double({ min: 2 ** 53, max: 1e300, noNaN: true })
        ).map((v) => ({ label: 'above maximum', value: v })),
      )
  }
  const arr = branch(schema, 'array')
  if (arr?.items !== undefined) {
    const item = Array.isArray(current) && current.length > 0 ? current[0] : sampleValid(arr.items)
    if ((arr.minItems ?? 0) >= 1) arbs.push(fc.constant({ label: 'empty array', value: [] }))
    arbs.push(
      fc
        .array(violationArb(arr.items, item), { minLength: 1, maxLength: 3 })
        .map((bad) => ({ label: 'bad items', value: bad.map((b) => b.value) })),
    )
  }
  return fc.oneof(...arbs)
}

// ---------------------------------------------------------------------------------------------
// Probes
// ---------------------------------------------------------------------------------------------

type Category =
  | 'schema'
  | 'domain'
  | 'shape'
  | 'json'
  | 'utf8'
  | 'empty'
  | 'content-type'
  | 'too-large'
  | 'method'
  | 'url'

const CATEGORIES: readonly Category[] = [
  'schema',
  'domain',
  'shape',
  'json',
  'utf8',
  'empty',
  'content-type',
  'too-large',
  'method',
  'url',
]

interface Probe {
  readonly route: OperationId
  readonly category: Category
  readonly label: string
  readonly method: string
  readonly path: string
  /** Absent: no Content-Type header. */
  readonly contentType?: string | undefined
  /** Built lazily (some bodies are megabytes). Absent: no body. */
  readonly body?: () => Buffer
  readonly chunked?: boolean
  readonly expect: readonly number[]
  /** Rejected by Node's HTTP parser: the caller's request id cannot be read back. */
  readonly parserLevel?: boolean
}

const JSON_TYPE = 'application/json'
const jsonBody = (v: unknown) => (): Buffer => Buffer.from(JSON.stringify(v), 'utf8')
const textBody = (s: string) => (): Buffer => Buffer.from(s, 'utf8')

/** A JSON text with one value replaced by raw (possibly invalid) text or bytes. */
function spliced(body: Record<string, unknown>, key: string, raw: Buffer | string): () => Buffer {
  const marker = 'ZZ_SPLICE_ZZ'
  return (): Buffer => {
    const [before, after] = JSON.stringify({ ...body, [key]: marker }).split(`"${marker}"`)
    return Buffer.concat([Buffer.from(before!), Buffer.from(raw), Buffer.from(after!)])
  }
}

/** A JSON body of exactly `bytes` bytes, padding the string field `key`. */
function padded(body: Record<string, unknown>, key: string, bytes: number): () => Buffer {
  return (): Buffer => {
    const empty = Buffer.byteLength(JSON.stringify({ ...body, [key]: '' }))
    return Buffer.from(JSON.stringify({ ...body, [key]: 'p'.repeat(bytes - empty) }))
  }
}

const deep = (n: number, open = '[', close = ']') => open.repeat(n) + close.repeat(n)
const deepObject = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n)

const BAD_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0xa0, 0xa1],
  [0xe2, 0x28, 0xa1],
  [0xe2, 0x82, 0x28],
  [0xf0, 0x28, 0x8c, 0xbc],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe9],
]

const RAW_JSON_VALUES = [
  'NaN',
  'Infinity',
  '-Infinity',
  'undefined',
  "'single'",
  '0x1F',
  '01',
  '+1',
  '.5',
  '1.',
  '1e',
  '--1',
  'True',
  'None',
  '"unterminated',
  '"bad \\x41 escape"',
  '"short \\u12 escape"',
  '"raw\ncontrol"',
]

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'text/json',
  'text/html; charset=utf-8',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'application/jsonl',
  'application/json-seq',
  'application/vnd.api+json',
  'application/javascript',
  'json',
  '*/*',
]

const WRONG_METHODS_FOR_POST = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND', 'TRACE']
const WRONG_METHODS_FOR_GET = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND']
/** Method tokens Node's HTTP parser itself rejects. */
const UNPARSABLE_METHODS = ['FOO', 'BREW', 'XYZZY']

interface Ids {
  /** Active at revision 2 (updated once). */
  readonly a: string
  /** Active at revision 1. */
  readonly b: string
  /** Forgotten at revision 1. */
  readonly f: string
  /** Merged into `m` (frozen). */
  readonly c: string
  /** Active merge result (revision 1). */
  readonly m: string
}

type PostOp = Exclude<
  OperationId,
  'live' | 'ready' | 'capabilities' | 'openapiDocument' | 'metrics'
>

interface Base {
  readonly body: Record<string, unknown>
  /** The object schema this body instantiates (a `oneOf` branch for `get`). */
  readonly shape: JsonSchema
}

function basesFor(ids: Ids): Record<PostOp, readonly Base[]> {
  const shape = (name: string, branchIndex?: number): JsonSchema => {
    const s = SCHEMAS[name]!
    return branchIndex === undefined ? s : s.oneOf![branchIndex]!
  }
  const source = [{ name: 'content', source_id: SOURCE_ID }]
  const at = '2025-05-01T10:00:00Z'
  return {
    claudeCodeHook: [
      {
        shape: shape('ClaudeCodeHookPayload'),
        body: {
          hook_event_name: 'UserPromptSubmit',
          session_id: 'robustness-session',
          cwd: '/',
          prompt: 'How do refunds reach the PSP?',
        },
      },
    ],
    captureContent: [
      {
        shape: shape('CaptureContentRequest'),
        body: {
          scope_id: SCOPE,
          source_id: 'src-robust-new',
          content: 'Captured evidence that must never be stored.',
          media_type: 'text/plain',
          metadata: { origin: 'robustness', n: 1 },
          occurred_at: at,
        },
      },
    ],
    remember: [
      {
        shape: shape('RememberRequest'),
        body: {
          scope_id: SCOPE,
          entries: [
            {
              kind: 'fact',
              text: 'A brand new fact that must never be stored.',
              sources: source,
              observed_at: at,
              reason: 'robustness',
            },
          ],
        },
      },
    ],
    update: [
      {
        shape: shape('UpdateRequest'),
        body: {
          scope_id: SCOPE,
          memory_ref: { artifact_id: ids.a, revision: 2 },
          text: 'Rewritten text that must never be stored.',
          kind: 'decision',
          sources: source,
          observed_at: at,
          reason: 'robustness',
        },
      },
    ],
    forget: [
      {
        shape: shape('ForgetRequest'),
        body: { scope_id: SCOPE, memory_id: ids.b, expected_revision: 1, reason: 'robustness' },
      },
    ],
    restore: [
      {
        shape: shape('RestoreRequest'),
        body: {
          scope_id: SCOPE,
          memory_id: ids.f,
          to_revision: 1,
          preview_token: 'AAAAbbbbCCCCdddd-_',
          reason: 'robustness',
        },
      },
    ],
    restorePreview: [
      {
        shape: shape('RestorePreviewRequest'),
        body: { scope_id: SCOPE, memory_id: ids.c, to_revision: 1 },
      },
    ],
    merge: [
      {
        shape: shape('MergeRequest'),
        body: {
          scope_id: SCOPE,
          inputs: [
            { artifact_id: ids.a, revision: 2 },
            { artifact_id: ids.b, revision: 1 },
          ],
          kind: 'fact',
          text: 'Merged text that must never be stored.',
          reason: 'robustness',
        },
      },
    ],
    get: [
      {
        shape: shape('GetRequest', 0),
        body: { scope_id: SCOPE, memory_ref: { artifact_id: ids.a, revision: 1 } },
      },
      { shape: shape('GetRequest', 1), body: { scope_id: SCOPE, memory_id: ids.a } },
    ],
    history: [{ shape: shape('HistoryRequest'), body: { scope_id: SCOPE, memory_id: ids.a } }],
    list: [
      {
        shape: shape('ListRequest'),
        body: {
          scope_id: SCOPE,
          states: ['active', 'forgotten'],
          kinds: ['fact', 'decision'],
          limit: 50,
          after: 'mem_0',
        },
      },
    ],
    search: [
      {
        shape: shape('SearchRequest'),
        body: {
          scope_id: SCOPE,
          query: 'gateway retries idempotent requests',
          limit: 8,
          mode: 'fts',
          kinds: ['decision'],
        },
      },
    ],
    changes: [{ shape: shape('ChangesRequest'), body: { scope_id: SCOPE, since: 0, limit: 100 } }],
    flush: [{ shape: shape('FlushRequest'), body: { scope_id: SCOPE, limit: 10, until: 5 } }],
    redact: [
      {
        shape: shape('RedactRequest'),
        body: { scope_id: SCOPE, source_id: SOURCE_ID, reason: 'robustness', dry_run: true },
      },
    ],
    flushRecords: [
      {
        shape: shape('FlushRecordsRequest'),
        body: { scope_id: SCOPE, record_id: 'flr_none', after: 0, limit: 10 },
      },
    ],
    listScopes: [{ shape: shape('ListScopesRequest'), body: { after: 'robust', limit: 10 } }],
    prepareContext: [
      {
        shape: shape('PrepareContextRequest'),
        body: {
          scope_id: SCOPE,
          scope_ids: ['user:robustness'],
          query: 'gateway retries idempotent requests',
          max_bytes: 4000,
        },
      },
    ],
    contextReceipts: [
      {
        shape: shape('ReceiptsRequest'),
        body: { scope_id: SCOPE, session_id: 'robustness-session', limit: 10 },
      },
    ],
    getSources: [
      { shape: shape('GetSourcesRequest'), body: { scope_id: SCOPE, source_ids: [SOURCE_ID] } },
    ],
    listSources: [
      { shape: shape('ListSourcesRequest'), body: { scope_id: SCOPE, after: 0, limit: 10 } },
    ],
  }
}

const EXTRA_KEYS = ['unknown', 'Scope_ID', 'scope_id ', '__proto__', 'constructor', '', 'x.y', 'é']

interface Mutation {
  readonly label: string
  readonly apply: (body: unknown) => unknown
}

function structure(base: Base) {
  const fields: Field[] = []
  const objects: ObjectAt[] = []
  walk(base.shape, base.body, [], fields, objects)
  const required = fields.filter(
    (f) => f.required && getAt(base.body, f.path.slice(0, -1)) !== undefined,
  )
  return { fields, objects, required }
}

/** Every field × every violation, every required field removed, unknown fields everywhere. */
function exhaustiveMutations(base: Base): Mutation[] {
  const { fields, objects, required } = structure(base)
  const out: Mutation[] = []
  for (const f of fields) {
    for (const v of violations(f.schema, getAt(base.body, f.path)))
      out.push({
        label: `${pathText(f.path)}: ${v.label} ${describeValue(v.value)}`,
        apply: (b) => edit(b, f.path, { set: v.value }),
      })
  }
  for (const f of required)
    out.push({ label: `${pathText(f.path)}: missing`, apply: (b) => edit(b, f.path, 'delete') })
  for (const o of objects) {
    for (const key of EXTRA_KEYS.filter((k) => !(k in (o.schema.properties ?? {}))))
      out.push({
        label: `${pathText(o.path)}: unknown field ${JSON.stringify(key)}`,
        apply: (b) => edit(b, [...o.path, key], { set: 1 }),
      })
  }
  return out
}

function mutationArb(base: Base): fc.Arbitrary<Mutation> {
  const { fields, objects, required } = structure(base)
  const arbs: fc.WeightedArbitrary<Mutation>[] = [
    {
      weight: 6,
      arbitrary: fc.constantFrom(...fields).chain((f) =>
        violationArb(f.schema, getAt(base.body, f.path)).map((v) => ({
          label: `${pathText(f.path)}: ${v.label} ${describeValue(v.value)}`,
          apply: (b: unknown) => edit(b, f.path, { set: v.value }),
        })),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...objects),
          fc.string({ minLength: 1, maxLength: 16 }),
          fc.jsonValue({ maxDepth: 1 }),
        )
        .filter(([o, key]) => !(key in (o.schema.properties ?? {})))
        .map(([o, key, value]) => ({
          label: `${pathText(o.path)}: unknown field ${JSON.stringify(key)}`,
          apply: (b: unknown) => edit(b, [...o.path, key], { set: value }),
        })),
    },
  ]
  if (required.length > 0)
    arbs.push({
      weight: 1,
      arbitrary: fc.constantFrom(...required).map((f) => ({
        label: `${pathText(f.path)}: missing`,
        apply: (b: unknown) => edit(b, f.path, 'delete'),
      })),
    })
  return fc.oneof(...arbs)
}

interface DomainCase {
  readonly label: string
  readonly body: unknown
  readonly expect: readonly number[]
  /** The bytes to send instead of `body` (values too deep to serialise here). */
  readonly bytes?: () => Buffer
}

const BLANK = fc
  .array(fc.constantFrom(' ', '\t', '\n', '\r', '\u3000', '\u2003'), { minLength: 1, maxLength: 8 })
  .map((a) => a.join(''))
const LONE_SURROGATE = fc
  .tuple(
    fc.string({ maxLength: 10 }),
    fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'),
    fc.string({ maxLength: 10 }),
  )
  .map(([a, s, b]) => `${a}${s}${b}`)
const WITH_NUL = fc
  .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
  .map(([a, b]) => `${a}\u0000${b}`)
const OVER_8192_BYTES = fc.integer({ min: 4097, max: 8192 }).map((n) => 'é'.repeat(n))
const BAD_TEXT = fc.oneof(BLANK, LONE_SURROGATE, WITH_NUL, OVER_8192_BYTES)
// A query is limited in characters (code points), not bytes: 8,192 of 'é' is a valid query.
const OVER_8192_CHARS = fc.integer({ min: 8193, max: 9000 }).map((n) => 'é'.repeat(n))
const BAD_QUERY = fc.oneof(BLANK, LONE_SURROGATE, WITH_NUL, OVER_8192_CHARS)
const MISSING_ID = fc.stringMatching(/^mem_[0-9A-HJKMNP-TV-Z]{26}$/)
const OTHER_SCOPE = fc.stringMatching(/^[\x21-\x7E]{1,64}$/).filter((s) => s !== SCOPE)
const BAD_TIME = fc.constantFrom(...BAD_TIMESTAMPS)
const DEPTH = fc.integer({ min: 65, max: 5000 })

/** Schema-valid requests the runtime must refuse (404, 409, 422), with nothing written. */
function domainArb(
  op: PostOp,
  bases: Record<PostOp, readonly Base[]>,
  ids: Ids,
): fc.Arbitrary<DomainCase>[] {
  const b = bases[op][0]!.body
  const entry = (b['entries'] as Record<string, unknown>[] | undefined)?.[0] ?? {}
  const I = [422]
  const N = [404]
  const C = [409]
  const c = (label: string, expect: readonly number[], body: unknown): DomainCase => ({
    label,
    body,
    expect,
  })
  const ref = (artifact_id: string, revision: number) => ({ artifact_id, revision })
  const refA = ref(ids.a, 2)
  switch (op) {
    case 'captureContent':
      return [
        // Not OVER_8192_BYTES: source content may hold up to 1,000,000 bytes.
        fc
          .oneof(BLANK, LONE_SURROGATE, WITH_NUL)
          .map((t) => c('content: bad text', I, { ...b, content: t })),
        BAD_TIME.map((t) => c('occurred_at: bad timestamp', I, { ...b, occurred_at: t })),
        DEPTH.map((n) => ({
          ...c(`metadata: objects nested ${n} deep`, I, undefined),
          bytes: spliced(b, 'metadata', deepObject(n)),
        })),
        DEPTH.map((n) => ({
          ...c(`metadata: arrays nested ${n} deep`, I, undefined),
          bytes: spliced(b, 'metadata', `{"a":${deep(n)}}`),
        })),
        LONE_SURROGATE.map((s) => c('metadata: lone surrogate', I, { ...b, metadata: { [s]: s } })),
        fc.constant(
          c('metadata: keys collide after NFC', I, { ...b, metadata: { é: 1, 'e\u0301': 2 } }),
        ),
        fc
          .string({ minLength: 1, maxLength: 40 })
          .filter((s) => s.trim() !== '' && s !== SOURCE_CONTENT)
          .map((s) =>
            c('source_id: same id, other content', C, { ...b, source_id: SOURCE_ID, content: s }),
          ),
        fc
          .tuple(fc.string({ maxLength: 8 }), fc.constantFrom('é', '\u0000', '\u007f', '\t'))
          .map(([s, x]) =>
            c('media_type: not printable ASCII', I, { ...b, media_type: `text/${s}${x}` }),
          ),
      ]
    case 'remember':
      return [
        BAD_TEXT.map((t) =>
          c('entries.0.text: bad', I, { ...b, entries: [{ ...entry, text: t }] }),
        ),
        fc
          .oneof(BLANK, LONE_SURROGATE, WITH_NUL)
          .map((t) => c('entries.0.kind: bad', I, { ...b, entries: [{ ...entry, kind: t }] })),
        BAD_TIME.map((t) =>
          c('entries.0.observed_at: bad', I, { ...b, entries: [{ ...entry, observed_at: t }] }),
        ),
        LONE_SURROGATE.map((t) =>
          c('entries.0.reason: lone surrogate', I, { ...b, entries: [{ ...entry, reason: t }] }),
        ),
        fc
          .stringMatching(/^[\x21-\x7E]{1,40}$/)
          .filter((s) => s !== SOURCE_ID)
          .map((s) =>
            c('entries.0.sources: unknown source', N, {
              ...b,
              entries: [{ ...entry, sources: [{ name: 'content', source_id: s }] }],
            }),
          ),
        // A valid new entry next to an invalid one: the whole request fails, nothing is written.
        BAD_TEXT.map((t) =>
          c('entries: valid + invalid', I, { ...b, entries: [entry, { kind: 'fact', text: t }] }),
        ),
      ]
    case 'update':
      return [
        MISSING_ID.map((id) => c('memory_ref: unknown', N, { ...b, memory_ref: ref(id, 1) })),
        fc.constant(c('memory_ref: stale revision', C, { ...b, memory_ref: ref(ids.a, 1) })),
        fc
          .integer({ min: 3, max: 1_000_000 })
          .map((r) => c('memory_ref: future revision', C, { ...b, memory_ref: ref(ids.a, r) })),
        fc.constant(c('memory_ref: forgotten', C, { ...b, memory_ref: ref(ids.f, 1) })),
        fc.constant(c('memory_ref: merged', C, { ...b, memory_ref: ref(ids.c, 1) })),
        OTHER_SCOPE.map((s) => c('scope_id: other scope', N, { ...b, scope_id: s })),
        BAD_TEXT.map((t) => c('text: bad text', I, { ...b, text: t })),
        BLANK.map((t) => c('kind: blank', I, { ...b, kind: t })),
        BAD_TIME.map((t) => c('observed_at: bad', I, { ...b, observed_at: t })),
        LONE_SURROGATE.map((t) => c('reason: lone surrogate', I, { ...b, reason: t })),
        fc.constant(
          c('sources: unknown source', N, {
            ...b,
            sources: [{ name: 'content', source_id: 'src-none' }],
          }),
        ),
      ]
    case 'forget':
      return [
        MISSING_ID.map((id) => c('memory_id: unknown', N, { ...b, memory_id: id })),
        OTHER_SCOPE.map((s) => c('scope_id: other scope', N, { ...b, scope_id: s })),
        fc
          .integer({ min: 2, max: 1_000_000 })
          .map((r) => c('expected_revision: wrong', C, { ...b, expected_revision: r })),
        fc.constant(c('memory_id: merged', C, { ...b, memory_id: ids.c })),
        LONE_SURROGATE.map((t) => c('reason: lone surrogate', I, { ...b, reason: t })),
      ]
    case 'restore':
      return [
        fc
          .stringMatching(/^[A-Za-z0-9_-]{1,128}$/)
          .map((t) => c('preview_token: stale', C, { ...b, preview_token: t })),
        MISSING_ID.map((id) => c('memory_id: unknown', N, { ...b, memory_id: id })),
        OTHER_SCOPE.map((s) => c('scope_id: other scope', N, { ...b, scope_id: s })),
        fc
          .integer({ min: 2, max: 1_000_000 })
          .map((r) => c('to_revision: no such version', N, { ...b, to_revision: r })),
        LONE_SURROGATE.map((t) => c('reason: lone surrogate', I, { ...b, reason: t })),
      ]
    case 'restorePreview':
      return [
        MISSING_ID.map((id) => c('memory_id: unknown', N, { ...b, memory_id: id })),
        OTHER_SCOPE.map((s) => c('scope_id: other scope', N, { ...b, scope_id: s })),
        fc
          .integer({ min: 2, max: 1_000_000 })
          .map((r) => c('to_revision: no such version', N, { ...b, to_revision: r })),
      ]
    case 'merge':
      return [
        fc.constant(c('inputs: forgotten input', C, { ...b, inputs: [refA, ref(ids.f, 1)] })),
        fc.constant(c('inputs: merged input', C, { ...b, inputs: [ref(ids.b, 1), ref(ids.c, 1)] })),
        fc.constant(c('inputs: listed twice', I, { ...b, inputs: [refA, refA] })),
        fc
          .integer({ min: 3, max: 1_000_000 })
          .map((r) =>
            c('inputs: wrong revision', C, { ...b, inputs: [ref(ids.a, r), ref(ids.b, 1)] }),
          ),
        MISSING_ID.map((id) => c('inputs: unknown', N, { ...b, inputs: [refA, ref(id, 1)] })),
        OTHER_SCOPE.map((s) => c('scope_id: other scope', N, { ...b, scope_id: s })),
        BAD_TEXT.map((t) => c('text: bad text', I, { ...b, text: t })),
        BLANK.map((t) => c('kind: blank', I, { ...b, kind: t })),
        LONE_SURROGATE.map((t) => c('reason: lone surrogate', I, { ...b, reason: t })),
      ]
    case 'get':
      return [
        MISSING_ID.map((id) => c('memory_id: unknown', N, { scope_id: SCOPE, memory_id: id })),
        MISSING_ID.map((id) =>
          c('memory_ref: unknown', N, { scope_id: SCOPE, memory_ref: ref(id, 1) }),
        ),
        fc
          .integer({ min: 3, max: 2 ** 31 })
          .map((r) =>
            c('memory_ref: no such revision', N, { scope_id: SCOPE, memory_ref: ref(ids.a, r) }),
          ),
        OTHER_SCOPE.map((s) => c('scope_id: other scope', N, { scope_id: s, memory_id: ids.a })),
      ]
    case 'history':
      return [
        MISSING_ID.map((id) => c('memory_id: unknown', N, { ...b, memory_id: id })),
        OTHER_SCOPE.map((s) => c('scope_id: other scope', N, { ...b, scope_id: s })),
      ]
    case 'list':
      return [fc.oneof(BLANK, LONE_SURROGATE).map((k) => c('kinds: bad', I, { ...b, kinds: [k] }))]
    case 'search':
      return [
        BAD_QUERY.map((q) => c('query: bad text', I, { ...b, query: q })),
        fc
          .constantFrom('vector', 'hybrid')
          .map((m) => c('mode: unavailable', I, { ...b, mode: m })),
        fc.oneof(BLANK, LONE_SURROGATE).map((k) => c('kinds: bad', I, { ...b, kinds: [k] })),
      ]
    case 'claudeCodeHook':
      return [
        BLANK.map((t) => c('prompt: blank', I, { ...b, prompt: t })),
        fc
          .stringMatching(/^[a-z.][a-z/]{0,20}$/)
          .map((d) => c('cwd: relative', I, { ...b, cwd: d })),
      ]
    case 'prepareContext':
      return [
        fc
          .oneof(LONE_SURROGATE, WITH_NUL, OVER_8192_CHARS)
          .map((q) => c('query: bad text', I, { ...b, query: q })),
      ]
    case 'getSources':
      return [
        fc
          .stringMatching(/^[\x21-\x7E]{1,64}$/)
          .filter((id) => id !== SOURCE_ID)
          .map((id) => c('source_ids: unknown', N, { ...b, source_ids: [id] })),
        OTHER_SCOPE.map((s) => c('scope_id: other scope', N, { ...b, scope_id: s })),
      ]
    case 'redact':
      return [
        fc
          .stringMatching(/^[\x21-\x7E]{1,64}$/)
          .filter((id) => id !== SOURCE_ID)
          .map((id) => c('source_id: unknown', N, { ...b, source_id: id })),
        fc.constant(c('two targets', I, { ...b, scan: true })),
      ]
    case 'contextReceipts':
      return [
        fc
          .stringMatching(/^[A-Za-z0-9_-]{1,64}$/)
          .map((cursor) => c('before: not a cursor', I, { ...b, before: cursor })),
      ]
    case 'changes':
    case 'flush':
    case 'flushRecords':
    case 'listScopes':
    case 'listSources':
      return []
  }
}

function jsonFaults(body: Record<string, unknown>): { label: string; body: () => Buffer }[] {
  const text = JSON.stringify(body)
  const out = [
    { label: 'truncated after 1 byte', body: textBody(text.slice(0, 1)) },
    { label: 'truncated at half', body: textBody(text.slice(0, text.length >> 1)) },
    { label: 'truncated before the end', body: textBody(text.slice(0, -1)) },
    { label: 'trailing garbage', body: textBody(`${text}x`) },
    { label: 'two values', body: textBody(`${text}${text}`) },
    { label: 'trailing comma', body: textBody(`${text.slice(0, -1)},}`) },
    { label: 'single quotes', body: textBody(text.replaceAll('"', "'")) },
    { label: 'unquoted keys', body: textBody(text.replace(/"([a-z_]+)":/g, '$1:')) },
    { label: 'comment', body: textBody(`/* c */${text}`) },
    { label: 'NUL byte', body: textBody(`\u0000${text}`) },
    // Deep, yet under the body's value limit (deeper is refused before parsing: below).
    { label: 'unbalanced deep arrays', body: textBody('['.repeat(40_000)) },
    { label: 'unbalanced deep objects', body: textBody('{"a":'.repeat(40_000)) },
    { label: 'lone brace', body: textBody('{') },
  ]
  for (const raw of RAW_JSON_VALUES)
    out.push({ label: `raw ${raw.slice(0, 12)}`, body: spliced(body, 'scope_id', raw) })
  return out
}

/** All probes for one POST route: exhaustive + curated + fast-check samples. */
function postProbes(
  op: PostOp,
  bases: Record<PostOp, readonly Base[]>,
  ids: Ids,
  validator: ContractValidator,
  seed: number,
  stats: { dropped: number },
): Probe[] {
  const meta = OPERATIONS.find((o) => o.operationId === op)!
  const schemaName = meta.requestSchema!
  const path = meta.path
  const probes: Probe[] = []
  const add = (p: Omit<Probe, 'route' | 'path'> & { path?: string }): void => {
    probes.push({ route: op, path, ...p })
  }
  const addSchema = (label: string, body: unknown): void => {
    if (validator.check(schemaName, body).length === 0) {
      stats.dropped += 1 // the contract would accept it: not a malformed request
      return
    }
    add({
      category: 'schema',
      label,
      method: 'POST',
      contentType: JSON_TYPE,
      body: jsonBody(body),
      expect: [422],
    })
  }
  const base = bases[op][0]!.body

  // Exhaustive schema pass.
  for (const b of bases[op])
    for (const m of exhaustiveMutations(b)) addSchema(m.label, m.apply(b.body))

  // The other fault kinds: POST with a JSON content type unless `extra` says otherwise.
  const fault = (
    category: Category,
    expect: readonly number[],
    label: string,
    body: (() => Buffer) | undefined,
    extra: Partial<Probe> = {},
  ): void =>
    add({
      category,
      label,
      method: 'POST',
      contentType: JSON_TYPE,
      ...(body === undefined ? {} : { body }),
      expect,
      ...extra,
    })
  const badBytes = (bytes: readonly number[]) =>
    spliced(
      base,
      'scope_id',
      Buffer.concat([Buffer.from('"a'), Buffer.from(bytes), Buffer.from('b"')]),
    )
  const noType = { contentType: undefined }

  // Body shapes: anything but an object.
  for (const v of [[], [base], 'string', 42, -1.5, true, false, null])
    fault('shape', [422], `body ${describeValue(v)}`, jsonBody(v))
  // A capture's body holds at most CAPTURE_BODY_VALUES values (its metadata's bound): deeper is
  // refused from its bytes there.
  const deepStatus = (values: number) =>
    op === 'captureContent' && values > CAPTURE_BODY_VALUES ? 413 : 422
  for (const n of [64, 10_000, 40_000])
    fault('shape', [deepStatus(n - 1)], `deep arrays ${n}`, textBody(deep(n)))
  // The field a fault is put in: `scope_id`, or one the route requires when it takes none.
  const key = 'scope_id' in base ? 'scope_id' : 'session_id'
  fault('shape', [422], `deep array as ${key}`, spliced(base, key, deep(5000)))

  // Invalid JSON and invalid UTF-8.
  for (const f of jsonFaults(base))
    fault(
      'json',
      [f.label.startsWith('unbalanced deep') ? deepStatus(40_000 - 1) : 422],
      f.label,
      f.body,
    )
  for (const bytes of BAD_UTF8)
    fault('utf8', [422], `in a string: ${Buffer.from(bytes).toString('hex')}`, badBytes(bytes))
  fault(
    'utf8',
    [422],
    'between tokens',
    spliced(base, 'scope_id', Buffer.from('"a"\xff', 'latin1')),
  )
  fault('utf8', [422], 'UTF-16LE body', () => Buffer.from(JSON.stringify(base), 'utf16le'))
  fault('utf8', [422], 'Latin-1 body', () =>
    Buffer.from(JSON.stringify({ ...base, scope_id: 'café' }), 'latin1'),
  )

  // Empty bodies.
  fault('empty', [422], 'empty, JSON type', textBody(''))
  fault('empty', [422], 'whitespace, JSON type', textBody(' \n\t '))
  fault('empty', [422], 'no body, no type', undefined, noType)
  fault('empty', [415], 'empty, text/plain', textBody(''), { contentType: 'text/plain' })

  // Wrong or missing content types (with a body that would otherwise be fine).
  for (const ct of WRONG_CONTENT_TYPES)
    fault('content-type', [415], ct, jsonBody(base), { contentType: ct })
  fault('content-type', [415], 'missing', jsonBody(base), noType)

  // Beyond the body limit (and exactly at it: then the schema decides).
  const overLimit = padded(base, 'scope_id', MAX_BODY_BYTES + 1)
  fault('too-large', [413], 'limit + 1, Content-Length', overLimit)
  fault('too-large', [413], 'limit + 1, chunked', overLimit, { chunked: true })
  fault('too-large', [413], '3 MiB invalid JSON, chunked', () => Buffer.alloc(3 * 2 ** 20, '['), {
    chunked: true,
  })
  // More JSON values than the limit: refused from the bytes, before parsing.
  fault('too-large', [413], 'deep arrays 100000', textBody(deep(100_000)))
  fault('too-large', [413], 'unbalanced deep arrays 150000', textBody('['.repeat(150_000)))
  fault(
    'too-large',
    [413],
    'values limit + 1',
    spliced(base, key, `[${'0,'.repeat(MAX_BODY_VALUES)}0]`),
  )
  fault('schema', [422], `exactly the limit, ${key} too long`, padded(base, key, MAX_BODY_BYTES))

  // Wrong methods, and method tokens Node's HTTP parser rejects.
  for (const m of WRONG_METHODS_FOR_POST)
    fault('method', [405], m, m === 'GET' || m === 'TRACE' ? undefined : jsonBody(base), {
      method: m,
      ...(m === 'GET' || m === 'TRACE' ? noType : {}),
    })
  for (const m of UNPARSABLE_METHODS)
    fault('method', [400], m, undefined, { method: m, parserLevel: true, ...noType })

  // Bad and near-miss paths.
  for (const suffix of ['%', '%ZZ', '%E0%A4%A', '/%'])
    fault('url', [400], `path${suffix}`, jsonBody(base), { path: `${path}${suffix}` })
  for (const p of [
    `${path}/`,
    path.toUpperCase(),
    `${path}x`,
    path.replace('/v1/', '/v2/'),
    `${path}/..`,
  ])
    fault('url', [404], p, jsonBody(base), { path: p })

  // fast-check samples (fixed seed): mostly schema mutations, then the other fault kinds.
  const schemaArb = fc.constantFrom(...bases[op]).chain((b) =>
    fc.array(mutationArb(b), { minLength: 1, maxLength: 3 }).map((ms) => ({
      kind: 'schema' as const,
      label: ms.map((m) => m.label).join(' + '),
      body: ms.reduce<unknown>((acc, m) => m.apply(acc), b.body),
    })),
  )
  const domain = domainArb(op, bases, ids)
  const faultArb = fc.oneof(
    { weight: 8, arbitrary: schemaArb },
    ...(domain.length > 0
      ? [
          {
            weight: 4,
            arbitrary: fc.oneof(...domain).map((d) => ({ kind: 'domain' as const, ...d })),
          },
        ]
      : []),
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: JSON.stringify(base).length - 1 }).map((n) => ({
        kind: 'json' as const,
        label: `truncated at ${n}`,
        raw: textBody(JSON.stringify(base).slice(0, n)),
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ minLength: 1, maxLength: 10 })
        .filter((s) => s.trim() !== '')
        .map((s) => ({
          kind: 'json' as const,
          label: `suffix ${JSON.stringify(s)}`,
          raw: textBody(`${JSON.stringify(base)}${s}`),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...Object.keys(base)), fc.constantFrom(...RAW_JSON_VALUES))
        .map(([key, raw]) => ({
          kind: 'json' as const,
          label: `${key}: raw ${raw}`,
          raw: spliced(base, key, raw),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...Object.keys(base)),
          fc.constantFrom(...BAD_UTF8),
          fc.string({ maxLength: 6 }),
        )
        .map(([key, bytes, s]) => ({
          kind: 'utf8' as const,
          label: `${key}: bytes ${Buffer.from(bytes).toString('hex')}`,
          raw: spliced(
            base,
            key,
            Buffer.concat([
              Buffer.from(`"${s.replace(/["\\]/g, '')}`),
              Buffer.from(bytes),
              Buffer.from('"'),
            ]),
          ),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...WRONG_CONTENT_TYPES, undefined),
          fc.constantFrom(...WRONG_METHODS_FOR_POST),
        )
        .map(([ct, m]) => ({ kind: 'transport' as const, contentType: ct, method: m })),
    },
  )
  for (const s of fc.sample(faultArb, { seed, numRuns: RANDOM_PER_POST_ROUTE })) {
    if (s.kind === 'schema') addSchema(`random: ${s.label}`, s.body)
    else if (s.kind === 'domain')
      add({
        category: 'domain',
        label: `random: ${s.label}`,
        method: 'POST',
        contentType: JSON_TYPE,
        body: s.bytes ?? jsonBody(s.body),
        expect: s.expect,
      })
    else if (s.kind === 'json' || s.kind === 'utf8')
      add({
        category: s.kind,
        label: `random: ${s.label}`,
        method: 'POST',
        contentType: JSON_TYPE,
        body: s.raw,
        expect: [422],
      })
    else if (s.contentType === undefined || s.method !== 'GET')
      // Either the content type or the method is wrong (or both): 405 or 415.
      add({
        category: s.contentType === undefined ? 'method' : 'content-type',
        label: `random: ${s.method} with ${s.contentType ?? 'no content type'}`,
        method: s.contentType === undefined ? s.method : 'POST',
        ...(s.contentType === undefined
          ? {}
          : { contentType: s.contentType, body: jsonBody(base) }),
        expect: s.contentType === undefined ? [405] : [415],
      })
  }
  return probes
}

/** Fastify reads no body for PROPFIND: whatever the body, the wrong method decides. */
const expectFor = (method: string, expect: readonly number[]): readonly number[] =>
  method === 'PROPFIND' ? [405] : expect

/** Probes for a GET route (no body): wrong methods with any kind of body, bad paths. */
function getProbes(op: OperationId, seed: number): Probe[] {
  const path = OPERATIONS.find((o) => o.operationId === op)!.path
  const probes: Probe[] = []
  const bodies: { label: string; contentType?: string; body?: () => Buffer; expect: number[] }[] = [
    { label: 'no body', expect: [405] },
    { label: 'JSON {}', contentType: JSON_TYPE, body: textBody('{}'), expect: [405] },
    { label: 'invalid JSON', contentType: JSON_TYPE, body: textBody('{"a":'), expect: [422] },
    {
      label: 'invalid UTF-8',
      contentType: JSON_TYPE,
      body: () => Buffer.from([0x7b, 0xff, 0x7d]),
      expect: [422],
    },
    { label: 'empty JSON', contentType: JSON_TYPE, body: textBody(''), expect: [422] },
    { label: 'text/plain', contentType: 'text/plain', body: textBody('hello'), expect: [405, 415] },
    {
      label: 'over the limit',
      contentType: JSON_TYPE,
      body: () => Buffer.alloc(MAX_BODY_BYTES + 1, ' '),
      expect: [413],
    },
  ]
  for (const m of WRONG_METHODS_FOR_GET)
    for (const b of bodies) {
      const { label, expect, ...rest } = b
      probes.push({
        route: op,
        category: 'method',
        label: `${m} ${label}`,
        method: m,
        path,
        expect: expectFor(m, expect),
        ...rest,
      })
    }
  for (const m of UNPARSABLE_METHODS)
    probes.push({
      route: op,
      category: 'method',
      label: m,
      method: m,
      path,
      expect: [400],
      parserLevel: true,
    })
  for (const suffix of ['%', '%ZZ', '%E0%A4%A', '/%'])
    probes.push({
      route: op,
      category: 'url',
      label: `path${suffix}`,
      method: 'GET',
      path: `${path}${suffix}`,
      expect: [400],
    })
  for (const p of [`${path}/`, path.toUpperCase(), `${path}x`, `${path}/..`])
    probes.push({ route: op, category: 'url', label: p, method: 'GET', path: p, expect: [404] })
  const arb = fc
    .tuple(
      fc.constantFrom(...WRONG_METHODS_FOR_GET),
      fc.constantFrom(...bodies),
      fc.option(fc.json({ maxDepth: 3 })),
    )
    .map(([m, b, j]) => {
      const { label, expect, ...rest } = b
      return j !== null && b.contentType === JSON_TYPE && b.expect.includes(405)
        ? {
            route: op,
            category: 'method' as const,
            label: `random: ${m} ${j.slice(0, 30)}`,
            method: m,
            path,
            contentType: JSON_TYPE,
            body: textBody(j),
            expect: [405],
          }
        : {
            route: op,
            category: 'method' as const,
            label: `random: ${m} ${label}`,
            method: m,
            path,
            expect: expectFor(m, expect),
            ...rest,
          }
    })
  probes.push(...fc.sample(arb, { seed, numRuns: RANDOM_PER_GET_ROUTE }))
  return probes
}

// ---------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------

interface Outcome {
  readonly status: number
  readonly requestId: string | undefined
  readonly text: string
}

const UNSAFE_IDS = ['bad id', 'x'.repeat(129), 'semi;colon', 'quote"d', 'caf\u00e9']

/** The caller request id sent with probe `i`: a safe one, an unsafe one, or none. */
function callerId(i: number): { value: string; safe: boolean } | undefined {
  if (i % 5 === 0) return { value: `robust.${i}:x-${i % 97}`, safe: true }
  if (i % 5 === 1) return { value: UNSAFE_IDS[i % UNSAFE_IDS.length]!, safe: false }
  return undefined
}

function send(agent: http.Agent, base: URL, p: Probe, id: string | undefined): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const body = p.body?.()
    const headers: Record<string, string> = {}
    if (p.contentType !== undefined) headers['content-type'] = p.contentType
    if (id !== undefined) headers['x-powercontext-request-id'] = id
    // Always frame the body explicitly: Node sends GET/DELETE/OPTIONS bodies unframed otherwise.
    if (p.chunked === true) headers['transfer-encoding'] = 'chunked'
    else headers['content-length'] = String(body?.length ?? 0)
    const req = http.request(
      { agent, host: base.hostname, port: base.port, method: p.method, path: p.path, headers },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            requestId: res.headers['x-powercontext-request-id'] as string | undefined,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    if (body !== undefined && p.chunked === true) {
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024))
      req.end()
    } else req.end(body)
  })
}

/** Every problem with one response (empty when it is a proper 4xx envelope). */
function problemsOf(p: Probe, out: Outcome, sent: ReturnType<typeof callerId>): string[] {
  const problems: string[] = []
  if (out.status < 400 || out.status > 499) problems.push(`status ${out.status} is not 4xx`)
  else if (!p.expect.includes(out.status))
    problems.push(`status ${out.status}, expected ${p.expect.join('|')}`)
  let body: unknown
  try {
    body = JSON.parse(out.text)
  } catch {
    return [...problems, `body is not JSON: ${out.text.slice(0, 120)}`]
  }
  try {
    assertErrorEnvelope(body, out.requestId ?? null)
    const op = OPERATIONS.find((o) => o.operationId === p.route)!
    if (!op.public) assertMatchesContract(p.route, out.status, body)
  } catch (err) {
    problems.push((err as Error).message.slice(0, 300))
  }
  if (sent?.safe === true && p.parserLevel !== true && out.requestId !== sent.value)
    problems.push(`caller request id ${sent.value} not kept (got ${out.requestId})`)
  if (
    (sent === undefined || !sent.safe || p.parserLevel === true) &&
    !GENERATED_ID.test(out.requestId ?? '')
  )
    problems.push(`expected a generated request id, got ${out.requestId}`)
  return problems
}

// ---------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------

const dataDir = mkdtempSync(join(tmpdir(), 'pc-http-robust-'))
let server: RunningServer | undefined
let ids: Ids
let countsBefore: Record<string, number>

async function tableCounts(runtime: MemoryRuntime): Promise<Record<string, number>> {
  const backend = runtime.backend
  if (!(backend instanceof SqliteMemoryBackend)) throw new Error('expected the SQLite backend')
  const db = backend.rawDatabase
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'memory_fts_%' ORDER BY name",
    )
    .pluck()
    .all() as string[]
  return Object.fromEntries(
    tables.map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]),
  )
}

async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': JSON_TYPE },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

const ALL_STATES = ['active', 'forgotten', 'merged', 'retired']
const snapshot = async () => ({
  changes: await post('/v1/memory/changes', { scope_id: SCOPE, since: 0 }),
  list: await post('/v1/memory/list', { scope_id: SCOPE, states: ALL_STATES, limit: 500 }),
})

beforeAll(async () => {
  // Seed in-process, count every table, then serve the same data directory.
  const runtime = await MemoryRuntime.open({ dataDir })
  await runtime.captureSource({ scopeId: SCOPE, sourceId: SOURCE_ID, content: SOURCE_CONTENT })
  const seeded = await runtime.remember({
    scopeId: SCOPE,
    entries: [
      {
        kind: 'decision',
        text: 'The API gateway retries idempotent requests three times.',
        sources: [{ name: 'content', sourceId: SOURCE_ID }],
      },
      { kind: 'preference', text: 'Use tabs in Makefiles and two spaces in YAML files.' },
      { kind: 'constraint', text: 'Never log bearer tokens, even at debug level.' },
      { kind: 'fact', text: 'The staging database is rebuilt every Sunday night.' },
      { kind: 'fact', text: 'Release notes are written in the pull request description.' },
      { kind: 'fact', text: 'Each release gets a short summary in the changelog.' },
    ],
  })
  const [a, b, , f, c, d] = seeded.results.map((r) => r.memory.memoryRef.artifactId)
  await runtime.update({
    scopeId: SCOPE,
    memoryRef: { artifactId: a!, revision: 1 },
    text: 'The API gateway retries idempotent requests three times, then fails fast.',
  })
  await runtime.forget({ scopeId: SCOPE, memoryId: f! })
  const merged = await runtime.merge({
    scopeId: SCOPE,
    inputs: [
      { artifactId: c!, revision: 1 },
      { artifactId: d!, revision: 1 },
    ],
    kind: 'fact',
    text: 'Release notes go in the pull request and a summary in the changelog.',
  })
  ids = { a: a!, b: b!, f: f!, c: c!, m: merged.memory.memoryRef.artifactId }
  expect((await runtime.verify()).ok).toBe(true)
  countsBefore = await tableCounts(runtime)
  await runtime.close()
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
})

afterAll(async () => {
  await server?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('HTTP robustness', () => {
  it('answers thousands of malformed requests on every route with a 4xx envelope, and changes nothing', async () => {
    const before = await snapshot()
    expect(before.changes.status).toBe(200)
    // 6 adds, 1 update, 1 forget, 3 merge rows (the result and its 2 inputs).
    expect((before.changes.body as { changes: unknown[] }).changes).toHaveLength(11)
    expect((before.list.body as { memories: unknown[] }).memories).toHaveLength(7)

    const validator = new ContractValidator()
    const bases = basesFor(ids)
    const stats = { dropped: 0 }
    const probes: Probe[] = []
    OPERATIONS.forEach((op, i) => {
      probes.push(
        ...(op.requestSchema === null
          ? getProbes(op.operationId, SEED + i)
          : postProbes(op.operationId as PostOp, bases, ids, validator, SEED + i, stats)),
      )
    })
    expect(probes.length).toBeGreaterThanOrEqual(2000)
    for (const op of OPERATIONS)
      expect(probes.filter((p) => p.route === op.operationId).length).toBeGreaterThan(50)

    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
    const baseUrl = new URL(server!.url)
    const failures: string[] = []
    const statuses = new Map<number, number>()
    const started = Date.now()
    let next = 0
    let sent = 0
    try {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < probes.length && Date.now() - started < DEADLINE_MS) {
            const i = next++
            const p = probes[i]!
            const id = p.parserLevel === true ? undefined : callerId(i)
            const where = `#${i} ${p.route} [${p.category}] ${p.method} ${p.path.slice(0, 40)} ${p.label.slice(0, 120)}`
            try {
              const out = await send(agent, baseUrl, p, id?.value)
              sent += 1
              statuses.set(out.status, (statuses.get(out.status) ?? 0) + 1)
              for (const problem of problemsOf(p, out, id)) failures.push(`${where}: ${problem}`)
            } catch (err) {
              sent += 1
              failures.push(`${where}: no response: ${(err as Error).message}`)
            }
          }
        }),
      )
    } finally {
      agent.destroy()
    }
    const elapsed = Date.now() - started

    // Report what was sent, per route and per category.
    const width = Math.max(...OPERATIONS.map((o) => o.operationId.length))
    const lines = [
      `${'route'.padEnd(width)} ${'sent'.padStart(5)}  ${CATEGORIES.map((c) => c.padStart(Math.max(c.length, 4))).join(' ')}`,
      ...OPERATIONS.map((op) => {
        const mine = probes.filter((p) => p.route === op.operationId)
        return `${op.operationId.padEnd(width)} ${String(mine.length).padStart(5)}  ${CATEGORIES.map(
          (c) =>
            String(mine.filter((p) => p.category === c).length).padStart(Math.max(c.length, 4)),
        ).join(' ')}`
      }),
      `total ${probes.length} requests in ${(elapsed / 1000).toFixed(1)} s (concurrency ${CONCURRENCY}); ` +
        `${stats.dropped} schema-mutated bodies dropped as valid; statuses ${[...statuses.entries()]
          .sort(([x], [y]) => x - y)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
    ]
    console.log(`HTTP robustness, requests per route:\n${lines.join('\n')}`)

    expect(sent, `deadline of ${DEADLINE_MS} ms reached`).toBe(probes.length)
    expect(failures.slice(0, 25), `${failures.length} bad responses`).toEqual([])

    // Still serving, and a valid search still finds the seeded data.
    const live = await fetch(`${server!.url}/health/live`)
    expect(live.status).toBe(200)
    const search = await post('/v1/memory/search', {
      scope_id: SCOPE,
      query: 'gateway retries idempotent requests',
    })
    expect(search.status).toBe(200)
    expect((search.body as { hits: { memory_ref: unknown }[] }).hits[0]?.memory_ref).toEqual({
      artifact_id: ids.a,
      revision: 2,
    })

    // Nothing changed: same change log, same list.
    const after = await snapshot()
    expect(after).toEqual(before)
  })

  it('leaves the database verified and every table as seeded after stop', async () => {
    await server!.stop()
    server = undefined
    const runtime = await MemoryRuntime.open({ dataDir })
    try {
      const report = await runtime.verify()
      expect(report.problems).toEqual([])
      expect(report.ok).toBe(true)
      expect(await tableCounts(runtime)).toEqual(countsBefore)
    } finally {
      await runtime.close()
    }
  })
})
