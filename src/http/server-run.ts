import { PowerContextError } from '../core/errors.js'
import { mcpPlugin } from '../mcp/mcp-plugin.js'
import { AUTO_FLUSH_DEBOUNCE_MS_DEFAULT } from '../runtime/flush-scheduler.js'
import { MemoryRuntime } from '../runtime/memory-runtime.js'
import { lowerBackgroundThreads } from '../runtime/thread-priority.js'
import { buildApp, type RuntimeSlot } from './app.js'
import { connectionLimits } from './connection-limits.js'
import { checkServerSettings, type ServerSettings } from './server-settings.js'

export { isLogFormat, LOG_FORMATS } from './log-format.js'
export { isLoopback, type ServerSettings } from './server-settings.js'

/** A running server: its address and a stop function (used by tests and signal handlers). */
export interface RunningServer {
  readonly url: string
  /**
   * Stops the server: no new requests, in-flight ones answered, then the runtime closed. Each
   * step is logged with its duration; `signal` (e.g. `SIGTERM`) names why it stops.
   */
  stop(signal?: string): Promise<void>
}

/**
 * Starts the server in this order: open the runtime first (a failure means no listener
 * at all), bind it, then listen. `stop` stops accepting work, marks the runtime unavailable, and
 * closes the runtime last.
 * @throws PowerContextError when the runtime cannot be opened or the port cannot be bound.
 */
export async function startServer(settings: ServerSettings): Promise<RunningServer> {
  checkServerSettings(settings)
  const limits = connectionLimits(settings.limits)
  const runtime = await MemoryRuntime.open({
    ...(settings.dataDir === undefined ? {} : { dataDir: settings.dataDir }),
    ...(settings.databaseUrl === undefined ? {} : { databaseUrl: settings.databaseUrl }),
    embedding: settings.embedding,
    extraction: settings.extraction,
    vectorAnn: settings.vectorAnn,
    lockWaitMs: settings.lockWaitMs,
    receiptRetention: settings.receiptRetention,
  })
  const slot: RuntimeSlot = { current: runtime }
  const app = buildApp({
    slot,
    logger: {
      level: settings.logLevel ?? 'info',
      format: settings.logFormat,
      stream: settings.logStream,
    },
    authToken: settings.authToken,
    hostPolicy: {
      // A bind address given by name names the server too.
      allowedHosts: [...(settings.allowedHosts ?? []), settings.host],
      allowedOrigins: settings.allowedOrigins ?? [],
    },
    metrics: { processMetrics: settings.processMetrics },
    limits,
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
  // Garbage-collection helpers and other background threads yield to the event loop.
  const lowered = lowerBackgroundThreads()
  if (lowered > 0) app.log.debug({ threads: lowered }, 'background threads at lower priority')
  runtime.startBackgroundReindex({
    ...(settings.reindexIntervalMs === undefined ? {} : { intervalMs: settings.reindexIntervalMs }),
    onError: (err) => app.log.warn({ err }, 'background reindex: embedding model unavailable'),
    onProgress: (phase, r) => {
      const counts = { scanned: r.scanned, embedded: r.embedded, remaining: r.remaining }
      if (phase === 'start') app.log.info('background reindex started')
      else if (phase === 'progress') app.log.info(counts, 'background reindex progress')
      else app.log.info(counts, 'background reindex finished')
    },
  })
  runtime.startIndexMaintenance({
    onDone: (r) =>
      app.log.info(
        {
          index: r.index,
          steps: r.steps,
          ms: Math.round(r.ms),
          longest_step_ms: Math.round(r.longestStepMs),
        },
        'index compacted',
      ),
    onError: (err) => app.log.warn({ err }, 'index compaction failed'),
    onDamage: (problems) =>
      app.log.error(
        { problems },
        'database damage found: writes are refused; run `powercontext admin verify`',
      ),
  })
  runtime.receipts.start({
    onError: (err) => app.log.warn({ err }, 'receipts: record or prune failed'),
  })
  const schedule = flushSchedule(settings, runtime.capabilities().extraction.provider !== null)
  if (schedule !== undefined) {
    runtime.startFlushScheduler({
      ...schedule,
      onError: (err, scopeId) => app.log.warn({ err, scope_id: scopeId }, 'scheduled flush failed'),
    })
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : settings.port
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host
  let stopping: Promise<void> | undefined
  return {
    url: `http://${host}:${port}`,
    stop: (signal) => {
      stopping ??= (async () => {
        const started = performance.now()
        const since = (t: number) => ({ duration_ms: Math.round(performance.now() - t) })
        if (signal !== undefined) app.log.info({ signal }, 'shutdown: signal received')
        slot.current = undefined
        app.log.info('shutdown: draining requests, no new connections')
        await app.close()
        app.log.info(since(started), 'shutdown: HTTP server closed')
        const runtimeStarted = performance.now()
        await runtime.close()
        app.log.info(since(runtimeStarted), 'shutdown: runtime closed')
        app.log.info(since(started), 'shutdown: complete')
      })()
      return stopping
    },
  }
}

/** Backstop interval when a provider is configured and none is set: 15 minutes. */
export const BACKSTOP_SECONDS_DEFAULT = 900

/**
 * When the server flushes by itself: after turn-end captures (debounced; on unless `autoFlush` is
 * false — with or without a provider, since task outcomes give working notes without one) and on
 * the backstop interval (`scheduleSeconds`; with a provider 15 minutes by default, 0 = off).
 */
export function flushSchedule(
  settings: ServerSettings,
  withProvider: boolean,
): { intervalMs?: number; debounceMs?: number } | undefined {
  const seconds = settings.scheduleSeconds ?? (withProvider ? BACKSTOP_SECONDS_DEFAULT : 0)
  const auto = settings.autoFlush !== false
  if (seconds <= 0 && !auto) return undefined
  return {
    ...(seconds > 0 ? { intervalMs: seconds * 1000 } : {}),
    ...(auto ? { debounceMs: settings.autoFlushDebounceMs ?? AUTO_FLUSH_DEBOUNCE_MS_DEFAULT } : {}),
  }
}
