import type { Command } from 'commander'

import type { ConnectionLimits } from '../http/connection-limits.js'
import type { RunningServer } from '../http/server-run.js'
import { resolveDataDir } from '../runtime/data-dir.js'
import type { CliIo } from './cli-io.js'
import {
  checkDatabaseUrl,
  CliUsageError,
  databaseOption,
  EXIT_FAILURE,
  parseInteger,
  printError,
} from './cli-io.js'
import type { EmbeddingFlags } from './embedding-options.js'
import { addEmbeddingOptions, embeddingSettings } from './embedding-options.js'
import type { GenerationFlags } from './generation-options.js'
import { addGenerationOptions, extractionOptions } from './generation-options.js'
import { applyServerSettingsFile } from './server-settings-file.js'

const env = (name: string): string | undefined => {
  const v = process.env[`POWERCONTEXT_SERVER_${name}`]
  return v === undefined || v === '' ? undefined : v
}

/** A whole-number setting from the environment (seconds, counts). */
function envWholeNumber(name: string): number | undefined {
  const v = env(name)
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v))
    throw new CliUsageError(`POWERCONTEXT_SERVER_${name} must be a whole number`)
  return Number(v)
}

/** The connection-limit settings: flag, environment variable (after the prefix), field. */
const LIMIT_SETTINGS = [
  [
    '--request-timeout-ms',
    'REQUEST_TIMEOUT_MS',
    'requestTimeoutMs',
    'the whole request (headers and body) must arrive within N ms, else 408 and close (default 30000)',
  ],
  [
    '--headers-timeout-ms',
    'HEADERS_TIMEOUT_MS',
    'headersTimeoutMs',
    'the request headers must arrive within N ms (default 10000)',
  ],
  [
    '--keep-alive-timeout-ms',
    'KEEP_ALIVE_TIMEOUT_MS',
    'keepAliveTimeoutMs',
    'close an idle keep-alive connection after N ms (default 5000)',
  ],
  [
    '--max-requests-per-socket',
    'MAX_REQUESTS_PER_SOCKET',
    'maxRequestsPerSocket',
    'close a connection after N requests, 0 = no limit (default 1000)',
  ],
  [
    '--max-connections',
    'MAX_CONNECTIONS',
    'maxConnections',
    'open connections at most; more are closed at once, 0 = no limit (default 200)',
  ],
  [
    '--max-connections-per-client',
    'MAX_CONNECTIONS_PER_CLIENT',
    'maxConnectionsPerClient',
    'open connections of one client address at most, 0 = no limit (default 64; behind a reverse proxy raise it or set 0)',
  ],
  [
    '--probe-reserve',
    'PROBE_RESERVE',
    'probeReserve',
    'the last N of --max-connections serve only /health/live and /health/ready (default 8)',
  ],
  [
    '--max-failed-auth-per-minute',
    'MAX_FAILED_AUTH_PER_MINUTE',
    'maxFailedAuthPerMinute',
    'failed bearer-token attempts per client address and minute before 429, 0 = no limit (default 10)',
  ],
] as const satisfies readonly (readonly [string, string, keyof ConnectionLimits, string])[]

/** The limits given by flag (first) or environment. */
function limitSettings(o: Partial<ConnectionLimits>): Partial<ConnectionLimits> {
  const out: Partial<Record<keyof ConnectionLimits, number>> = {}
  for (const [, name, field] of LIMIT_SETTINGS) {
    const value = o[field] ?? envWholeNumber(name)
    if (value !== undefined) out[field] = value
  }
  return out
}

interface ServerRunOptions extends EmbeddingFlags, GenerationFlags, Partial<ConnectionLimits> {
  scheduleSeconds?: number
  autoFlush?: boolean
  vectorGraphMin?: number
  lockWaitMs?: number
  receiptKeepDays?: number
  receiptKeepCount?: number
  host: string
  port: number
  dataDir?: string
  database?: string
  insecureNoAuth?: boolean
  logFormat?: string
  metricsProcess?: boolean
  allowedHosts?: string
  allowedOrigins?: string
}

/** Registers `server run`. It resolves only when the server has stopped. */
export function registerServerCommands(
  program: Command,
  io: CliIo,
  setExit: (code: number) => void,
): void {
  const server = program.command('server').description('the HTTP server')
  const run = server
    .command('run')
    .description(
      'open the runtime on the data directory (or --database) and serve HTTP until SIGINT/SIGTERM',
    )
    .option(
      '--host <host>',
      'bind address (env POWERCONTEXT_SERVER_HOST)',
      env('HOST') ?? '127.0.0.1',
    )
    .option(
      '--port <port>',
      'port (env POWERCONTEXT_SERVER_PORT)',
      parseInteger,
      Number(env('PORT') ?? 8000),
    )
    .option(
      '--data-dir <dir>',
      'data directory (env POWERCONTEXT_SERVER_DATA_DIR, POWERCONTEXT_HOME)',
    )
    .option(
      '--database <url>',
      'a database instead of the data directory, its backend chosen by the URL scheme: mysql://user:pass@host:port/db (env POWERCONTEXT_SERVER_DATABASE_URL; docs/storage.md)',
      databaseOption('--database'),
    )
    .option(
      '--insecure-no-auth',
      'allow a non-loopback address without POWERCONTEXT_SERVER_AUTH_TOKEN',
    )
  run.option(
    '--allowed-hosts <names>',
    'comma-separated host names served besides IP literals, localhost and the bind address, * = any (env POWERCONTEXT_SERVER_ALLOWED_HOSTS; docs/server.md)',
  )
  run.option(
    '--allowed-origins <origins>',
    "comma-separated browser origins (https://name[:port]) served besides the server's own, * = any (env POWERCONTEXT_SERVER_ALLOWED_ORIGINS)",
  )
  run.option(
    '--log-format <format>',
    'auto (pretty on a terminal, else JSON lines), json or pretty (env POWERCONTEXT_SERVER_LOG_FORMAT)',
  )
  run.option(
    '--metrics-process',
    'add Node.js process metrics (CPU, memory, event loop, GC) to GET /metrics (env POWERCONTEXT_SERVER_METRICS_PROCESS=true)',
  )
  run.option(
    '--schedule-seconds <n>',
    'backstop: flush scopes with pending sources every N seconds, 0 = off (default 900 with an extraction provider, else off; env POWERCONTEXT_SERVER_SCHEDULE_SECONDS)',
    parseInteger,
  )
  run.option(
    '--no-auto-flush',
    'do not flush a scope by itself after a turn ends (Stop, SessionEnd, PreCompact captures; env POWERCONTEXT_SERVER_AUTO_FLUSH=false)',
  )
  run.option(
    '--vector-graph-min <n>',
    'embedded SQLite: scopes with at least N vectors are searched through an in-memory HNSW graph, 0 = always exact (default 20000; env POWERCONTEXT_SERVER_VECTOR_GRAPH_MIN; docs/search.md)',
    parseInteger,
  )
  run.option(
    '--lock-wait-ms <n>',
    'embedded SQLite: how long a write waits for another process holding the write lock before it answers 503 storage_unavailable (busy) with Retry-After (default 8000; env POWERCONTEXT_SERVER_LOCK_WAIT_MS)',
    parseInteger,
  )
  run.option(
    '--receipt-keep-days <n>',
    'receipts (what each agent session was given) older than N days are pruned (default 30; env POWERCONTEXT_SERVER_RECEIPT_KEEP_DAYS; docs/agents.md)',
    parseInteger,
  )
  run.option(
    '--receipt-keep-count <n>',
    'at most N receipts are kept, the newest (default 100000; env POWERCONTEXT_SERVER_RECEIPT_KEEP_COUNT)',
    parseInteger,
  )
  for (const [flag, name, , what] of LIMIT_SETTINGS)
    run.option(`${flag} <n>`, `${what} (env POWERCONTEXT_SERVER_${name})`, parseInteger)
  addGenerationOptions(run)
  addEmbeddingOptions(run).action(async (o: ServerRunOptions, cmd: Command) => {
    const globals = cmd.optsWithGlobals<{ dataDir?: string; database?: string; json?: boolean }>()
    const dataDirFlag = o.dataDir ?? globals.dataDir
    const databaseFlag = o.database ?? globals.database
    const databaseUrl =
      databaseFlag ?? (dataDirFlag === undefined ? env('DATABASE_URL') : undefined)
    const dataDir = dataDirFlag ?? (databaseUrl === undefined ? env('DATA_DIR') : undefined)
    let running: RunningServer
    try {
      if (databaseUrl !== undefined && databaseFlag === undefined)
        checkDatabaseUrl(databaseUrl, 'POWERCONTEXT_SERVER_DATABASE_URL')
      // flags > environment > <data dir>/server-settings.json
      applyServerSettingsFile(dataDir ?? resolveDataDir())
      const authToken = env('AUTH_TOKEN')
      if (dataDirFlag !== undefined && databaseFlag !== undefined) {
        throw new CliUsageError('use either --data-dir or --database, not both')
      }
      const embedding = embeddingSettings(o)
      const schedule = o.scheduleSeconds ?? envWholeNumber('SCHEDULE_SECONDS')
      const graphMin = o.vectorGraphMin ?? envWholeNumber('VECTOR_GRAPH_MIN')
      const lockWaitMs = o.lockWaitMs ?? envWholeNumber('LOCK_WAIT_MS')
      const keepDays = o.receiptKeepDays ?? envWholeNumber('RECEIPT_KEEP_DAYS')
      const keepCount = o.receiptKeepCount ?? envWholeNumber('RECEIPT_KEEP_COUNT')
      const { isLogFormat, LOG_FORMATS, startServer } = await import('../http/server-run.js')
      const { listSetting } = await import('../http/host-guard.js')
      const logFormat = o.logFormat ?? env('LOG_FORMAT') ?? 'auto'
      if (!isLogFormat(logFormat))
        throw new CliUsageError(
          `--log-format (POWERCONTEXT_SERVER_LOG_FORMAT) must be one of ${LOG_FORMATS.join(', ')}`,
        )
      running = await startServer({
        extraction: extractionOptions(o),
        limits: limitSettings(o),
        ...(schedule === undefined ? {} : { scheduleSeconds: schedule }),
        autoFlush: o.autoFlush !== false && env('AUTO_FLUSH') !== 'false',
        ...(graphMin === undefined
          ? {}
          : { vectorAnn: graphMin === 0 ? (false as const) : { minVectors: graphMin } }),
        ...(embedding === undefined ? {} : { embedding }),
        ...(lockWaitMs === undefined ? {} : { lockWaitMs }),
        receiptRetention: {
          ...(keepDays === undefined ? {} : { keepDays }),
          ...(keepCount === undefined ? {} : { keepCount }),
        },
        host: o.host,
        port: o.port,
        ...(dataDir === undefined ? {} : { dataDir }),
        ...(databaseUrl === undefined ? {} : { databaseUrl }),
        ...(authToken === undefined ? {} : { authToken }),
        allowedHosts: listSetting(o.allowedHosts ?? env('ALLOWED_HOSTS')),
        allowedOrigins: listSetting(o.allowedOrigins ?? env('ALLOWED_ORIGINS')),
        insecureNoAuth: o.insecureNoAuth === true || env('INSECURE_NO_AUTH') === 'true',
        logLevel: env('LOG_LEVEL') ?? 'info',
        logFormat,
        processMetrics: o.metricsProcess === true || env('METRICS_PROCESS') === 'true',
      })
    } catch (err) {
      setExit(printError(io, listenProblem(err, o.host, o.port) ?? err, globals.json === true))
      return
    }
    io.err(`powercontext server listening on ${running.url}`)
    await new Promise<void>((resolve) => {
      const stop = (signal: NodeJS.Signals): void => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        running.stop(signal).then(resolve, (err: unknown) => {
          setExit(printError(io, err, false) || EXIT_FAILURE)
          resolve()
        })
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
    })
  })
}

/** A port that cannot be listened on is the caller's to fix: a usage error naming it (exit 2). */
function listenProblem(err: unknown, host: string, port: number): CliUsageError | undefined {
  // startServer wraps the listen error (after closing the runtime it opened) as its cause.
  const cause = (err as { cause?: NodeJS.ErrnoException } | undefined)?.cause
  const code = cause?.code
  if (code === 'EADDRINUSE')
    return new CliUsageError(
      `port ${port} on ${host} is in use (another server?); stop it or pick another with --port`,
    )
  if (code === 'EACCES')
    return new CliUsageError(`port ${port} on ${host} needs privileges; pick another with --port`)
  if (code === 'EADDRNOTAVAIL')
    return new CliUsageError(`${host} is not an address of this machine; check --host`)
  return undefined
}
