import { PowerContextError } from '../core/errors.js'
import type { EmbeddingSettings } from '../runtime/embedder.js'
import type { ExtractionOptions } from '../runtime/extraction.js'
import type { RuntimeOptions } from '../runtime/memory-runtime.js'
import type { AppOptions } from './app.js'
import type { ConnectionLimits } from './connection-limits.js'
import type { LogSettings } from './log-format.js'

/** Server settings (CLI flags or `POWERCONTEXT_SERVER_*` environment variables). */
export interface ServerSettings {
  readonly host: string
  readonly port: number
  readonly dataDir?: string
  /**
   * A MySQL-protocol database instead of the data directory (env
   * `POWERCONTEXT_SERVER_DATABASE_URL`); its password is never logged.
   */
  readonly databaseUrl?: string
  readonly logLevel?: string
  /** `auto` (default: pretty on a TTY, else JSON lines), `json` or `pretty` (env `POWERCONTEXT_SERVER_LOG_FORMAT`). */
  readonly logFormat?: LogSettings['format']
  /** Add Node.js process metrics to `GET /metrics` (env `POWERCONTEXT_SERVER_METRICS_PROCESS=true`). */
  readonly processMetrics?: boolean | undefined
  /** JSON log lines go here instead of stdout (tests). */
  readonly logStream?: LogSettings['stream']
  /** Bearer token required on every non-health route (env `POWERCONTEXT_SERVER_AUTH_TOKEN`). */
  readonly authToken?: string
  /**
   * Host names served besides IP literals, `localhost` and the bind address (a reverse proxy's;
   * `*`: any), env `POWERCONTEXT_SERVER_ALLOWED_HOSTS` (docs/server.md#host-and-origin).
   */
  readonly allowedHosts?: readonly string[] | undefined
  /** Browser origins served besides the server's own (`*`: any), env `POWERCONTEXT_SERVER_ALLOWED_ORIGINS`. */
  readonly allowedOrigins?: readonly string[] | undefined
  /** Allow a non-loopback bind address without a token. */
  readonly insecureNoAuth?: boolean
  /** Request, header and keep-alive timeouts, connection limits; defaults in connection-limits.ts. */
  readonly limits?: Partial<ConnectionLimits> | undefined
  /** Surfaces mounted on the app; default `[mcpPlugin]` (MCP at `/mcp`). */
  readonly plugins?: AppOptions['plugins']
  /** OpenAI-compatible embedding model: vector and hybrid search, background reindex. */
  readonly embedding?: EmbeddingSettings | undefined
  /** First delay of the background reindex (default 30 s; it backs off while the model fails). */
  readonly reindexIntervalMs?: number | undefined
  /** Flush extraction: generation model, poison attempts (docs/sources-and-flush.md). */
  readonly extraction?: ExtractionOptions | undefined
  /**
   * Backstop: flush scopes with pending sources every N seconds, one scope at a time; default
   * 900 with a generation provider, off without one; 0 = off.
   */
  readonly scheduleSeconds?: number | undefined
  /** Flush a scope by itself after a turn-end capture (default true). */
  readonly autoFlush?: boolean | undefined
  /** Quiet time after the last turn-end capture of a scope before it is flushed (default 5000). */
  readonly autoFlushDebounceMs?: number | undefined
  /** Embedded SQLite: approximate vector search for large scopes (`false`: exact only). */
  readonly vectorAnn?: RuntimeOptions['vectorAnn']
  /** Embedded SQLite: wait for another process's write lock, ms (env `POWERCONTEXT_SERVER_LOCK_WAIT_MS`). */
  readonly lockWaitMs?: RuntimeOptions['lockWaitMs']
  /** How long receipts are kept (env `POWERCONTEXT_SERVER_RECEIPT_KEEP_DAYS` / `_COUNT`). */
  readonly receiptRetention?: RuntimeOptions['receiptRetention']
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/

/** True for loopback bind addresses (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host.replace(/^\[|\]$/g, ''))
}

/** Leading or trailing whitespace, or any control character (none can be sent in a header). */
const UNSENDABLE_TOKEN = /^\s|\s$|\p{Cc}/u

/**
 * Refuses settings a server cannot serve with: a token that no client could ever present (blank,
 * padded with whitespace, or holding a control character: `bearerMatches` trims what it receives,
 * so such a server would refuse everyone), and a non-loopback bind address without a token.
 * @throws PowerContextError `invalid_request` naming the setting.
 */
export function checkServerSettings(settings: ServerSettings): void {
  const token = settings.authToken
  if (token !== undefined && token !== '' && UNSENDABLE_TOKEN.test(token)) {
    const what =
      token.trim() === ''
        ? 'is blank'
        : 'starts or ends with whitespace or holds a control character'
    throw new PowerContextError(
      'invalid_request',
      `POWERCONTEXT_SERVER_AUTH_TOKEN ${what}: no client could present it; set it to the exact token`,
      { errors: [{ field: 'POWERCONTEXT_SERVER_AUTH_TOKEN', message: what }] },
    )
  }
  const hasToken = token !== undefined && token !== ''
  if (!isLoopback(settings.host) && !hasToken && settings.insecureNoAuth !== true) {
    throw new PowerContextError(
      'invalid_request',
      `refusing to listen on non-loopback address ${settings.host} without POWERCONTEXT_SERVER_AUTH_TOKEN (pass --insecure-no-auth to override)`,
    )
  }
}
