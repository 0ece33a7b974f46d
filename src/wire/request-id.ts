import { randomBytes } from 'node:crypto'

/** Header carrying the request id on every response (docs/http-api.md). */
export const REQUEST_ID_HEADER = 'x-powercontext-request-id'

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Keeps a caller's safe request id; otherwise generates 16 lowercase hex characters. */
export function requestIdFor(callerValue: string | string[] | undefined): string {
  if (typeof callerValue === 'string' && SAFE_REQUEST_ID.test(callerValue)) return callerValue
  return randomBytes(8).toString('hex')
}
