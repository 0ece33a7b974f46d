/*
 * DNS rebinding and cross-origin requests (docs/server.md#host-and-origin). A web page on a name
 * its owner rebinds to 127.0.0.1 reaches the server as same-origin to the browser, so its
 * requests carry that name in `Host`: a request is served only when `Host` names the server —
 * an IP literal, `localhost` (or `*.localhost`), or a configured name. A browser's cross-origin
 * request carries `Origin`: it is served only when that origin is the server's own (the console)
 * or a configured one. Agents, the CLI and the clients send no `Origin`.
 */
import { isIP } from 'node:net'

import { PowerContextError } from '../core/errors.js'

/** Names and origins allowed besides the built-in ones (a reverse proxy's). */
export interface HostPolicy {
  /**
   * Host names (no port) served besides IP literals and `localhost`; `*` turns the `Host` check
   * off (env `POWERCONTEXT_SERVER_ALLOWED_HOSTS`, comma-separated). Default none.
   */
  readonly allowedHosts: readonly string[]
  /**
   * Browser origins (`scheme://host[:port]`) served besides the server's own; `*` turns the
   * `Origin` check off (env `POWERCONTEXT_SERVER_ALLOWED_ORIGINS`). Default none.
   */
  readonly allowedOrigins: readonly string[]
}

export const DEFAULT_HOST_POLICY: HostPolicy = Object.freeze({
  allowedHosts: [],
  allowedOrigins: [],
})

/** The host name of a `Host` value (`[::1]:8080` → `::1`, `Example.COM.:80` → `example.com`). */
function hostName(host: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d*)?$/.exec(host)
  const name = bracketed?.[1] ?? host.replace(/:\d*$/, '')
  return name.toLowerCase().replace(/\.$/, '')
}

function forbidden(reason: 'host' | 'origin', message: string): PowerContextError {
  return new PowerContextError('forbidden', message, { reason })
}

/** Whether `Host` names this server under `policy`. */
export function hostAllowed(host: string | undefined, policy: HostPolicy): boolean {
  if (policy.allowedHosts.includes('*')) return true
  if (host === undefined || host === '') return false
  const name = hostName(host)
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return true
  return policy.allowedHosts.some((h) => hostName(h) === name)
}

/** Whether a browser's `Origin` may call: the server's own origin (same host) or a configured one. */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  policy: HostPolicy,
): boolean {
  if (origin === undefined || policy.allowedOrigins.includes('*')) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false // `null` (a sandboxed or file page) and anything unparsable
  }
  if (host !== undefined && url.host === host.toLowerCase()) return true
  return policy.allowedOrigins.some((o) => o.replace(/\/$/, '').toLowerCase() === url.origin)
}

/**
 * Refuses a request whose `Host` does not name the server or whose `Origin` is foreign.
 * @throws PowerContextError `forbidden` (403) with `details.reason` `host` or `origin`.
 */
export function checkHostAndOrigin(
  headers: { readonly host?: string | undefined; readonly origin?: string | undefined },
  policy: HostPolicy,
): void {
  if (!hostAllowed(headers.host, policy)) {
    throw forbidden(
      'host',
      `Host ${JSON.stringify(headers.host ?? '')} is not this server's; a reverse proxy's name goes in POWERCONTEXT_SERVER_ALLOWED_HOSTS`,
    )
  }
  if (!originAllowed(headers.origin, headers.host, policy)) {
    throw forbidden(
      'origin',
      `cross-origin request from ${JSON.stringify(headers.origin)} refused; allowed origins go in POWERCONTEXT_SERVER_ALLOWED_ORIGINS`,
    )
  }
}

/** A comma-separated list setting (blank entries dropped). */
export function listSetting(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
}
