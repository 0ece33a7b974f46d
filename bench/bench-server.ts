/**
 * The real server (`startServer`, what `powercontext server run` calls) in a child process for
 * the benchmarks, so that client and server do not share an event loop: on 127.0.0.1, port 0,
 * at a given log level (its stdout, the request log, goes to /dev/null). The parent asks for the
 * child's RSS and stops it over the IPC channel.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { startServer } from '../src/http/server-run.js'

type ToServer = 'rss' | 'stop'
type FromServer = { url: string } | { rssMb: number }

/** A server running in a child process. */
export interface ServerChild {
  readonly url: URL
  readonly pid: number
  /** The child's resident set size, MB. */
  rssMb(): Promise<number>
  stop(): Promise<void>
}

const SELF = fileURLToPath(import.meta.url)

async function serveChild(dataDir: string, logLevel: string): Promise<void> {
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel })
  process.on('message', (m: ToServer) => {
    if (m === 'rss') process.send!({ rssMb: process.memoryUsage().rss / 2 ** 20 })
    else
      void server.stop().then(() => {
        process.disconnect()
        process.exitCode = 0
      })
  })
  process.send!({ url: server.url })
}

/** Starts the server on `dataDir` in a child process; resolves once it listens. */
export async function startServerChild(dataDir: string, logLevel: string): Promise<ServerChild> {
  const child: ChildProcess = fork(SELF, ['--server', dataDir, logLevel], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const next = (): Promise<FromServer> =>
    new Promise((resolve, reject) => {
      child.once('message', (m) => resolve(m as FromServer))
      child.once('exit', (code) => reject(new Error(`server child exited with code ${code}`)))
    })
  const first = await next()
  if (!('url' in first)) throw new Error('server child did not report its address')
  return {
    url: new URL(first.url),
    pid: child.pid!,
    rssMb: async () => {
      const reply = next()
      child.send('rss' satisfies ToServer)
      const r = await reply
      if (!('rssMb' in r)) throw new Error('unexpected reply from the server child')
      return r.rssMb
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.send('stop' satisfies ToServer)
      }),
  }
}

if (process.argv[1] === SELF && process.argv[2] === '--server') {
  await serveChild(process.argv[3]!, process.argv[4] ?? 'info')
}
