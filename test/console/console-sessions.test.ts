/**
 * The console's receipts views in headless Chromium against a real server with the demo data:
 * the sessions of a scope, one session's timeline (each item opening its memory), and a memory's
 * "injected N times in M sessions" line.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createPowerContextClient } from '../../src/client/index.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { launchChromium } from '../support/browser.js'
import { DEMO_SCOPE, type DemoIds, seedDemo } from '../support/console-seed.js'

const ARTIFACTS = fileURLToPath(new URL('../../artifacts/console/', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'pc-console-sessions-'))
let server: RunningServer
let browser: Browser
let ids: DemoIds

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, logLevel: 'silent' })
  ids = await seedDemo(createPowerContextClient({ baseUrl: server.url }))
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const scopeHash = `#/scope/${encodeURIComponent(DEMO_SCOPE)}`

describe('receipts in the console', () => {
  it('lists sessions, shows a timeline whose items open their memory, counts injections', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    try {
      await page.goto(`${server.url}/${scopeHash}`)
      await page.click('a:has-text("Sessions")')
      await page.waitForSelector('table.sessions tbody tr')
      const rows = await page.locator('table.sessions tbody tr').allTextContents()
      expect(rows).toHaveLength(2)
      expect(rows.join('\n')).toContain('codex')
      await page.click(`a:has-text("${ids.session}")`)
      await page.waitForSelector('.timeline .event')
      const events = await page.locator('.timeline .event > p strong').allTextContents()
      expect(events).toEqual(['session_start', 'user_prompt_submit'])
      await page.waitForSelector('.injected-text:not(:empty)')
      const brief = await page.locator('.timeline .event').first().textContent()
      expect(brief).toContain('Never log request bodies.')
      await page.screenshot({ path: join(ARTIFACTS, 'session-timeline.png'), fullPage: true })

      // The constraint was in both sessions' briefs: its memory view says so.
      await page.click('.injected:has-text("Never log request bodies.") a')
      await page.waitForSelector('[data-testid="injection-usage"]')
      const usage = await page.textContent('[data-testid="injection-usage"]')
      expect(usage).toMatch(/^Injected 2 times in 2 sessions, last /)
      expect(await page.locator('section[aria-labelledby="usage-heading"] li a').count()).toBe(2)
      await page.screenshot({ path: join(ARTIFACTS, 'memory-usage.png'), fullPage: true })
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
