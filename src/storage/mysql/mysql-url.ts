import { PowerContextError } from '../../core/errors.js'
import type { HnswParameters, MysqlDialectName } from './mysql-search.js'
import { HNSW_DEFAULTS, MYSQL_DIALECT_NAMES } from './mysql-search.js'

/** Connection settings parsed from a `mysql://` database URL. */
export interface MysqlConnectionSettings {
  readonly host: string
  readonly port: number
  readonly user: string
  /** Never printed: {@link redactDatabaseUrl} and {@link redactSecret} keep it out of messages. */
  readonly password: string | undefined
  readonly database: string
  /** Pooled connections (`?connection_limit=`); default 10. */
  readonly connectionLimit: number
  /** Forced dialect (`?dialect=oceanbase|mariadb`); detected from the server when absent. */
  readonly dialect: MysqlDialectName | undefined
  /** HNSW build parameters (`?hnsw_m=&hnsw_ef_construction=&hnsw_ef_search=`), OceanBase only. */
  readonly hnsw: HnswParameters
}

const DEFAULT_PORT = 3306
const DEFAULT_CONNECTION_LIMIT = 10
const QUERY_KEYS = new Set([
  'connection_limit',
  'dialect',
  'hnsw_m',
  'hnsw_ef_construction',
  'hnsw_ef_search',
])

/** True for URLs this adapter opens (`mysql://…`). */
export function isMysqlUrl(url: string): boolean {
  return /^mysql:\/\//i.test(url)
}

/**
 * The URL with its password replaced by `***` (safe for logs and errors). A string that does not
 * parse as a URL is replaced whole, since it may still hold the password.
 */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch {
    return '<unparsable database URL>'
  }
}

/** `text` with every occurrence of `secret` (raw and URL-encoded) replaced by `***`. */
export function redactSecret(text: string, secret: string | undefined): string {
  if (secret === undefined || secret === '') return text
  let out = text
  for (const form of new Set([secret, encodeURIComponent(secret)]))
    out = out.split(form).join('***')
  return out
}

function invalidUrl(url: string, why: string): PowerContextError {
  return new PowerContextError(
    'invalid_request',
    `invalid database URL ${redactDatabaseUrl(url)}: ${why}`,
    { field: 'database' },
  )
}

/** `decodeURIComponent` of one part of the URL; a malformed escape (`%zz`) is a settings error. */
function decoded(url: string, part: string, value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    throw invalidUrl(url, `the ${part} holds a malformed percent-escape (write % as %25)`)
  }
}

function intParam(url: string, params: URLSearchParams, key: string, fallback: number): number {
  const raw = params.get(key)
  if (raw === null) return fallback
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1)
    throw invalidUrl(url, `${key} must be a positive integer`)
  return Number(raw)
}

/**
 * Parses `mysql://user:password@host:port/database?options` (user and password URL-encoded).
 * Options: `connection_limit`, `dialect` (`oceanbase` | `mariadb`, else detected),
 * `hnsw_m`, `hnsw_ef_construction`, `hnsw_ef_search`.
 * @throws PowerContextError `invalid_request` (the message never contains the password).
 */
export function parseDatabaseUrl(url: string): MysqlConnectionSettings {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw invalidUrl(url, 'not a URL')
  }
  if (u.protocol !== 'mysql:') throw invalidUrl(url, 'the scheme must be mysql://')
  if (u.hostname === '') throw invalidUrl(url, 'a host is required')
  const database = decoded(url, 'database name', u.pathname.replace(/^\//, ''))
  if (!/^[A-Za-z0-9_$-]{1,64}$/.test(database)) {
    throw invalidUrl(url, 'a database name ([A-Za-z0-9_$-], at most 64 characters) is required')
  }
  if (u.username === '') throw invalidUrl(url, 'a user is required')
  for (const key of u.searchParams.keys()) {
    if (!QUERY_KEYS.has(key)) throw invalidUrl(url, `unknown option ${key}`)
  }
  const dialect = u.searchParams.get('dialect') ?? undefined
  if (dialect !== undefined && !(MYSQL_DIALECT_NAMES as readonly string[]).includes(dialect)) {
    throw invalidUrl(url, `dialect must be one of ${MYSQL_DIALECT_NAMES.join(', ')}`)
  }
  const p = u.searchParams
  return Object.freeze({
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port === '' ? DEFAULT_PORT : Number(u.port),
    user: decoded(url, 'user', u.username),
    password: u.password === '' ? undefined : decoded(url, 'password', u.password),
    database,
    connectionLimit: intParam(url, p, 'connection_limit', DEFAULT_CONNECTION_LIMIT),
    dialect: dialect as MysqlDialectName | undefined,
    hnsw: Object.freeze({
      m: intParam(url, p, 'hnsw_m', HNSW_DEFAULTS.m),
      efConstruction: intParam(url, p, 'hnsw_ef_construction', HNSW_DEFAULTS.efConstruction),
      efSearch: intParam(url, p, 'hnsw_ef_search', HNSW_DEFAULTS.efSearch),
    }),
  })
}
