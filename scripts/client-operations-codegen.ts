/**
 * Generates `src/contract/client-operations.ts`: the table the TypeScript client builds its methods
 * from (`src/client/powercontext-client.ts`), one entry per contract operation — method name, HTTP
 * method, path and its parameters, the declared statuses, the request and response schema names —
 * and, for type checks, the contract types of each entry's request and response.
 */

interface Response {
  readonly content?: Record<string, { readonly schema?: { readonly $ref?: string } }>
}

interface Operation {
  readonly operationId: string
  readonly summary?: string
  readonly requestBody?: { content: { 'application/json': { schema: { $ref: string } } } }
  readonly responses: Record<string, Response>
}

/**
 * The client's name where it is not the `operationId` (kept from the hand-written client: the
 * method `openapi` predates the table).
 */
const METHOD_NAMES: Readonly<Record<string, string>> = { openapiDocument: 'openapi' }

const schemaName = (ref: string): string => ref.split('/').at(-1) ?? ref

/** One table entry: the method name, its comment, and the data (typed as `ClientOperation`). */
function entry(path: string, method: string, op: Operation) {
  const statuses = Object.keys(op.responses)
    .filter((s) => /^\d{3}$/.test(s))
    .map(Number)
    .sort((a, b) => a - b)
  const successStatuses = statuses.filter((s) => s >= 200 && s < 300)
  const first = op.responses[String(successStatuses[0])]
  const fail = (why: string): never => {
    throw new Error(`client table: ${op.operationId}: ${why}`)
  }
  if (first === undefined) return fail('no 2xx response declared')
  const json = first.content?.['application/json']
  const text = first.content?.['text/plain']
  if (json === undefined && text === undefined)
    return fail('the success response is neither application/json nor text/plain')
  if (json !== undefined && json.schema?.$ref === undefined)
    return fail('the JSON success response is not a $ref to components.schemas')
  const responseType = json?.schema?.$ref === undefined ? null : schemaName(json.schema.$ref)
  const name = METHOD_NAMES[op.operationId] ?? op.operationId
  return {
    name,
    doc: `\`${method.toUpperCase()} ${path}\`: ${(op.summary ?? '').trim()}`,
    data: {
      operationId: op.operationId,
      method: method.toUpperCase(),
      path,
      pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? ''),
      successStatuses,
      // Other declared statuses answered with the operation's own response (readiness's 503).
      answerStatuses: statuses.filter(
        (s) =>
          (s < 200 || s >= 300) &&
          op.responses[String(s)]?.content?.['application/json']?.schema?.$ref ===
            json?.schema?.$ref &&
          responseType !== null,
      ),
      requestType:
        op.requestBody === undefined
          ? null
          : schemaName(op.requestBody.content['application/json'].schema.$ref),
      responseType,
      responseFormat: json === undefined ? ('text' as const) : ('json' as const),
    },
  }
}

/** The text of `src/contract/client-operations.ts` for the document. */
export function generateClientOperations(document: unknown, header: string): string {
  const doc = document as { paths: Record<string, Record<string, Operation>> }
  const entries = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => entry(path, method, op)),
  )
  const names = new Set(entries.map((e) => e.name))
  if (names.size !== entries.length) throw new Error('client table: two operations share a name')
  const type = (name: string | null, none: string): string =>
    name === null ? none : `Schemas['${name}']`
  return `${header}import type { components } from './powercontext-types.js'

type Schemas = components['schemas']

/** One contract operation as the typed client calls it. */
export interface ClientOperation {
  /** The contract's operationId (the method name differs only for \`openapi\`). */
  readonly operationId: string
  readonly method: 'GET' | 'POST'
  /** The path template; its \`{name}\` segments are listed in \`pathParams\`. */
  readonly path: string
  readonly pathParams: readonly string[]
  /** The 2xx statuses the contract declares; any other 2xx is \`unexpected_status\`. */
  readonly successStatuses: readonly number[]
  /** Other declared statuses whose body is the operation's response, not the error envelope. */
  readonly answerStatuses: readonly number[]
  /** Name of the request body schema in components.schemas, or null for no body. */
  readonly requestType: string | null
  /** Name of the response schema in components.schemas, or null for a text response. */
  readonly responseType: string | null
  /** How a successful answer's body is read. */
  readonly responseFormat: 'json' | 'text'
}

/** The typed client's operations, by method name. */
export const CLIENT_OPERATIONS = {
${entries.map((e) => `  /** ${e.doc} */\n  ${e.name}: ${JSON.stringify(e.data)},`).join('\n')}
} as const satisfies Readonly<Record<string, ClientOperation>>

/** A method of the typed client. */
export type ClientMethodName = keyof typeof CLIENT_OPERATIONS

/** Per method, the contract's request body type (\`undefined\`: none) and response type. */
export interface ClientOperationTypes {
${entries
  .map(
    (e) =>
      `  ${e.name}: { request: ${type(e.data.requestType, 'undefined')}; response: ${type(e.data.responseType, 'string')} }`,
  )
  .join('\n')}
}
`
}
