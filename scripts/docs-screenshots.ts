/**
 * Regenerates the console screenshots in `docs/console/` (`npm run docs:screenshots`, after
 * `npm run build`): a real server on loopback with the demo data, real headless Chromium.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { createPowerContextClient } from '../src/client/index.js'
import { startServer } from '../src/http/server-run.js'
import { launchChromium } from '../test/support/browser.js'
import { DEMO_SCOPE } from '../test/support/console-seed.js'
import { seedDemo } from '../test/support/console-seed.js'
import { captureViews } from '../test/support/console-views.js'

const out = fileURLToPath(new URL('../docs/console/', import.meta.url))
mkdirSync(out, { recursive: true })
const dirs = [mkdtempSync(join(tmpdir(), 'pc-shots-')), mkdtempSync(join(tmpdir(), 'pc-shots-'))]
const server = await startServer({
  host: '127.0.0.1',
  port: 0,
  dataDir: dirs[0]!,
  logLevel: 'silent',
})
const authServer = await startServer({
  host: '127.0.0.1',
  port: 0,
  dataDir: dirs[1]!,
  logLevel: 'silent',
  authToken: 'docs-token',
})
const browser = await launchChromium()
try {
  const ids = await seedDemo(createPowerContextClient({ baseUrl: server.url }))
  const written = await captureViews(browser, {
    url: server.url,
    authUrl: authServer.url,
    scope: DEMO_SCOPE,
    ids,
    dir: out,
  })
  for (const file of written) console.log(`wrote docs/console/${file}`)
} finally {
  await browser.close()
  await server.stop()
  await authServer.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}
