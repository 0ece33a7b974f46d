import { PowerContextError } from '../core/errors.js'
import { mcpPlugin } from '../mcp/mcp-plugin.js'
import type { EmbeddingSettings } from '../runtime/embedder.js'
import type { ExtractionOptions } from '../runtime/extraction.js'
import type { RuntimeOptions } from '../runtime/memory-runtime.js'
import { MemoryRuntime } from '../runtime/memory-runtime.js'
import { type AppOptions, buildApp, type RuntimeSlot } from './app.js'

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
  /** Bearer token required on every non-health route (env `POWERCONTEXT_SERVER_AUTH_TOKEN`). */
  readonly authToken?: string
  /** Allow a non-loopback bind address without a token. */
  readonly insecureNoAuth?: boolean
  /** Surfaces mounted on the app; default `[mcpPlugin]` (MCP at `/mcp`). */
  readonly plugins?: AppOptions['plugins']
  /** OpenAI-compatible embedding model: vector and hybrid search, background reindex. */
  readonly embedding?: EmbeddingSettings | undefined
  /** First delay of the background reindex (default 30 s; it backs off while the model fails). */
  readonly reindexIntervalMs?: number | undefined
  /** Flush extraction: generation model, poison attempts (DESIGN §6). */
  readonly extraction?: ExtractionOptions | undefined
  /** Flush scopes with pending sources every N seconds, one scope at a time; off when absent. */
  readonly scheduleSeconds?: number | undefined
  /** Embedded SQLite: approximate vector search for large scopes (`false`: exact only). */
  readonly vectorAnn?: RuntimeOptions['vectorAnn']
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/

/** True for loopback bind addresses (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host.replace(/^\[|\]$/g, ''))
}

/** A running server: its address and a stop function (used by tests and signal handlers). */
export interface RunningServer {
  readonly url: string
  stop(): Promise<void>
}

/**
 * Starts the server in the remote RFC's order: open the runtime first (a failure means no listener
 * at all), bind it, then listen. `stop` stops accepting work, marks the runtime unavailable, and
 * closes the runtime last.
 * @throws PowerContextError when the runtime cannot be opened or the port cannot be bound.
 */
export async function startServer(settings: ServerSettings): Promise<RunningServer> {
  const hasToken = settings.authToken !== undefined && settings.authToken !== ''
  if (!isLoopback(settings.host) && !hasToken && settings.insecureNoAuth !== true) {
    throw new PowerContextError(
      'invalid_request',
      `refusing to listen on non-loopback address ${settings.host} without POWERCONTEXT_SERVER_AUTH_TOKEN (pass --insecure-no-auth to override)`,
    )
  }
  const runtime = await MemoryRuntime.open({
    ...(settings.dataDir === undefined ? {} : { dataDir: settings.dataDir }),
    ...(settings.databaseUrl === undefined ? {} : { databaseUrl: settings.databaseUrl }),
    embedding: settings.embedding,
    extraction: settings.extraction,
    vectorAnn: settings.vectorAnn,
  })
  const slot: RuntimeSlot = { current: runtime }
  const app = buildApp({
    slot,
    logger: { level: settings.logLevel ?? 'info' },
    authToken: settings.authToken,
    plugins: settings.plugins ?? [mcpPlugin],
  })
  try {
    await app.listen({ host: settings.host, port: settings.port })
  } catch (err) {
    await runtime.close()
    throw new PowerContextError(
      'internal_error',
      `cannot listen on ${settings.host}:${settings.port}: ${(err as Error).message}`,
      undefined,
      { cause: err },
    )
  }
  runtime.startBackgroundReindex({
    ...(settings.reindexIntervalMs === undefined ? {} : { intervalMs: settings.reindexIntervalMs }),
    onError: (err) => app.log.warn({ err }, 'background reindex: embedding model unavailable'),
  })
  if (settings.scheduleSeconds !== undefined && settings.scheduleSeconds > 0) {
    runtime.startFlushScheduler({
      intervalMs: settings.scheduleSeconds * 1000,
      onError: (err, scopeId) => app.log.warn({ err, scope_id: scopeId }, 'scheduled flush failed'),
    })
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : settings.port
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host
  let stopping: Promise<void> | undefined
  return {
    url: `http://${host}:${port}`,
    stop: () => {
      stopping ??= (async () => {
        slot.current = undefined
        await app.close()
        await runtime.close()
      })()
      return stopping
    },
  }
}
