import { afterAll, beforeAll } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import type { ServerSettings } from '../../src/http/server-settings.js'
import { tempDirs } from './temp-git.js'

/** What {@link useTempServer} gives a test file. */
export interface TempServer {
  /** A new temporary directory, removed after the file. */
  readonly tempDir: () => string
  /** The server on loopback (a data directory of its own); only inside tests. */
  readonly server: RunningServer
}

/**
 * Registers a real server on a temporary data directory for one test file (started in
 * `beforeAll`, stopped in `afterAll`) and the file's temporary directories `prefix…`; `settings`
 * override the server's.
 */
export function useTempServer(prefix: string, settings: Partial<ServerSettings> = {}): TempServer {
  const temp = tempDirs(prefix)
  let server: RunningServer | undefined
  beforeAll(async () => {
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: temp.make(),
      logLevel: 'silent',
      ...settings,
    })
  })
  afterAll(async () => {
    await server?.stop()
    temp.removeAll()
  })
  return {
    tempDir: temp.make,
    get server(): RunningServer {
      if (server === undefined) throw new Error('the server starts in beforeAll')
      return server
    },
  }
}
