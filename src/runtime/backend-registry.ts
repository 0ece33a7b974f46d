import type { Embedder } from '../core/embedding.js'
import { invalidRequest } from '../core/errors.js'
import type { MemoryBackend } from '../storage/spi/memory-backend.js'
import type { ReferenceSession } from '../storage/upgrade/reference-session.js'

/** What every database backend opened from a URL receives. */
export interface DatabaseOpenOptions {
  /** The database URL as given (its password never appears in an error message). */
  readonly url: string
  /** Clock for stamps; default the system clock. */
  readonly now?: (() => Date) | undefined
  /** Embedding model for the vector projection. */
  readonly embedder?: Embedder | undefined
}

/**
 * One database backend reached by URL. Each opener loads its adapter (and its driver) only when
 * called, so that `--help`, `--server-url` and the embedded SQLite default never load it.
 */
export interface DatabaseBackendEntry {
  /** Short name, e.g. `mysql`. */
  readonly name: string
  /** URL schemes it opens, lower case, without `://`. */
  readonly schemes: readonly string[]
  /** What it is, for help texts and diagnostics. */
  readonly label: string
  /** Opens the memory backend. */
  readonly open: (options: DatabaseOpenOptions) => Promise<MemoryBackend>
  /** Opens a database of the Python reference for `admin upgrade-from-reference`, if it can. */
  readonly openReference?: (url: string) => Promise<ReferenceSession>
}

/**
 * The database backends a URL may name (`--database`, `POWERCONTEXT_SERVER_DATABASE_URL`,
 * `upgrade-from-reference --from`). Without a URL the runtime opens embedded SQLite in the data
 * directory. A new backend is one row here plus its adapter folder under `src/storage/`.
 */
export const DATABASE_BACKENDS: readonly DatabaseBackendEntry[] = Object.freeze([
  {
    name: 'mysql',
    schemes: ['mysql'],
    label: 'MySQL-protocol database (OceanBase, MariaDB)',
    open: async (o) => {
      const { openMysqlBackend } = await import('../storage/mysql/index.js')
      return openMysqlBackend({
        url: o.url,
        ...(o.now === undefined ? {} : { now: o.now }),
        embedder: o.embedder,
      })
    },
    openReference: async (url) => {
      const { openMysqlReference } = await import('../storage/mysql/reference-mysql.js')
      return openMysqlReference(url)
    },
  },
])

/** The accepted URL prefixes, e.g. `mysql://`. */
export function supportedDatabaseSchemes(): string[] {
  return DATABASE_BACKENDS.flatMap((b) => b.schemes.map((s) => `${s}://`))
}

/** The scheme of `text` (lower case) when it is written `scheme://…`, else undefined. */
export function urlScheme(text: string): string | undefined {
  return /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase()
}

/**
 * The backend that opens `url`, chosen by its scheme.
 * @throws PowerContextError `invalid_request` (field `database`) when `url` is not `scheme://…` or
 *   no backend has its scheme; the message names the supported schemes, never the password.
 */
export function databaseBackendFor(url: string): DatabaseBackendEntry {
  const scheme = urlScheme(url)
  const entry =
    scheme === undefined ? undefined : DATABASE_BACKENDS.find((b) => b.schemes.includes(scheme))
  if (entry !== undefined) return entry
  const what =
    scheme === undefined
      ? 'a database URL must be written scheme://…'
      : `no backend opens ${scheme}:// URLs`
  throw invalidRequest('database', `${what}; supported: ${supportedDatabaseSchemes().join(', ')}`)
}
