import type { Command } from 'commander'

import { startServer } from '../http/server-run.js'
import type { CliIo } from './cli-io.js'
import { EXIT_FAILURE, parseInteger, printError } from './cli-io.js'
import type { EmbeddingFlags } from './embedding-options.js'
import { addEmbeddingOptions, embeddingSettings } from './embedding-options.js'

const env = (name: string): string | undefined => {
  const v = process.env[`POWERCONTEXT_SERVER_${name}`]
  return v === undefined || v === '' ? undefined : v
}

interface ServerRunOptions extends EmbeddingFlags {
  host: string
  port: number
  dataDir?: string
  insecureNoAuth?: boolean
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
    .description('open the runtime on the data directory and serve HTTP until SIGINT/SIGTERM')
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
      '--insecure-no-auth',
      'allow a non-loopback address without POWERCONTEXT_SERVER_AUTH_TOKEN',
    )
  addEmbeddingOptions(run).action(async (o: ServerRunOptions, cmd: Command) => {
    const globals = cmd.optsWithGlobals<{ dataDir?: string; json?: boolean }>()
    const dataDir = o.dataDir ?? globals.dataDir ?? env('DATA_DIR')
    const authToken = env('AUTH_TOKEN')
    let running
    try {
      const embedding = embeddingSettings(o)
      running = await startServer({
        ...(embedding === undefined ? {} : { embedding }),
        host: o.host,
        port: o.port,
        ...(dataDir === undefined ? {} : { dataDir }),
        ...(authToken === undefined ? {} : { authToken }),
        insecureNoAuth: o.insecureNoAuth === true || env('INSECURE_NO_AUTH') === 'true',
        logLevel: env('LOG_LEVEL') ?? 'info',
      })
    } catch (err) {
      setExit(printError(io, err, globals.json === true))
      return
    }
    io.err(`powercontext server listening on ${running.url}`)
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        running.stop().then(resolve, (err: unknown) => {
          setExit(printError(io, err, false) || EXIT_FAILURE)
          resolve()
        })
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
    })
  })
}
