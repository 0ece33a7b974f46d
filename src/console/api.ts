/**
 * The console's access to the server: the project's typed client over the same origin, and the
 * bearer token kept for this tab only (sessionStorage; nothing is stored server-side).
 */
import {
  createPowerContextClient,
  type PowerContextClient,
  PowerContextClientError,
} from '../client/index.js'
import { maskingClient } from './secret-mask.js'

const TOKEN_KEY = 'powercontext.console.token'

/** The token this tab was given, if any. */
export function storedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined
}

/** Keeps the token for this tab (cleared when the tab closes). */
export function storeToken(token: string | undefined): void {
  if (token === undefined || token === '') sessionStorage.removeItem(TOKEN_KEY)
  else sessionStorage.setItem(TOKEN_KEY, token)
}

/** A client for the server that served the console; credentials in its answers are masked. */
export function consoleClient(token: string | undefined): PowerContextClient {
  return maskingClient(
    createPowerContextClient({ baseUrl: window.location.origin, token, timeoutMs: 30_000 }),
  )
}

/** True for the client error the server sends without (or with a wrong) bearer token. */
export function isUnauthorized(err: unknown): boolean {
  return err instanceof PowerContextClientError && err.code === 'unauthorized'
}

/** The error as the console shows it: code, message and the server's request id. */
export interface ShownError {
  readonly code: string
  readonly message: string
  readonly requestId: string | null
  readonly details: Readonly<Record<string, unknown>> | null
}

export function shownError(err: unknown): ShownError {
  if (err instanceof PowerContextClientError)
    return { code: err.code, message: err.message, requestId: err.requestId, details: err.details }
  return {
    code: 'console_error',
    message: err instanceof Error ? err.message : String(err),
    requestId: null,
    details: null,
  }
}

/** True when `err` is a client error with this code. */
export function hasCode(err: unknown, code: string): err is PowerContextClientError {
  return err instanceof PowerContextClientError && err.code === code
}
