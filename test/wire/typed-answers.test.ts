/**
 * Answers are typed by the contract. The generated operation table names each operation's success
 * response schema; every runtime handler must return exactly that shape, and every domain → wire
 * mapper is annotated with the contract's schema, so a renamed or missing response field is a
 * compile error. The type checks below run under `npm run static` (tsc over test/): each
 * `@ts-expect-error` fails the build if the line it marks ever compiles. The run-time checks tie the
 * table to the OpenAPI document.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'

import { OPENAPI_DOCUMENT } from '../../src/contract/openapi-document.js'
import { OPERATIONS } from '../../src/contract/operations.js'
import type { components } from '../../src/contract/powercontext-types.js'
import type { Memory } from '../../src/core/memory-model.js'
import { toWireMemory } from '../../src/wire/memory-wire.js'
import {
  OPERATION_HANDLERS,
  type OperationHandler,
  type ResponseOf,
  type RuntimeOperationId,
} from '../../src/wire/operation-handlers.js'
import { fromWireUpdate } from '../../src/wire/request-mapper.js'

type Wire = components['schemas']

/** `toWireMemory` with `merged_into` renamed: the edit a refactor might make by mistake. */
const renamedMemory = (m: Memory) => {
  const { merged_into: mergedInto, ...rest } = toWireMemory(m)
  return { ...rest, mergedInto }
}

describe('typed answers', () => {
  it('gives each operation the response type its contract entry names', () => {
    expectTypeOf<ResponseOf<'update'>>().toEqualTypeOf<Wire['UpdateResponse']>()
    expectTypeOf<ResponseOf<'prepareContext'>>().toEqualTypeOf<Wire['PreparedContextResponse']>()
    expectTypeOf<ResponseOf<'captureContent'>>().toEqualTypeOf<Wire['CaptureContentResponse']>()
    // `metrics` answers text, not a JSON schema: no handler can claim a JSON answer for it.
    expectTypeOf<ResponseOf<'metrics'>>().toBeNever()
    type Answers = { [Op in RuntimeOperationId]: Awaited<ReturnType<OperationHandler<Op>>> }
    expectTypeOf<Answers['list']>().toEqualTypeOf<Wire['ListResponse']>()
    expectTypeOf<Answers['redact']>().toEqualTypeOf<Wire['RedactResponse']>()
  })

  it('rejects, at compile time, a handler or mapper whose answer renames a field', () => {
    const update: OperationHandler<'update'> = OPERATION_HANDLERS.update
    // @ts-expect-error — the answer's `memory` lacks `merged_into` (renamed `mergedInto`).
    const renamed: OperationHandler<'update'> = async (rt, b) => {
      const r = await rt.update(fromWireUpdate(b))
      return { status: r.status, memory: renamedMemory(r.memory) }
    }
    const mapper = (m: Memory): Wire['Memory'] => ({
      ...toWireMemory(m),
      // @ts-expect-error — `mergedInto` is not a field of the contract's Memory.
      mergedInto: m.mergedInto,
    })
    // @ts-expect-error — a mapper's answer must carry every field the contract requires.
    const missing = (m: Memory): Wire['Memory'] => renamedMemory(m)
    expect([update, renamed, mapper, missing].every((f) => typeof f === 'function')).toBe(true)
  })

  it('names, for every operation, the schema of its success response in the document', () => {
    const paths = OPENAPI_DOCUMENT.paths as unknown as Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
    >
    const schemas = Object.keys(OPENAPI_DOCUMENT.components.schemas)
    for (const op of OPERATIONS) {
      const response = paths[op.path]![op.method.toLowerCase()]!.responses[String(op.successStatus)]
      const json = response?.content?.['application/json'] as
        { schema: { $ref: string } } | undefined
      expect(op.responseSchema, op.operationId).toBe(json?.schema.$ref.split('/').at(-1) ?? null)
      if (op.responseSchema !== null) expect(schemas, op.operationId).toContain(op.responseSchema)
    }
    expect(OPERATIONS.filter((o) => o.responseSchema === null).map((o) => o.operationId)).toEqual([
      'metrics',
    ])
  })
})
