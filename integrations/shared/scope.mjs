// The project scope of a working directory, shared by every agent hook and the CLI: the same
// checkout gives the same scope id as the Python reference's plugins, so a
// repository bound by either lands in one project memory. Only node: built-ins (hooks start fast).
import { createHash } from 'node:crypto'
import { readFileSync, realpathSync } from 'node:fs'
import { join, resolve } from 'node:path'

import { gitOutput } from './git.mjs'
import { DEFAULT_SCOPE_ENV, HOST_PROFILES } from './hosts.mjs'

/**
 * Longest scope id the server accepts (src/core/ids.ts: printable ASCII, 1–128 characters). The
 * reference takes ids of up to 256 code points as they are; an id it would keep that the server
 * would refuse (129–256 characters, a space or a non-ASCII character) is replaced by the same
 * sha256 form the reference uses for ids over 256, so every resolved scope is a valid scope id.
 */
export const MAX_SCOPE_LENGTH = 128
const VALID_SCOPE = new RegExp(`^[\\x21-\\x7E]{1,${MAX_SCOPE_LENGTH}}$`, 'u')
/** The Git-private binding file (shared with the reference's Claude Code and Codex plugins). */
export const BINDING_SCHEMA = 'powercontext.codex-workspace.v1'
export const BINDING_PATH = ['powercontext', 'codex-workspace.json']
const GIT_TIMEOUT_MS = 2000
const REMOTE_SCHEMES = new Set(['http', 'https', 'ssh', 'git'])

// Python's str.isspace() set: the reference strips and matches with it, so we do too.
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'gu')
// `[user@]host:path` (scp-like Git remotes); `.` stops at line breaks as in Python's `re`.
const SCP_REMOTE = new RegExp(
  `^(?:[^@/${PY_SPACE}]+@)?([^:/${PY_SPACE}]+):([^\\n\\r\\u2028\\u2029\\x85]+)$`,
  'u',
)
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/

const pyStrip = (value) => value.replace(PY_STRIP, '')
/** Whether the server accepts `value` as a scope id. */
export const isValidScopeId = (value) => VALID_SCOPE.test(value)
const sha256Hex = (value) => createHash('sha256').update(value).digest('hex')

/**
 * The scope id of the project holding `cwd`, and where it came from:
 * `env` (an override variable, e.g. `POWERCONTEXT_SCOPE_ID`) → `binding` (the Git-private file
 * `<git-dir>/powercontext/codex-workspace.json`) → `git` (`git:<host>/<path>` of the normalised
 * `remote.origin.url`) → `local` (`local:<sha256 of the project root>`). Never throws; Git is run
 * with a 2 s timeout and a missing `git` counts as "not a repository".
 * @param {{cwd: string, env?: Record<string, string | undefined>, host?: string}} options
 * @returns {{scope_id: string, source: 'env' | 'binding' | 'git' | 'local'}}
 */
export function resolveScope({ cwd, env = process.env, host }) {
  const override = overrideScope(env, host)
  if (override !== undefined) return { scope_id: override, source: 'env' }
  const git = gitLocations(cwd, env)
  const bound = git.gitDir === undefined ? undefined : readBinding(git.gitDir)
  if (bound !== undefined) return { scope_id: bound, source: 'binding' }
  const root = realPath(git.topLevel ?? cwd)
  const remote = gitValue(root, env, ['config', '--get', 'remote.origin.url'])
  const normalized = remote === undefined ? undefined : normalizeGitRemote(remote)
  if (normalized !== undefined) return { scope_id: bounded('git', normalized), source: 'git' }
  return { scope_id: `local:${sha256Hex(Buffer.from(root, 'utf8'))}`, source: 'local' }
}

/**
 * `host/path` of a network Git remote (http, https, ssh, git URLs and scp-like `user@host:path`):
 * credentials and `.git` dropped, host lower-cased, port kept, path case kept; `undefined` for a
 * local path, another scheme or no path.
 * @param {string} remote
 * @returns {string | undefined}
 */
export function normalizeGitRemote(remote) {
  const value = pyStrip(remote)
  if (value === '') return undefined
  const scp = SCP_REMOTE.exec(value)
  if (scp !== null && !value.includes('://')) {
    const path = normalizePath(scp[2] ?? '')
    return path === '' ? undefined : `${(scp[1] ?? '').toLowerCase()}/${path}`
  }
  const url = splitUrl(value)
  if (url === undefined || !REMOTE_SCHEMES.has(url.scheme) || url.hostname === undefined) {
    return undefined
  }
  const host = url.port === undefined ? url.hostname : `${url.hostname}:${url.port}`
  const path = normalizePath(url.path)
  return path === '' ? undefined : `${host}/${path}`
}

function overrideScope(env, host) {
  // The env names of the explicit override, first set one wins: the host's row (its own name
  // in front of the generic one), else the generic name alone.
  for (const name of HOST_PROFILES[host ?? '']?.scopeEnv ?? DEFAULT_SCOPE_ENV) {
    const raw = env[name]
    if (raw === undefined) continue
    const value = pyStrip(raw)
    if (value === '') return undefined
    return isValidScopeId(value) ? value : `sha256:${sha256Hex(value)}`
  }
  return undefined
}

function bounded(prefix, value) {
  const candidate = `${prefix}:${value}`
  if (isValidScopeId(candidate)) return candidate
  return `${prefix}:sha256:${sha256Hex(value)}`
}

function normalizePath(path) {
  let out = path
    .replaceAll('\\', '/')
    .split('/')
    .filter((part) => part !== '')
    .join('/')
  if (out.endsWith('.git')) out = out.slice(0, -4)
  return out.replace(/\/+$/u, '')
}

/** The parts of Python's `urllib.parse.urlsplit` the reference reads (scheme, host, port, path). */
function splitUrl(input) {
  let rest = input.replace(/[\t\r\n]/gu, '')
  let scheme = ''
  const colon = rest.indexOf(':')
  if (colon > 0 && SCHEME.test(rest.slice(0, colon))) {
    scheme = rest.slice(0, colon).toLowerCase()
    rest = rest.slice(colon + 1)
  }
  let netloc = ''
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/u)
    netloc = end < 0 ? rest.slice(2) : rest.slice(2, end + 2)
    rest = end < 0 ? '' : rest.slice(end + 2)
    if (netloc.includes('[') !== netloc.includes(']')) return undefined
  }
  const path = rest.split('#')[0]?.split('?')[0] ?? ''
  const hostInfo = netloc.slice(netloc.lastIndexOf('@') + 1)
  let hostname
  let port
  const open = hostInfo.indexOf('[')
  if (open >= 0) {
    const bracketed = hostInfo.slice(open + 1)
    const close = bracketed.indexOf(']')
    hostname = close < 0 ? bracketed : bracketed.slice(0, close)
    const after = close < 0 ? '' : bracketed.slice(close + 1)
    port = after.includes(':') ? after.slice(after.indexOf(':') + 1) : ''
  } else {
    const sep = hostInfo.indexOf(':')
    hostname = sep < 0 ? hostInfo : hostInfo.slice(0, sep)
    port = sep < 0 ? '' : hostInfo.slice(sep + 1)
  }
  // Python raises on a bad port; the reference then derives nothing from the remote.
  if (port !== '' && (!/^[0-9]+$/u.test(port) || Number(port) > 65535)) return undefined
  if (hostname === '') return { scheme, hostname: undefined, port: undefined, path }
  const host = hostname.toLowerCase()
  return { scheme, hostname: host, port: port === '' ? undefined : String(Number(port)), path }
}

function gitLocations(cwd, env) {
  const both = gitValue(cwd, env, ['rev-parse', '--absolute-git-dir', '--show-toplevel'])
  if (both !== undefined) {
    const [gitDir, topLevel] = both.split('\n').map((line) => pyStrip(line))
    return { gitDir: gitDir || undefined, topLevel: topLevel || undefined }
  }
  // Inside a `.git` directory or a bare repository there is a git dir but no work tree.
  return { gitDir: gitValue(cwd, env, ['rev-parse', '--absolute-git-dir']), topLevel: undefined }
}

function gitValue(cwd, env, args) {
  const out = gitOutput(cwd, env, args, GIT_TIMEOUT_MS)
  const value = out === undefined ? '' : pyStrip(out)
  return value === '' ? undefined : value
}

function readBinding(gitDir) {
  let payload
  try {
    payload = JSON.parse(readFileSync(join(gitDir, ...BINDING_PATH), 'utf8'))
  } catch {
    return undefined
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined
  if (payload.schema !== BINDING_SCHEMA) return undefined
  const id = payload.scope_id
  if (typeof id !== 'string' || id === '' || id !== pyStrip(id)) return undefined
  return isValidScopeId(id) ? id : undefined
}

function realPath(path) {
  try {
    return realpathSync.native(path)
  } catch {
    return resolve(path)
  }
}
