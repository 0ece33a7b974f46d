import type { Tool } from '@modelcontextprotocol/sdk/types.js'

import { OPENAPI_DOCUMENT } from '../contract/openapi-document.js'
import { type ContractOperation, type OperationId, OPERATIONS } from '../contract/operations.js'

type JsonObject = Record<string, unknown>

/** One MCP tool of the allow-list: its contract operation and the definition `tools/list` shows. */
export interface McpToolBinding {
  readonly operationId: OperationId
  /** Component schema the arguments are validated against (the original, unflattened one). */
  readonly requestSchema: string
  readonly tool: Tool
}

const SCHEMA_PREFIX = '#/components/schemas/'
const COMPONENT_SCHEMAS = OPENAPI_DOCUMENT.components.schemas as unknown as Readonly<
  Record<string, JsonObject>
>

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Inlines every `#/components/schemas/…` reference, so the schema stands alone (MCP clients do not
 * see the OpenAPI document). Keywords next to a `$ref` (OpenAPI 3.1 allows them) override the
 * referenced schema's. A reference cycle is a contract bug and throws.
 */
export function resolveSchemaRefs(schema: unknown, seen: readonly string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => resolveSchemaRefs(s, seen))
  if (!isObject(schema)) return schema
  const { $ref, ...rest } = schema
  const own: JsonObject = {}
  for (const [key, value] of Object.entries(rest)) own[key] = resolveSchemaRefs(value, seen)
  if (typeof $ref !== 'string') return own
  if (!$ref.startsWith(SCHEMA_PREFIX)) throw new Error(`unsupported $ref ${$ref}`)
  const name = $ref.slice(SCHEMA_PREFIX.length)
  if (seen.includes(name)) throw new Error(`cyclic $ref ${[...seen, name].join(' → ')}`)
  const target = COMPONENT_SCHEMAS[name]
  if (target === undefined) throw new Error(`contract has no schema ${name}`)
  return { ...(resolveSchemaRefs(target, [...seen, name]) as JsonObject), ...own }
}

/**
 * Turns a `oneOf` of object schemas (e.g. GetRequest: `memory_ref` or `memory_id`) into one object
 * schema: the union of the properties, required = the keys every branch requires. The choice
 * between branches is stated in `description`; the call itself is still validated against the
 * original `oneOf`, so both or neither alternative is rejected with `invalid_request`.
 */
export function flattenOneOf(schema: JsonObject): JsonObject {
  const { oneOf, ...rest } = schema
  if (!Array.isArray(oneOf)) return schema
  const branches = oneOf.filter(isObject)
  if (branches.length !== oneOf.length || branches.some((b) => b['type'] !== 'object'))
    throw new Error('only a oneOf of object schemas can be flattened')
  const requiredOf = (b: JsonObject): string[] =>
    Array.isArray(b['required']) ? (b['required'] as string[]) : []
  const common = requiredOf(branches[0] ?? {}).filter((k) =>
    branches.every((b) => requiredOf(b).includes(k)),
  )
  const properties: JsonObject = {}
  for (const b of branches)
    for (const [key, value] of Object.entries(isObject(b['properties']) ? b['properties'] : {}))
      properties[key] ??= value
  const choices = branches.map((b) =>
    requiredOf(b)
      .filter((k) => !common.includes(k))
      .map((k) => `\`${k}\``)
      .join(' + '),
  )
  const note = `Give exactly one of: ${choices.join(', ')}.`
  const description =
    typeof rest['description'] === 'string' ? `${rest['description']} ${note}` : note
  return {
    ...rest,
    type: 'object',
    description,
    properties,
    required: common,
    ...(branches.every((b) => b['additionalProperties'] === false)
      ? { additionalProperties: false }
      : {}),
  }
}

/** What a model is told about `scope_id` in every tool's input schema. */
export const SCOPE_ID_GUIDE =
  "Optional: the scope to read or write. Leave it out to use this connection's scope (the project's, configured by `powercontext setup`); the injected project memory names that scope. A scope given here wins."

/**
 * `scope_id` as an optional property: a call without one uses the connection's scope (the
 * `X-PowerContext-Scope` header of `/mcp`, or `powercontext mcp --scope`). The call is still
 * validated against the contract schema once the scope is filled in.
 */
export function optionalScope(schema: JsonObject): JsonObject {
  const properties = isObject(schema['properties']) ? schema['properties'] : {}
  const scope = properties['scope_id']
  if (!isObject(scope)) return schema
  const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : []
  return {
    ...schema,
    properties: { ...properties, scope_id: { ...scope, description: SCOPE_ID_GUIDE } },
    required: required.filter((k) => k !== 'scope_id'),
  }
}

/** The self-contained object schema of one component schema, as an MCP `inputSchema`. */
export function toolInputSchema(schemaName: string): Tool['inputSchema'] {
  const resolved = resolveSchemaRefs({ $ref: `${SCHEMA_PREFIX}${schemaName}` }) as JsonObject
  const flat = optionalScope(flattenOneOf(resolved))
  if (flat['type'] !== 'object') throw new Error(`${schemaName} is not an object schema`)
  return flat as Tool['inputSchema']
}

/** The scope every tool's example runs in (the example's other arguments come from the contract). */
const EXAMPLE_SCOPE = 'git:github.com/acme/api'

/**
 * A tool's description, written for a model: the contract's summary, then its `x-mcp-tool` guide
 * (when to use it, what it returns) and one example of its arguments as JSON.
 */
export function toolDescription(
  summary: string,
  tool: { readonly guide: string; readonly example: { readonly [field: string]: unknown } },
): string {
  const example = JSON.stringify({ scope_id: EXAMPLE_SCOPE, ...tool.example })
  return `${summary} ${tool.guide} Example arguments: ${example}`
}

/**
 * Tool hints. Reads change nothing. Every write is idempotent (docs/memory-model.md: "a repeated request
 * whose effect already holds is a no-op"; a stale base fails with `revision_conflict` and changes
 * nothing). Writes keep the default `destructiveHint` (forget and restore change what search
 * shows). No tool reaches outside the memory store.
 */
const annotationsFor = (readOnly: boolean): NonNullable<Tool['annotations']> =>
  readOnly
    ? { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    : { readOnlyHint: false, idempotentHint: true, openWorldHint: false }

function bindings(): readonly McpToolBinding[] {
  const out: McpToolBinding[] = []
  for (const op of OPERATIONS as readonly (ContractOperation & { operationId: OperationId })[]) {
    if (op.mcpTool === null) continue
    if (op.requestSchema === null)
      throw new Error(`MCP tool ${op.mcpTool.name} has no request body`)
    out.push(
      Object.freeze({
        operationId: op.operationId,
        requestSchema: op.requestSchema,
        tool: {
          name: op.mcpTool.name,
          description: toolDescription(op.summary, op.mcpTool),
          inputSchema: toolInputSchema(op.requestSchema),
          annotations: annotationsFor(op.mcpTool.readOnly),
        },
      }),
    )
  }
  return Object.freeze(out)
}

/**
 * The MCP allow-list (docs/http-api.md): exactly the contract operations marked `x-mcp-tool`, in contract
 * order. Name, input schema and description ({@link toolDescription}) all come from the contract.
 */
export const MCP_TOOLS: readonly McpToolBinding[] = bindings()

const BY_NAME: ReadonlyMap<string, McpToolBinding> = new Map(MCP_TOOLS.map((b) => [b.tool.name, b]))

/** The binding of an allow-listed tool, or undefined for any other name. */
export function findMcpTool(name: string): McpToolBinding | undefined {
  return BY_NAME.get(name)
}
