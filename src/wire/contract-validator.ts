import { setImmediate } from 'node:timers/promises'

import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'

import { OPENAPI_DOCUMENT } from '../contract/openapi-document.js'
import { OPERATIONS } from '../contract/operations.js'
import type { FieldError } from '../core/errors.js'

const DOCUMENT_ID = 'https://powercontext.dev/openapi.json'
const MAX_REPORTED_ERRORS = 20

/**
 * Validates request bodies against the contract's component schemas (JSON Schema 2020-12, as
 * OpenAPI 3.1 uses): no type coercion, no removal of unknown fields, no defaults injected.
 */
export class ContractValidator {
  readonly #ajv: Ajv2020
  readonly #cache = new Map<string, ValidateFunction>()

  /**
   * @param options.checkDocument check the contract document against the JSON Schema meta-schema
   *   first (default true; ≈ 60 ms). A one-command process (the local CLI) skips it: the document
   *   is generated, and every server start and the contract tests check it.
   */
  constructor(options: { readonly checkDocument?: boolean } = {}) {
    this.#ajv = new Ajv2020({
      validateSchema: options.checkDocument ?? true,
      allErrors: true,
      coerceTypes: false,
      removeAdditional: false,
      useDefaults: false,
      strict: false,
      validateFormats: false,
      // `oneOf` errors then carry their branches, so the branch a body meant can be found.
      verbose: true,
    })
    this.#ajv.addSchema({ $id: DOCUMENT_ID, components: OPENAPI_DOCUMENT.components })
  }

  /** The validator of one component schema, e.g. `RememberRequest`. */
  validator(schemaName: string): ValidateFunction {
    let fn = this.#cache.get(schemaName)
    if (fn === undefined) {
      fn = this.#ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${schemaName}`)
      if (fn === undefined) throw new Error(`contract has no schema ${schemaName}`)
      this.#cache.set(schemaName, fn)
    }
    return fn
  }

  /**
   * Compiles every operation's request validator in the background, one per turn of the event
   * loop: compiling one takes tens of milliseconds, which the first request of each operation
   * would otherwise spend in one piece. A request arriving first compiles its own as before.
   */
  async warmUp(): Promise<void> {
    for (const op of OPERATIONS) {
      if (op.requestSchema === null || this.#cache.has(op.requestSchema)) continue
      await setImmediate()
      this.validator(op.requestSchema)
    }
  }

  /** Field errors of `value` against the schema; empty when valid. */
  check(schemaName: string, value: unknown): FieldError[] {
    const fn = this.validator(schemaName)
    if (fn(value)) return []
    return toFieldErrors(meantBranchOnly(fn.errors ?? []))
  }
}

/** Errors saying a value has the wrong shape for a branch: wrong type, missing or unknown keys. */
const SHAPE_KEYWORDS: ReadonlySet<string> = new Set(['type', 'required', 'additionalProperties'])

/**
 * A failed `oneOf` reports every branch's errors (`{"memory_id": "bad id"}` against `GetRequest`:
 * "must have required property 'memory_ref'", "… legacy_citation", "must match exactly one
 * schema"), which hides the one that matters. When one branch fits the value's shape better than
 * every other (fewest type/required/unknown-key errors at the value itself), only that branch's
 * errors are kept: here `memory_id: must match pattern …`. A tie keeps everything.
 */
function meantBranchOnly(errors: readonly ErrorObject[]): readonly ErrorObject[] {
  let out = errors
  for (const failed of errors) {
    if (failed.keyword !== 'oneOf' || !Array.isArray(failed.schema)) continue
    const at = failed.instancePath
    const branchOf = (e: ErrorObject): number | undefined => {
      if (e.instancePath !== at || !e.schemaPath.startsWith(`${failed.schemaPath}/`)) return
      const n = Number(e.schemaPath.slice(failed.schemaPath.length + 1).split('/')[0])
      return Number.isInteger(n) ? n : undefined
    }
    const shapeErrors = failed.schema.map(() => 0)
    for (const e of out) {
      const n = branchOf(e)
      if (n !== undefined && SHAPE_KEYWORDS.has(e.keyword) && n < shapeErrors.length)
        shapeErrors[n] = (shapeErrors[n] ?? 0) + 1
    }
    const fewest = Math.min(...shapeErrors)
    const meant = shapeErrors.indexOf(fewest)
    if (shapeErrors.lastIndexOf(fewest) !== meant) continue
    out = out.filter((e) => e !== failed && (branchOf(e) ?? meant) === meant)
  }
  return out
}

function toFieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  return errors.slice(0, MAX_REPORTED_ERRORS).map((e) => {
    const path = e.instancePath.replace(/^\//, '').replaceAll('/', '.')
    const extra =
      e.keyword === 'additionalProperties' ? ` (${String(e.params['additionalProperty'])})` : ''
    return { field: path === '' ? 'body' : path, message: `${e.message ?? 'is invalid'}${extra}` }
  })
}
