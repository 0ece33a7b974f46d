import { type DestinationStream, type LoggerOptions, pino } from 'pino'

/** The log format settings (`--log-format`, `POWERCONTEXT_SERVER_LOG_FORMAT`); `auto` is the default. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const
export type LogFormatSetting = (typeof LOG_FORMATS)[number]

/** How the server's logger is set up (AppOptions `logger`). */
export interface LogSettings {
  /** pino level (`info` by default in the server). */
  readonly level: string
  /** `json` lines, `pretty` (pino-pretty, for a person), or `auto` (the default): pretty on a TTY. */
  readonly format?: LogFormatSetting | undefined
  /** Where JSON lines go instead of stdout (tests capture them); forces `json`. */
  readonly stream?: DestinationStream | undefined
}

/**
 * The format the logs are written in: an explicit `json` or `pretty` wins; `auto` (or nothing)
 * is `pretty` only when stdout is a terminal, so CI, pipes and files get JSON lines.
 */
export function chooseLogFormat(
  setting: LogFormatSetting | undefined,
  stdoutIsTty: boolean | undefined,
): 'json' | 'pretty' {
  if (setting === 'json' || setting === 'pretty') return setting
  return stdoutIsTty === true ? 'pretty' : 'json'
}

/** True for `auto`, `json` and `pretty`. */
export const isLogFormat = (value: string): value is LogFormatSetting =>
  (LOG_FORMATS as readonly string[]).includes(value)

/**
 * The pino options of the app's logger. JSON lines are written to stdout synchronously, one
 * `write` per line as it is logged: pino's default destination hands every line to libuv's
 * thread pool instead, which costs the request that logged it more CPU than the write (≈ 0.15
 * ms per request line, docs/benchmarks.md), and may lose the last lines in a crash. Pretty
 * output goes through pino-pretty's transport (a worker thread, so formatting never runs on the
 * event loop); the fields stay the same.
 */
export function loggerOptions(
  settings: LogSettings,
  stdoutIsTty: boolean | undefined = process.stdout.isTTY,
): LoggerOptions & { stream?: DestinationStream } {
  if (settings.stream !== undefined) return { level: settings.level, stream: settings.stream }
  if (chooseLogFormat(settings.format, stdoutIsTty) === 'json')
    return { level: settings.level, stream: pino.destination({ dest: 1, sync: true }) }
  return {
    level: settings.level,
    transport: {
      target: 'pino-pretty',
      options: {
        colorize: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
      },
    },
  }
}
