/**
 * `server run` on a port another process already listens on: a one-line usage error naming the
 * port (exit 2), not `internal_error`, and the runtime it opened is closed again.
 */
import { createServer } from 'node:net'

import { afterAll, describe, expect, it } from 'vitest'

import { runCli } from '../support/cli-run.js'
import { tempDirs } from '../support/temp-git.js'

const temp = tempDirs('pc-cli-port-')
afterAll(() => temp.removeAll())

describe('server run on a busy port', () => {
  it('says the port is in use and exits 2', async () => {
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    const port = (busy.address() as { port: number }).port
    try {
      const r = await runCli(
        'server',
        'run',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--data-dir',
        temp.make(),
      )
      expect(r.code).toBe(2)
      expect(r.out).toBe('')
      expect(r.err).toBe(
        `error: port ${port} on 127.0.0.1 is in use (another server?); stop it or pick another with --port\n`,
      )
    } finally {
      busy.close()
    }
  })
})
