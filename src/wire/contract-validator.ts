import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'

import { OPENAPI_DOCUMENT } from '../contract/openapi-document.js'
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

  constructor() {
    this.#ajv = new Ajv2020({
      allErrors: true,
      coerceTypes: false,
      removeAdditional: false,
      useDefaults: false,
      strict: false,
      validateFormats: false,
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

  /** Field errors of `value` against the schema; empty when valid. */
  check(schemaName: string, value: unknown): FieldError[] {
    const fn = this.validator(schemaName)
    if (fn(value)) return []
    return toFieldErrors(fn.errors ?? [])
  }
}

function toFieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  return errors.slice(0, MAX_REPORTED_ERRORS).map((e) => {
    const path = e.instancePath.replace(/^\//, '').replaceAll('/', '.')
    const extra =
      e.keyword === 'additionalProperties' ? ` (${String(e.params['additionalProperty'])})` : ''
    return { field: path === '' ? 'body' : path, message: `${e.message ?? 'is invalid'}${extra}` }
  })
}
