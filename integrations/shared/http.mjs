// JSON over HTTP for hooks: POST only, no redirects followed, no keep-alive, a per-request timeout
// bounded by the hook's deadline, and a bounded response. Every failure is a HookFailure.
import { request as httpRequest } from 'node:http'

import { HookFailure } from './diagnostics.mjs'

/** Largest response body read (the reference plugins' 1 MiB). */
export const MAX_RESPONSE_BYTES = 1_048_576
const USER_AGENT = 'powercontext-hooks/0.2'

/**
 * POSTs `body` as JSON to `path` under the settings' server URL and returns the parsed answer of a
 * 2xx. The request is aborted at `min(requestTimeoutMs, deadline - now)`.
 * @param {import('./settings.mjs').HookSettings} settings
 * @param {string} path e.g. `/v1/context/prepare`
 * @param {unknown} body
 * @param {number} deadline epoch ms when the whole hook must be done
 * @returns {Promise<{status: number, json: unknown}>}
 * @throws {HookFailure} `timeout`, `server_unavailable`, `redirect_refused`,
 *   `authentication_failed` (401), `version_mismatch` (404), `http_error`, `response_too_large`,
 *   `invalid_response`
 */
export async function postJson(settings, path, body, deadline) {
  const timeoutMs = Math.min(settings.requestTimeoutMs, deadline - Date.now())
  if (timeoutMs <= 0) throw new HookFailure('timeout')
  const url = new URL(settings.serverUrl.href)
  url.pathname = `${url.pathname.replace(/\/+$/u, '')}${path}`
  const payload = Buffer.from(JSON.stringify(body), 'utf8')
  const request = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    'content-length': String(payload.length),
    'user-agent': USER_AGENT,
    ...(settings.authorization === undefined ? {} : { authorization: settings.authorization }),
  }
  return new Promise((resolve, reject) => {
    let settled = false
    /** @type {(err: unknown, value?: {status: number, json: unknown}) => void} */
    const finish = (err, value) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      if (err) reject(err)
      else resolve(/** @type {{status: number, json: unknown}} */ (value))
    }
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      const status = res.statusCode ?? 0
      const failure = statusFailure(status)
      if (failure !== undefined) return finish(failure)
      const declared = Number(res.headers['content-length'])
      if (declared > MAX_RESPONSE_BYTES) return finish(new HookFailure('response_too_large'))
      /** @type {Buffer[]} */
      const chunks = []
      let size = 0
      res.on('data', (chunk) => {
        size += chunk.length
        if (size > MAX_RESPONSE_BYTES) return finish(new HookFailure('response_too_large'))
        chunks.push(chunk)
      })
      res.on('error', () => finish(new HookFailure('server_unavailable')))
      res.on('end', () => {
        try {
          finish(undefined, { status, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
        } catch {
          finish(new HookFailure('invalid_response'))
        }
      })
    })
    const timer = setTimeout(() => finish(new HookFailure('timeout')), timeoutMs)
    req.on('error', () => finish(new HookFailure('server_unavailable')))
    req.end(payload)
  })
}

/** @param {number} status */
function statusFailure(status) {
  if (status >= 200 && status < 300) return undefined
  if (status >= 300 && status < 400) return new HookFailure('redirect_refused', status)
  if (status === 401) return new HookFailure('authentication_failed', status)
  if (status === 404) return new HookFailure('version_mismatch', status)
  if (status === 503) return new HookFailure('server_unavailable', status)
  return new HookFailure('http_error', status)
}
