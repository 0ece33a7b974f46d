/**
 * Console benchmark: how soon the web console is interactive with 10,000 memories in the
 * scope, in real headless Chromium against the real server on loopback.
 *
 * - Starts the server (`startServer`) on a fresh data directory and fills scope `bench:big` with
 *   `--size` memories through the typed client (batches of 100), and `bench:small` with 100.
 * - For each view — the scopes list at `/` and the memories list of each scope — opens `--runs`
 *   fresh tabs (cold: new browser context, no cache) and records, inside the page, the time from
 *   navigation start until the view's first row is in the DOM and its controls can take input
 *   (`interactive`), plus the time until `load` for reference.
 * - Then searches the big scope from the page (`--runs` queries) and records click → hits shown.
 * - Reports medians and maxima, the big/small ratio measured in the same run (the machine is
 *   shared; ratios are steadier than absolute figures), and the gzipped size of the console bundle.
 *
 * Usage: `npm run build && npm run bench:console [-- --size 10000 --runs 7]`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

import type { Browser } from 'playwright-core'

import { createPowerContextClient } from '../src/client/index.js'
import { startServer } from '../src/http/server-run.js'
import { launchChromium } from '../test/support/browser.js'
import { consoleBundleBytes } from '../test/support/console-views.js'
import { f1, int, stats } from './bench-stats.js'

const { values } = parseArgs({
  options: { size: { type: 'string', default: '10000' }, runs: { type: 'string', default: '7' } },
})
const SIZE = Number(values.size)
const RUNS = Number(values.runs)
const BIG = 'bench:big'
const SMALL = 'bench:small'

const WORDS =
  'gateway retry idempotent request cache ttl deploy release node build test lint schema index query vector token budget scope memory source flush cursor merge restore preview revision conflict'.split(
    ' ',
  )
const textOf = (i: number) =>
  `Note ${i}: the ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} setting is ${i % 97} for ${WORDS[(i * 13) % WORDS.length]}.`

async function fill(baseUrl: string, scope: string, n: number): Promise<number> {
  const pc = createPowerContextClient({ baseUrl, timeoutMs: 60_000 })
  const started = performance.now()
  for (let at = 0; at < n; at += 100) {
    const entries = Array.from({ length: Math.min(100, n - at) }, (_, j) => ({
      kind: (at + j) % 5 === 0 ? 'decision' : 'fact',
      text: textOf(at + j),
    }))
    await pc.remember({ scope_id: scope, entries })
  }
  return performance.now() - started
}

/** Cold loads of one view: ms from navigation start until `selector` is present and usable. */
async function loads(browser: Browser, url: string, selector: string, runs: number) {
  const interactive: number[] = []
  const loaded: number[] = []
  for (let i = 0; i < runs; i += 1) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    // A string, not a function: tsx would wrap named functions in a helper the page lacks.
    await page.addInitScript({
      content: `(() => {
        const sel = ${JSON.stringify(selector)}
        new MutationObserver(() => {
          const el = document.querySelector(sel)
          if (window.__ready === undefined && el !== null && !el.disabled) window.__ready = performance.now()
        }).observe(document, { subtree: true, childList: true })
      })()`,
    })
    await page.goto(url, { waitUntil: 'load' })
    await page.waitForFunction(
      () => (window as unknown as { __ready?: number }).__ready !== undefined,
    )
    interactive.push(await page.evaluate(() => (window as unknown as { __ready: number }).__ready))
    loaded.push(
      await page.evaluate(() => {
        const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[]
        return nav?.loadEventEnd ?? Number.NaN
      }),
    )
    await context.close()
  }
  return { interactive: stats(interactive), max: Math.max(...interactive), loaded: stats(loaded) }
}

async function searches(browser: Browser, url: string, runs: number) {
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(url)
  await page.waitForSelector('ul.rows li')
  const samples: number[] = []
  for (let i = 0; i < runs; i += 1) {
    const query = `${WORDS[(i * 3) % WORDS.length]} ${WORDS[(i * 5 + 1) % WORDS.length]} setting`
    await page.fill('#search-query', query)
    const t = await page.evaluate(async () => {
      const before = document.querySelector('ol.hits')?.getAttribute('data-stamp')
      const started = performance.now()
      document
        .querySelector<HTMLButtonElement>('form[role="search"] button[type="submit"]')!
        .click()
      await new Promise<void>((resolve) => {
        const obs = new MutationObserver(() => {
          const hits = document.querySelector('ol.hits')
          if (hits !== null && hits.getAttribute('data-stamp') !== before) {
            obs.disconnect()
            resolve()
          }
        })
        obs.observe(document, { subtree: true, childList: true, attributes: true })
      })
      return performance.now() - started
    })
    samples.push(t)
  }
  await context.close()
  return stats(samples)
}

const dataDir = mkdtempSync(join(tmpdir(), 'pc-bench-console-'))
const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
const browser = await launchChromium()
try {
  const fillMs = await fill(server.url, BIG, SIZE)
  await fill(server.url, SMALL, 100)
  const scopeUrl = (s: string) => `${server.url}/#/scope/${encodeURIComponent(s)}`
  // One warm-up load so that the first measured run does not pay for starting the browser.
  await loads(browser, `${server.url}/`, 'table.grid tbody tr a', 1)
  const views = {
    scopes: await loads(browser, `${server.url}/`, 'table.grid tbody tr a', RUNS),
    memoriesBig: await loads(browser, scopeUrl(BIG), 'ul.rows li a', RUNS),
    memoriesSmall: await loads(browser, scopeUrl(SMALL), 'ul.rows li a', RUNS),
  }
  const search = await searches(browser, scopeUrl(BIG), RUNS)
  const bundle = consoleBundleBytes()
  const rows = [
    ['scopes list at / (2 scopes, 10,000 + 100 memories)', views.scopes],
    [`memories of a ${SIZE.toLocaleString('en')}-memory scope`, views.memoriesBig],
    ['memories of a 100-memory scope', views.memoriesSmall],
  ] as const
  console.log(`filled ${int(SIZE)} memories through the client in ${f1(fillMs / 1000)} s`)
  console.log(`view                                              interactive p50   max   load p50`)
  for (const [label, v] of rows)
    console.log(
      `${label.padEnd(50)}${f1(v.interactive.p50).padStart(12)} ms${f1(v.max).padStart(6)}${f1(v.loaded.p50).padStart(8)} ms`,
    )
  const ratio = views.memoriesBig.interactive.p50 / views.memoriesSmall.interactive.p50
  console.log(`big / small scope (same run): ${ratio.toFixed(2)}×`)
  console.log(
    `search in the big scope, click → hits shown: p50 ${f1(search.p50)} ms, p95 ${f1(search.p95)} ms`,
  )
  console.log(`bundle: ${int(bundle.raw)} bytes, ${int(bundle.gzip)} gzipped (budget 256,000)`)
  console.log(
    JSON.stringify({
      size: SIZE,
      runs: RUNS,
      views: Object.fromEntries(
        Object.entries(views).map(([k, v]) => [
          k,
          { p50: v.interactive.p50, max: v.max, load: v.loaded.p50 },
        ]),
      ),
      ratio,
      search,
      bundle,
    }),
  )
} finally {
  await browser.close()
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
