/**
 * The core tests' check of an `invalid_request` refusal: the call throws a `PowerContextError`
 * with that code, one `details.errors` entry, and the message `field: message` of that entry.
 */
import { expect } from 'vitest'

import { PowerContextError } from '../../src/core/errors.js'

/** The `field: message` of the `invalid_request` a call throws; fails when it does not throw one. */
export function refusal(run: () => unknown): string {
  try {
    run()
  } catch (err) {
    expect(err).toBeInstanceOf(PowerContextError)
    const e = err as PowerContextError
    expect(e.code).toBe('invalid_request')
    const errors = e.details?.['errors'] as { field: string; message: string }[]
    expect(errors).toHaveLength(1)
    expect(e.message).toBe(`${errors[0]?.field}: ${errors[0]?.message}`)
    return e.message
  }
  throw new Error('expected an invalid_request')
}
