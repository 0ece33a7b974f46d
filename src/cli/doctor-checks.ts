/**
 * The `doctor` checks beyond the health endpoints: the server's `/mcp` endpoint (it lists the
 * tools), the local data directory (read with node:fs only; no driver), and
 * the models the server is configured with (its readiness probes). Each failure is one line that
 * says what is wrong and what to do.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { dirname } from 'node:path'

import { databasePath, resolveDataDir } from '../runtime/data-dir.js'
import { mcpUrl, TOKEN_ENV } from './agents/mcp-entries.js'

/** One line of a doctor report; `skip` when the check cannot mean anything here. */
export interface CheckLine {
  readonly name: string
  readonly status: 'pass' | 'fail' | 'skip'
  readonly detail: string
}

const MCP_TIMEOUT_MS = 5000

/**
 * Lists the tools over `/mcp`, one JSON-RPC request as the stdio proxy sends it (the endpoint is
 * stateless), so `doctor` loads neither the MCP SDK nor zod.
 */
export async function mcpCheck(serverUrl: string, token: string | undefined): Promise<CheckLine> {
  const { mcpEndpoint, RemoteMcpTools, RemoteUnavailable } = await import('../mcp/stdio-proxy.js')
  const remote = new RemoteMcpTools(mcpEndpoint(serverUrl), token)
  const fail = (why: string): CheckLine => ({
    name: 'mcp',
    status: 'fail',
    detail: `${mcpUrl(serverUrl)} ${why}`,
  })
  const timer = setTimeout(() => remote.close(), MCP_TIMEOUT_MS)
  try {
    const { tools } = await remote.remoteTools()
    if (!Array.isArray(tools)) return fail('did not answer tools/list: no tool list')
    return {
      name: 'mcp',
      status: 'pass',
      detail: `${mcpUrl(serverUrl)} lists ${tools.length} tools`,
    }
  } catch (err) {
    if (err instanceof RemoteUnavailable && err.status === 401)
      return fail(`rejected the token (401); set ${TOKEN_ENV} to the server token`)
    return fail(
      `did not answer tools/list: ${String((err as Error)?.message ?? err).split('\n')[0]}`,
    )
  } finally {
    clearTimeout(timer)
  }
}

/** Where the local commands would keep their data, as the global options say. */
export interface LocalStore {
  /** `--data-dir`, when given. */
  readonly dataDir?: string | undefined
  /** `--database` was given (a database by URL, no data directory). */
  readonly database: boolean
  /** `--server-url` or `POWERCONTEXT_CLIENT_SERVER_URL` sends memory commands to a server. */
  readonly remote: boolean
}

const MIB = 1024 * 1024

/** The nearest existing directory at or above `dir`. */
function existingAncestor(dir: string): string {
  let at = dir
  for (;;) {
    try {
      statSync(at)
      return at
    } catch {
      const up = dirname(at)
      if (up === at) return at
      at = up
    }
  }
}

const writable = (path: string): boolean => {
  try {
    accessSync(path, constants.R_OK | constants.W_OK | constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The data directory the local commands (and `server run` by default) use: it must be a
 * writable directory (or creatable), and its database, when present, must be a SQLite file —
 * an empty or foreign file is refused at open. Skipped with `--database`, and when memory
 * commands go to a server and no `--data-dir` is given.
 */
export async function dataDirCheck(store: LocalStore): Promise<CheckLine> {
  const skip = (detail: string): CheckLine => ({ name: 'data-dir', status: 'skip', detail })
  const fail = (detail: string): CheckLine => ({ name: 'data-dir', status: 'fail', detail })
  if (store.database) return skip('skipped: --database names a MySQL-protocol database')
  if (store.remote && store.dataDir === undefined)
    return skip('skipped: memory commands go to the server; pass --data-dir DIR to check one')
  const dir = resolveDataDir(store.dataDir)
  let isDir: boolean
  try {
    isDir = statSync(dir).isDirectory()
  } catch {
    const parent = existingAncestor(dir)
    return writable(parent)
      ? {
          name: 'data-dir',
          status: 'pass',
          detail: `${dir} does not exist yet (created at first use)`,
        }
      : fail(
          `${dir} does not exist and ${parent} is not writable by this user; create it or set --data-dir / POWERCONTEXT_HOME`,
        )
  }
  if (!isDir)
    return fail(`${dir} is not a directory; set --data-dir / POWERCONTEXT_HOME to a directory`)
  if (!writable(dir))
    return fail(
      `${dir} is not writable by this user; fix its permissions or set --data-dir / POWERCONTEXT_HOME`,
    )
  const file = databasePath(dir)
  // Loaded here: `doctor --server-url` never touches storage code.
  const { databaseFileState } = await import('../storage/sqlite/sqlite-header.js')
  let state
  try {
    state = databaseFileState(file)
  } catch (err) {
    return fail(`${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  switch (state.state) {
    case 'missing':
      return {
        name: 'data-dir',
        status: 'pass',
        detail: `${dir} (no database yet: created at first use)`,
      }
    case 'empty':
      return fail(
        `${file} is empty (0 bytes), not a database; restore it from a backup, or remove it to start a new empty store`,
      )
    case 'not_sqlite':
      return fail(
        `${file} is not a SQLite database (unexpected header); point --data-dir / POWERCONTEXT_HOME elsewhere`,
      )
    case 'sqlite':
      return {
        name: 'data-dir',
        status: 'pass',
        detail: `${dir} (${file}, ${(state.bytes / MIB).toFixed(1)} MiB)`,
      }
  }
}

/** What the models check reads from the server. */
export interface ServerModels {
  /** Readiness checks (`inference.embedding`, `inference.generation` when configured). */
  readonly readiness: Readonly<Record<string, string>>
  /** `embedding_profile.model` of the capabilities, when vector search is available. */
  readonly embeddingModel: string | null
  /** `extraction.model` of the capabilities. */
  readonly generationModel: string | null
}

/**
 * The models the server is configured with, as its readiness probes see them: every configured
 * model must answer. Without any, the line says what the server does instead.
 */
export function modelsCheck(m: ServerModels): CheckLine {
  const parts: { role: string; model: string | null; status: string; env: string }[] = []
  const embedding = m.readiness['inference.embedding']
  if (embedding !== undefined)
    parts.push({ role: 'embedding', model: m.embeddingModel, status: embedding, env: 'EMBEDDING' })
  const generation = m.readiness['inference.generation']
  if (generation !== undefined || m.generationModel !== null)
    parts.push({
      role: 'generation',
      model: m.generationModel,
      status: generation ?? 'ready',
      env: 'GENERATION',
    })
  if (parts.length === 0)
    return {
      name: 'models',
      status: 'pass',
      detail: 'no models configured: search is full-text, flush takes structured sources only',
    }
  const named = (p: (typeof parts)[number]): string =>
    `${p.role} model${p.model === null ? '' : ` ${p.model}`}`
  const paused = parts.find((p) => p.status.startsWith('extraction paused'))
  if (paused !== undefined)
    // Not a fault: the budget holds extraction back and it resumes by itself.
    return { name: 'models', status: 'pass', detail: `${named(paused)}: ${paused.status}` }
  const failing = parts.filter((p) => p.status !== 'ready')
  if (failing.length === 0)
    return {
      name: 'models',
      status: 'pass',
      detail: parts.map((p) => `${named(p)} ready`).join(', '),
    }
  return {
    name: 'models',
    status: 'fail',
    detail: failing
      .map(
        (p) =>
          `${named(p)} ${p.status}${p.status.includes('(run `') || p.status.includes('not found') ? '' : `; check POWERCONTEXT_SERVER_${p.env}_URL and _MODEL of the server`}`,
      )
      .join('; '),
  }
}
