/**
 * The domain error (core/errors.ts, docs/http-api.md): its codes are the contract's, `invalid_request`
 * names the field in the message and in `details.errors`, and anything unknown becomes
 * `internal_error` keeping the original as `cause`.
 */
import { describe, expect, it } from 'vitest'

import { CONTRACT_ERROR_CODES } from '../../src/contract/error-codes.js'
import {
  ERROR_CODES,
  invalidRequest,
  isErrorCode,
  PowerContextError,
  toPowerContextError,
} from '../../src/core/errors.js'

describe('PowerContextError', () => {
  it('carries its code, message, details and cause', () => {
    const cause = new Error('disk')
    const e = new PowerContextError(
      'storage_unavailable',
      'no space',
      { reason: 'disk_full' },
      {
        cause,
      },
    )
    expect(e).toBeInstanceOf(Error)
    expect(e.name).toBe('PowerContextError')
    expect(e.code).toBe('storage_unavailable')
    expect(e.message).toBe('no space')
    expect(e.details).toEqual({ reason: 'disk_full' })
    expect(e.cause).toBe(cause)
    expect(new PowerContextError('internal_error', 'x').details).toBeUndefined()
  })

  it('uses exactly the contract error codes', () => {
    expect(ERROR_CODES).toBe(CONTRACT_ERROR_CODES)
    for (const code of ERROR_CODES) expect(isErrorCode(code)).toBe(true)
    for (const other of ['', 'Invalid_Request', 'invalid_request ', 'nope', 1, null, undefined]) {
      expect(isErrorCode(other)).toBe(false)
    }
  })
})

describe('invalidRequest', () => {
  it('names the field in the message and in details.errors', () => {
    const e = invalidRequest('sources[0].name', 'must be one of content')
    expect(e).toBeInstanceOf(PowerContextError)
    expect(e.code).toBe('invalid_request')
    expect(e.message).toBe('sources[0].name: must be one of content')
    expect(e.details).toEqual({
      errors: [{ field: 'sources[0].name', message: 'must be one of content' }],
    })
  })
})

describe('toPowerContextError', () => {
  it('passes a domain error through unchanged', () => {
    const e = invalidRequest('limit', 'must be an integer')
    expect(toPowerContextError(e)).toBe(e)
    expect(toPowerContextError(e, 'other message')).toBe(e)
  })

  it('wraps anything else as internal_error with the original as cause', () => {
    const cause = new TypeError('boom')
    const wrapped = toPowerContextError(cause)
    expect(wrapped).toBeInstanceOf(PowerContextError)
    expect(wrapped.code).toBe('internal_error')
    expect(wrapped.message).toBe('internal error')
    expect(wrapped.details).toBeUndefined()
    expect(wrapped.cause).toBe(cause)
    const named = toPowerContextError('a string', 'storage failure')
    expect(named.message).toBe('storage failure')
    expect(named.cause).toBe('a string')
  })
})
