/**
 * Opens each console view on seeded data and writes one screenshot of it (the e2e tests write them
 * as artifacts, `npm run docs:screenshots` into docs/console/).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

import type { Browser, Page } from 'playwright-core'

import type { DemoIds } from './console-seed.js'

export interface ViewTarget {
  readonly url: string
  /** A server that requires a token (for the token prompt). */
  readonly authUrl: string
  readonly scope: string
  readonly ids: DemoIds
  readonly dir: string
}

const scopePath = (scope: string) => `#/scope/${encodeURIComponent(scope)}`

/** Screenshots of every view; returns the file names written. */
export async function captureViews(browser: Browser, t: ViewTarget): Promise<string[]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  const files: string[] = []
  const shot = async (name: string, fullPage = true) => {
    await page.screenshot({ path: join(t.dir, `${name}.png`), fullPage })
    files.push(`${name}.png`)
  }
  const open = async (hash: string, ready: string) => {
    await page.goto(`${t.url}/${hash}`)
    await page.waitForSelector(ready)
  }
  const memory = (id: string) => `${scopePath(t.scope)}/memory/${encodeURIComponent(id)}`
  try {
    await open('#/', 'table.grid tbody tr')
    await shot('scopes')
    await open(scopePath(t.scope), 'ul.rows li')
    await shot('memories')
    await search(page, 'gateway retries')
    await shot('search')
    await open(memory(t.ids.edited), '[data-testid="version-3"]')
    await page.waitForSelector('.evidence .source')
    await page.waitForSelector('[data-testid="injection-usage"]')
    await shot('memory')
    await open(memory(t.ids.c), 'svg.graph .node')
    await page.locator('#merge-graph-heading').scrollIntoViewIfNeeded()
    await shot('merge-graph')
    await open(memory(t.ids.b), 'text=Preview restore')
    await page.click('text=Preview restore')
    await page.waitForSelector('[data-testid="restore-plan"]')
    await shot('restore-preview')
    await open(`${scopePath(t.scope)}/changes`, '.timeline li')
    await shot('changes')
    await open(`${scopePath(t.scope)}/sessions`, 'table.sessions tbody tr')
    await shot('sessions')
    await open(`${scopePath(t.scope)}/sessions/${encodeURIComponent(t.ids.session)}`, '.injected a')
    await page.waitForSelector('.injected-text:not(:empty)')
    await shot('session')
    await open(`${scopePath(t.scope)}/sources`, '[data-testid="cursor"]')
    await page.waitForSelector('.records .record')
    await shot('sources')
    await page.goto(`${t.authUrl}/#/`)
    await page.waitForSelector('#token')
    await shot('token-prompt', false)
  } finally {
    await context.close()
  }
  return files
}

/** Types a query into the search box and waits for the hits. */
export async function search(page: Page, query: string): Promise<void> {
  await page.fill('#search-query', query)
  await page.click('form[role="search"] button[type="submit"]')
  await page.waitForSelector('ol.hits li')
}

/** Bytes of the built console (`dist/console`: the page and its assets), raw and gzipped (-9). */
export function consoleBundleBytes(): { raw: number; gzip: number } {
  const dir = fileURLToPath(new URL('../../dist/console/', import.meta.url))
  const files = [
    join(dir, 'index.html'),
    ...readdirSync(join(dir, 'assets')).map((f) => join(dir, 'assets', f)),
  ]
  let raw = 0
  let gzip = 0
  for (const f of files) {
    const bytes = readFileSync(f)
    raw += bytes.length
    gzip += gzipSync(bytes, { level: 9 }).length
  }
  return { raw, gzip }
}
