import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

import { OPENAPI_DOCUMENT } from '../../src/contract/openapi-document.js'
import { type ContractOperation, OPERATIONS } from '../../src/contract/operations.js'

/**
 * Response-side contract checks for tests: every body a test receives can be validated against
 * the OpenAPI document's response schema for its operation and status (JSON Schema 2020-12, no
 * coercion), and the request id header against its declared pattern.
 */

const DOCUMENT_ID = 'https://powercontext.dev/test/openapi.json'
const REQUEST_ID_HEADER = 'x-powercontext-request-id'

/** The pattern the contract declares for `X-PowerContext-Request-ID` on every response. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/

const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false })
ajv.addSchema({ $id: DOCUMENT_ID, components: OPENAPI_DOCUMENT.components })
const compiled = new Map<string, ValidateFunction>()

type Json = Record<string, unknown>
const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>(
    (v, k) => (typeof v === 'object' && v !== null ? (v as Json)[k] : undefined),
    value,
  )
/** Follows a local `$ref` (`#/components/...`) inside the document. */
const deref = (value: unknown): unknown => {
  const ref = at(value, '$ref')
  return typeof ref === 'string'
    ? at(OPENAPI_DOCUMENT, ...ref.replace(/^#\//, '').split('/'))
    : value
}

/** The contract operation a request goes to (by method and path), if any. */
export function operationFor(method: string, url: string): ContractOperation | undefined {
  const path = new URL(url).pathname
  return OPERATIONS.find((op) => op.method === method.toUpperCase() && path.endsWith(op.path))
}

/**
 * The `$ref` of the response schema declared for an operation and status (the status itself, else
 * `default`), or undefined when the contract declares no such response.
 */
export function responseSchemaRef(operationId: string, status: number): string | undefined {
  const op = OPERATIONS.find((o) => o.operationId === operationId)
  if (op === undefined) throw new Error(`contract has no operation ${operationId}`)
  const responses = at(OPENAPI_DOCUMENT, 'paths', op.path, op.method.toLowerCase(), 'responses')
  const response = deref(at(responses, String(status)) ?? at(responses, 'default'))
  const ref = at(response, 'content', 'application/json', 'schema', '$ref')
  return typeof ref === 'string' ? ref : undefined
}

/** True when the contract declares a `text/plain` body for the operation and status (`metrics`). */
export function declaresText(operationId: string, status: number): boolean {
  const op = OPERATIONS.find((o) => o.operationId === operationId)
  const responses = at(
    OPENAPI_DOCUMENT,
    'paths',
    op?.path ?? '',
    op?.method.toLowerCase() ?? '',
    'responses',
  )
  return at(deref(at(responses, String(status))), 'content', 'text/plain', 'schema') !== undefined
}

/** Every way a response breaks the contract; empty when it conforms. */
export function contractViolations(
  operationId: string,
  status: number,
  body: unknown,
  requestIdHeader?: string | null,
): string[] {
  const where = `${operationId} ${status}`
  const ref = responseSchemaRef(operationId, status)
  if (ref === undefined) return [`${where}: the contract declares no such response`]
  let validate = compiled.get(ref)
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}${ref}` })
    compiled.set(ref, validate)
  }
  const problems: string[] = []
  if (!validate(body))
    for (const e of validate.errors ?? [])
      problems.push(`${where}: ${e.instancePath || 'body'} ${e.message ?? 'is invalid'}`)
  if (requestIdHeader !== undefined && !REQUEST_ID_PATTERN.test(requestIdHeader ?? ''))
    problems.push(`${where}: bad ${REQUEST_ID_HEADER} header ${String(requestIdHeader)}`)
  return problems
}

/** Throws when a response body does not match the contract for its operation and status. */
export function assertMatchesContract(operationId: string, status: number, body: unknown): void {
  const problems = contractViolations(operationId, status, body)
  if (problems.length > 0) throw new Error(problems.join('\n'))
}

/** The contract's error codes, read from the `ErrorResponse` schema. */
export const CONTRACT_ERROR_CODES: readonly string[] = at(
  OPENAPI_DOCUMENT,
  ...'components/schemas/ErrorResponse/properties/error/properties/code/enum'.split('/'),
) as readonly string[]

/**
 * Throws unless `body` is the error envelope of docs/http-api.md — `{error: {code, message, request_id,
 * details}}` with a contract code, and `request_id` equal to the response's request id header.
 */
export function assertErrorEnvelope(body: unknown, requestIdHeader: string | null): void {
  const error = at(body, 'error')
  const problems: string[] = []
  if (typeof error !== 'object' || error === null) problems.push('no `error` object')
  else {
    const e = error as Json
    if (!CONTRACT_ERROR_CODES.includes(String(e['code'])))
      problems.push(`unknown code ${String(e['code'])}`)
    if (typeof e['message'] !== 'string' || e['message'] === '') problems.push('no message')
    if (e['request_id'] !== requestIdHeader)
      problems.push(`request_id ${String(e['request_id'])} ≠ header ${String(requestIdHeader)}`)
    const details = e['details']
    if (details !== null && (typeof details !== 'object' || Array.isArray(details)))
      problems.push('details is neither an object nor null')
  }
  if (problems.length > 0)
    throw new Error(`not an error envelope (${problems.join('; ')}): ${JSON.stringify(body)}`)
}

/** One response the recorder validated. */
export interface RecordedResponse {
  readonly operationId: string
  readonly status: number
}

/**
 * A `fetch` wrapper that validates every response it passes through. Violations are collected,
 * not thrown (a throw inside `fetch` would look like a network failure to the caller); assert
 * `violations` is empty, e.g. in `afterEach`.
 */
export class ContractRecorder {
  readonly seen: RecordedResponse[] = []
  readonly violations: string[] = []
  readonly #fetch: (input: Request) => Promise<Response>

  constructor(inner: (input: Request) => Promise<Response> = (r) => globalThis.fetch(r)) {
    this.#fetch = inner
  }

  /** Pass this as the client's `fetch`. */
  readonly fetch = async (request: Request): Promise<Response> => {
    const op = operationFor(request.method, request.url)
    const response = await this.#fetch(request)
    if (op === undefined) {
      this.violations.push(`${request.method} ${request.url}: not a contract operation`)
      return response
    }
    const text = await response.clone().text()
    const requestId = response.headers.get(REQUEST_ID_HEADER)
    if (declaresText(op.operationId, response.status)) {
      this.seen.push({ operationId: op.operationId, status: response.status })
      if (!(response.headers.get('content-type') ?? '').startsWith('text/plain'))
        this.violations.push(`${op.operationId} ${response.status}: not text/plain`)
      if (!REQUEST_ID_PATTERN.test(requestId ?? ''))
        this.violations.push(`${op.operationId}: bad ${REQUEST_ID_HEADER} header ${requestId}`)
      return response
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      this.violations.push(`${op.operationId} ${response.status}: body is not JSON: ${text}`)
      return response
    }
    this.seen.push({ operationId: op.operationId, status: response.status })
    this.violations.push(...contractViolations(op.operationId, response.status, body, requestId))
    return response
  }

  /** Returns the violations collected so far and clears them. */
  takeViolations(): string[] {
    return this.violations.splice(0)
  }
}
