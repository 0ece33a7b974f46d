// Hook settings from the environment: the server URL and token under the TS client's names, the
// capture and recall switches, the time budgets. Invalid settings are a `HookFailure`, never a throw
// of anything else; the hook then does nothing (fail open).
import { HookFailure } from './diagnostics.mjs'
import { DEFAULT_SERVER_URL_ENV, HOST_PROFILES } from './hosts.mjs'

/** Server asked when no URL is set (the server's default bind). */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8000'
/** Per-request timeout and whole-hook budget (ms), the reference plugins' 1 s and 4 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 1000
export const DEFAULT_BUDGET_MS = 4000

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/iu
const OFF = new Set(['0', 'false', 'no', 'off'])
const ON = new Set(['1', 'true', 'yes', 'on'])

/**
 * @typedef {{serverUrl: URL, authorization: string | undefined, capture: boolean, recall: boolean,
 *   requestTimeoutMs: number, budgetMs: number, form: 'command' | 'http'}} HookSettings
 */

/**
 * Settings of one hook run: `POWERCONTEXT_CLIENT_SERVER_URL` (default http://127.0.0.1:8000; a
 * trailing `/mcp` is dropped; plain http only to a loopback host, https anywhere; no credentials,
 * query or fragment), `POWERCONTEXT_CLIENT_API_TOKEN` (sent as a bearer token),
 * `POWERCONTEXT_HOOKS_CAPTURE` and `POWERCONTEXT_HOOKS_RECALL` (`off`/`0`/`false`/`no` turn one
 * off), `POWERCONTEXT_HOOKS_REQUEST_TIMEOUT_MS` (1000), `POWERCONTEXT_HOOKS_BUDGET_MS` (4000) and
 * `POWERCONTEXT_HOOKS_FORM` (`command`, or `http` when the host's `UserPromptSubmit` hook is the
 * server's route: Stop then captures the prompt, SessionStart and PreCompact tell the server).
 * @param {Record<string, string | undefined>} env
 * @param {string} host a row of `HOST_PROFILES` (its `serverUrlEnv`, first set wins)
 * @returns {HookSettings}
 * @throws {HookFailure} `invalid_settings`
 */
export function readSettings(env, host) {
  const urlText =
    firstSet(env, HOST_PROFILES[host]?.serverUrlEnv ?? DEFAULT_SERVER_URL_ENV) ?? DEFAULT_SERVER_URL
  const token = (env.POWERCONTEXT_CLIENT_API_TOKEN ?? '').trim()
  if (token !== '' && !/^[\x21-\x7e]+$/u.test(token)) throw new HookFailure('invalid_settings')
  return {
    serverUrl: serverUrl(urlText),
    authorization: token === '' ? undefined : `Bearer ${token}`,
    capture: flag(env.POWERCONTEXT_HOOKS_CAPTURE),
    recall: flag(env.POWERCONTEXT_HOOKS_RECALL),
    requestTimeoutMs: millis(env.POWERCONTEXT_HOOKS_REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS),
    budgetMs: millis(env.POWERCONTEXT_HOOKS_BUDGET_MS, DEFAULT_BUDGET_MS),
    form: hookForm(env.POWERCONTEXT_HOOKS_FORM),
  }
}

function firstSet(env, names) {
  for (const name of names) {
    const value = env[name]?.trim()
    if (value) return value
  }
  return undefined
}

function serverUrl(text) {
  let url
  try {
    url = new URL(text)
  } catch {
    throw new HookFailure('invalid_settings')
  }
  const plainLoopback = url.protocol === 'http:' && LOOPBACK.test(url.hostname)
  if (!(plainLoopback || url.protocol === 'https:')) throw new HookFailure('invalid_settings')
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new HookFailure('invalid_settings')
  }
  url.pathname = url.pathname.replace(/\/+$/u, '').replace(/\/mcp$/u, '')
  return url
}

function hookForm(value) {
  const v = (value ?? '').trim().toLowerCase()
  if (v === '' || v === 'command') return 'command'
  if (v === 'http') return 'http'
  throw new HookFailure('invalid_settings')
}

function flag(value) {
  const v = (value ?? '').trim().toLowerCase()
  if (v === '' || ON.has(v)) return true
  if (OFF.has(v)) return false
  throw new HookFailure('invalid_settings')
}

function millis(value, fallback) {
  if (value === undefined || value.trim() === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 60_000) throw new HookFailure('invalid_settings')
  return n
}
