/**
 * The web console end to end: real headless Chromium (Debian's chromium through playwright-core)
 * against real servers on loopback, seeded through the typed client. Another client writes
 * meanwhile where a test needs a conflict. Screenshots of every view go to artifacts/console/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createPowerContextClient, type PowerContextClient } from '../../src/client/index.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { launchChromium } from '../support/browser.js'
import { ChatServer } from '../support/chat-server.js'
import { DEMO_SCOPE, type DemoIds, seedDemo } from '../support/console-seed.js'
import { captureViews, consoleBundleBytes, search } from '../support/console-views.js'

const TOKEN = 'console-e2e-token'
const ARTIFACTS = fileURLToPath(new URL('../../artifacts/console/', import.meta.url))
const dirs: string[] = []
let server: RunningServer
let authServer: RunningServer
let browser: Browser
let pc: PowerContextClient
let ids: DemoIds

const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pc-console-'))
  dirs.push(d)
  return d
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir: tempDir(), logLevel: 'silent' })
  authServer = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: tempDir(),
    logLevel: 'silent',
    authToken: TOKEN,
  })
  pc = createPowerContextClient({ baseUrl: server.url })
  ids = await seedDemo(pc)
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await authServer?.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const scopeHash = (scope = DEMO_SCOPE) => `#/scope/${encodeURIComponent(scope)}`
const memoryHash = (id: string, scope = DEMO_SCOPE) =>
  `${scopeHash(scope)}/memory/${encodeURIComponent(id)}`

/** A fresh page (its own tab storage); closed by the caller through `using`-like try/finally. */
async function withPage<T>(work: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  try {
    const out = await work(page)
    expect(errors).toEqual([])
    return out
  } finally {
    await context.close()
  }
}

async function rememberIn(scope: string, ...texts: string[]) {
  const r = await pc.remember({
    scope_id: scope,
    entries: texts.map((text) => ({ kind: 'fact', text })),
  })
  return r.results.map((x) => x.memory)
}

describe('web console in headless Chromium', () => {
  it('is served at / from the built assets, with nothing from elsewhere', async () => {
    const res = await fetch(`${server.url}/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'")
    const html = await res.text()
    expect(html).not.toMatch(/https?:\/\//)
    await withPage(async (page) => {
      const foreign: string[] = []
      page.on('request', (r) => {
        if (!r.url().startsWith(server.url)) foreign.push(r.url())
      })
      await page.goto(`${server.url}/`)
      await page.waitForSelector('table.grid tbody tr')
      expect(await page.locator('table.grid tbody tr').allTextContents()).toEqual([
        expect.stringMatching(/^personal:dana1000/),
        expect.stringMatching(/^project:acme\/api7140/),
      ])
      expect(foreign).toEqual([])
    })
  })

  it('ships a bundle of at most 250 KB gzipped', () => {
    const gzipped = consoleBundleBytes().gzip
    expect(gzipped).toBeGreaterThan(10_000)
    expect(gzipped).toBeLessThanOrEqual(250 * 1024)
  })

  it('searches with the modes the server reports, showing score and matched_by', async () => {
    const caps = await pc.capabilities()
    await withPage(async (page) => {
      await page.goto(`${server.url}/${scopeHash()}`)
      await page.waitForSelector('ul.rows li')
      const modes = await page.locator('#search-mode option').allTextContents()
      expect(modes).toEqual(caps.search_modes)
      await search(page, 'gateway retries idempotent')
      const hit = page.locator('ol.hits li').first()
      expect(await hit.locator('.score').textContent()).toMatch(/^0\.\d{4}$/)
      expect(await hit.locator('.matched').textContent()).toBe('fts')
      expect(await hit.locator('.text').textContent()).toContain('idempotency keys')
      expect(await page.locator('text=mode used').textContent()).toContain('fts')
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-search.png') })
    })
  })

  it('opens a memory from the list and shows its history, diffs, evidence and transitions', async () => {
    await withPage(async (page) => {
      await page.goto(`${server.url}/${scopeHash()}`)
      await page.click(`a[href="${memoryHash(ids.edited)}"]`)
      await page.waitForSelector('[data-testid="version-3"]')
      expect(await page.textContent('[data-testid="current-text"]')).toBe(
        'The gateway retries idempotent POST requests up to 3 times with jitter, using idempotency keys.',
      )
      expect(await page.locator('.versions > li').count()).toBe(3)
      const v2 = page.locator('[data-testid="version-2"] .diff')
      expect(await v2.locator('ins').allTextContents()).toEqual([
        'idempotent ',
        ', with idempotency keys',
      ])
      expect(await page.locator('[data-testid="version-3"] .diff del').count()).toBeGreaterThan(0)
      await page.waitForSelector('.evidence .source')
      const evidence = await page.locator('.evidence').textContent()
      expect(evidence).toContain('Review of PR #412')
      expect(evidence).toContain('https://git.example/acme/api/pull/412')
      expect(evidence).toContain('standup-0403')
      const ops = await page
        .locator('section[aria-labelledby="state-transitions-heading"] tbody tr .badge')
        .allTextContents()
      expect(ops).toEqual(['add', 'update', 'update'])
      expect(await page.textContent('text=This memory took part in no merge.')).toBeTruthy()
    })
  })

  it('shows large evidence one bounded answer at a time, with a button for the rest', async () => {
    const scope = 'console:large-evidence'
    const sourceIds = ['big-a', 'big-b', 'big-c']
    for (const [i, id] of sourceIds.entries())
      await pc.captureContent({
        scope_id: scope,
        source_id: id,
        content: `Transcript ${i}: ${'the review went through every retry path. '.repeat(14_000)}`,
      })
    const r = await pc.remember({
      scope_id: scope,
      entries: [
        {
          kind: 'decision',
          text: 'Retries stay on the gateway.',
          sources: sourceIds.map((id) => ({ name: 'content' as const, source_id: id })),
        },
      ],
    })
    const memoryId = r.results[0]!.memory.memory_ref.artifact_id
    await withPage(async (page) => {
      await page.goto(`${server.url}/${memoryHash(memoryId, scope)}`)
      await page.waitForSelector('.evidence .source')
      // Each source is ≈ 600 KB: one answer of at most 1 MiB holds one.
      expect(await page.locator('.evidence .source').count()).toBe(1)
      await page.click('text=Show 2 more sources')
      await page.waitForSelector('.evidence .source >> nth=1')
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-large-evidence.png'), fullPage: true })
      await page.click('text=Show 1 more source')
      await page.waitForSelector('.evidence .source >> nth=2')
      const shown = await page.locator('.evidence .source code').allTextContents()
      expect(shown).toEqual(sourceIds)
      expect(await page.locator('text=more source').count()).toBe(0)
    })
  })

  it('shows a long history one bounded answer at a time, with a button for the newer versions', async () => {
    const scope = 'console:long-history'
    const textOf = (n: number) =>
      `Version ${n}: ${'the gateway retries idempotent calls. '.repeat(210)}end`
    const [m] = await rememberIn(scope, textOf(1))
    const memoryId = m!.memory_ref.artifact_id
    // 140 versions of ≈ 8 KB: more than one answer of at most 1 MiB.
    for (let n = 2; n <= 140; n += 1)
      await pc.update({
        scope_id: scope,
        memory_ref: { artifact_id: memoryId, revision: n - 1 },
        text: textOf(n),
      })
    await withPage(async (page) => {
      await page.goto(`${server.url}/${memoryHash(memoryId, scope)}`)
      await page.waitForSelector('[data-testid="version-1"]')
      expect(await page.textContent('[data-testid="current-text"]')).toContain('Version 140:')
      expect(await page.locator('[data-testid="version-140"]').count()).toBe(0)
      const first = await page.locator('.versions > li').count()
      expect(first).toBeLessThan(140)
      await page.click(`text=Show the versions after revision ${first}`)
      await page.waitForSelector('[data-testid="version-140"]')
      expect(await page.locator('.versions > li').count()).toBe(140)
      expect(await page.locator('text=Show the versions after').count()).toBe(0)
    })
  })

  it('edits at the shown revision; a conflict from another client shows the newer version and re-applies on it', async () => {
    const scope = 'console:edit'
    const [m] = await rememberIn(scope, 'Deploys happen on Tuesdays.')
    const id = m!.memory_ref.artifact_id
    await withPage(async (page) => {
      await page.goto(`${server.url}/${memoryHash(id, scope)}`)
      await page.waitForSelector('#edit-text')
      await page.fill('#edit-text', 'Deploys happen on Tuesdays and Thursdays.')
      // Another client writes revision 2 meanwhile.
      await pc.update({
        scope_id: scope,
        memory_ref: m!.memory_ref,
        text: 'Deploys happen on Wednesdays.',
      })
      await page.click('text=Save new version')
      const conflict = page.locator('[data-testid="conflict"]')
      await conflict.waitFor()
      expect(await conflict.textContent()).toContain('Deploys happen on Wednesdays.')
      expect(await conflict.textContent()).toContain('it is now at revision 2')
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-edit-conflict.png'), fullPage: true })
      await page.click('text=Apply my edit on revision 2')
      await page.waitForSelector('[data-testid="version-3"]')
      expect(await page.textContent('[data-testid="current-text"]')).toBe(
        'Deploys happen on Tuesdays and Thursdays.',
      )
    })
    const now = await pc.get({ scope_id: scope, memory_id: id })
    expect(now.current_revision).toBe(3)
    expect(now.memory.text).toBe('Deploys happen on Tuesdays and Thursdays.')
  })

  it('remembers, forgets and restores a forgotten memory', async () => {
    const scope = 'console:life'
    await rememberIn(scope, 'Seed so that the scope exists.')
    await withPage(async (page) => {
      await page.goto(`${server.url}/${scopeHash(scope)}`)
      await page.waitForSelector('#remember-text')
      await page.fill('#remember-kind', 'constraint')
      await page.fill('#remember-text', 'Never force-push main.')
      await page.click('form[aria-labelledby="remember-heading"] button[type="submit"]')
      await page.waitForSelector('[data-testid="current-text"]')
      expect(await page.textContent('[data-testid="current-text"]')).toBe('Never force-push main.')
      const id = decodeURIComponent(page.url().split('/memory/')[1]!)
      await page.fill('#forget-reason', 'policy moved to the wiki')
      await page.click('form[aria-labelledby="forget-heading"] button[type="submit"]')
      await page.waitForSelector('h1 .badge.state-forgotten')
      const forgotten = await pc.get({ scope_id: scope, memory_id: id })
      expect([forgotten.state, forgotten.memory.kind]).toEqual(['forgotten', 'constraint'])
      await page.click('text=Preview restore')
      await page.waitForSelector('[data-testid="restore-plan"]')
      await page.click('text=Restore now')
      await page.waitForSelector('h1 .badge.state-active')
      expect((await pc.get({ scope_id: scope, memory_id: id })).state).toBe('active')
    })
  })

  it('merges two selected memories with a composed text and kind', async () => {
    await withPage(async (page) => {
      await page.goto(`${server.url}/${scopeHash()}`)
      await page.waitForSelector('ul.rows li')
      for (const m of ids.free)
        await page.check(`input[aria-label="Select ${m.memory_ref.artifact_id} for a merge"]`)
      await page.waitForSelector('#merge-text')
      expect(await page.inputValue('#merge-text')).toBe(
        'Releases are tagged vX.Y.Z. Release notes live in CHANGELOG.md.',
      )
      await page.fill('#merge-text', 'Releases are tagged vX.Y.Z; notes live in CHANGELOG.md.')
      await page.fill('#merge-kind', 'decision')
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-merge.png'), fullPage: true })
      await page.click('form[aria-labelledby="merge-heading"] button[type="submit"]')
      await page.waitForSelector('svg.graph .node')
      expect(await page.textContent('[data-testid="current-text"]')).toBe(
        'Releases are tagged vX.Y.Z; notes live in CHANGELOG.md.',
      )
      expect(await page.locator('svg.graph .node').count()).toBe(3)
      expect(await page.locator('svg.graph .node.state-merged').count()).toBe(2)
    })
    for (const m of ids.free) {
      const r = await pc.get({ scope_id: DEMO_SCOPE, memory_id: m.memory_ref.artifact_id })
      expect(r.state).toBe('merged')
      expect(r.memory.kind).toBe('fact')
    }
  })

  it('restores through the preview: the plan, then execute with its token', async () => {
    await withPage(async (page) => {
      await page.goto(`${server.url}/${memoryHash(ids.b)}`)
      await page.click('text=Preview restore')
      const plan = page.locator('[data-testid="restore-plan"]')
      await plan.waitFor()
      const text = (await plan.textContent()) ?? ''
      expect(text).toMatch(
        /Comes back to search.*at revision 1.*at revision 1.*at revision 1.*Retired/,
      )
      expect(await plan.locator('li').count()).toBe(3 + 2 + 1)
      await page.click('text=Restore now')
      await page.waitForSelector('h1 .badge.state-active')
      await page.waitForSelector('svg.graph .node.state-retired')
      expect(await page.locator('svg.graph .node.state-retired').count()).toBe(2)
      expect(await page.locator('svg.graph .edge-undone').count()).toBe(4)
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-restored.png'), fullPage: true })
    })
    const states = await Promise.all(
      [ids.a, ids.b, ids.d, ids.c, ids.e].map(
        async (id) => (await pc.get({ scope_id: DEMO_SCOPE, memory_id: id })).state,
      ),
    )
    expect(states).toEqual(['active', 'active', 'active', 'retired', 'retired'])
  })

  it('explains a stale preview, refreshes it, and restores on the fresh one', async () => {
    const scope = 'console:stale'
    const [x, y] = await rememberIn(scope, 'Cache TTL is 60 s.', 'Cache TTL is one minute.')
    const merged = await pc.merge({
      scope_id: scope,
      inputs: [x!.memory_ref, y!.memory_ref],
      kind: 'fact',
      text: 'Cache TTL is 60 s.',
    })
    await withPage(async (page) => {
      await page.goto(`${server.url}/${memoryHash(x!.memory_ref.artifact_id, scope)}`)
      await page.click('text=Preview restore')
      await page.waitForSelector('[data-testid="restore-plan"]')
      // Another client moves the merge result after the preview.
      await pc.update({
        scope_id: scope,
        memory_ref: merged.memory.memory_ref,
        text: 'Cache TTL is 90 s.',
      })
      await page.click('text=Restore now')
      const stale = page.locator('[data-testid="preview-stale"]')
      await stale.waitFor()
      expect(await stale.textContent()).toContain('nothing was restored')
      expect(await stale.textContent()).toMatch(/request id [0-9a-f]{16}/)
      expect(await page.locator('[data-testid="restore-plan"]').textContent()).toContain(
        'at revision 2',
      )
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-preview-stale.png'), fullPage: true })
      expect((await pc.get({ scope_id: scope, memory_id: x!.memory_ref.artifact_id })).state).toBe(
        'merged',
      )
      await page.click('text=Restore now')
      await page.waitForSelector('h1 .badge.state-active')
    })
    expect(
      (await pc.get({ scope_id: scope, memory_id: merged.memory.memory_ref.artifact_id })).state,
    ).toBe('retired')
  })

  it('asks for the token on a server with auth, keeps it for the tab only', async () => {
    const authed = createPowerContextClient({ baseUrl: authServer.url, token: TOKEN })
    await authed.remember({
      scope_id: 'auth:scope',
      entries: [{ kind: 'fact', text: 'Secret-free.' }],
    })
    await withPage(async (page) => {
      await page.goto(`${authServer.url}/`)
      await page.waitForSelector('#token')
      await page.fill('#token', 'wrong-token')
      await page.click('text=Connect')
      await page.waitForSelector('text=That token was refused')
      expect(await page.textContent('.error')).toContain('unauthorized')
      expect(await page.textContent('[data-testid="request-id"]')).toMatch(/^[0-9a-f]{16}$/)
      await page.fill('#token', TOKEN)
      await page.click('text=Connect')
      await page.waitForSelector('table.grid tbody tr')
      expect(await page.textContent('table.grid tbody')).toContain('auth:scope')
      expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([])
      expect(await page.evaluate(() => document.cookie)).toBe('')
      await page.reload()
      await page.waitForSelector('table.grid tbody tr')
    })
    // A new tab (fresh session storage) is asked again.
    await withPage(async (page) => {
      await page.goto(`${authServer.url}/`)
      await page.waitForSelector('#token')
    })
  })

  it("shows a server error as the envelope's message and request id", async () => {
    const missing = 'mem_01ZZZZZZZZZZZZZZZZZZZZZZZZ'
    await withPage(async (page) => {
      const answered = page.waitForResponse((r) => r.url().endsWith('/v1/memory/history'))
      await page.goto(`${server.url}/${memoryHash(missing)}`)
      const response = await answered
      const body = (await response.json()) as { error: { message: string; request_id: string } }
      await page.waitForSelector('.error')
      expect(response.status()).toBe(404)
      expect(await page.textContent('.error .code')).toBe('memory_not_found')
      expect(await page.textContent('.error')).toContain(body.error.message)
      expect(await page.textContent('[data-testid="request-id"]')).toBe(body.error.request_id)
      expect(response.headers()['x-powercontext-request-id']).toBe(body.error.request_id)
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-server-error.png') })
    })
  })

  it('flushes from the sources view and shows the journal move', async () => {
    await withPage(async (page) => {
      await page.goto(`${server.url}/${scopeHash()}/sources`)
      await page.waitForSelector('[data-testid="cursor"]')
      expect(await page.textContent('[data-testid="cursor"]')).toBe('3')
      await page.click('text=Flush now')
      await page.waitForSelector('[data-testid="flush-result"]')
      expect(await page.textContent('[data-testid="flush-result"]')).toContain('cursor 3 → 4 of 4')
      await page.waitForFunction(
        () => document.querySelector('[data-testid="cursor"]')?.textContent === '4',
      )
    })
  })

  it('with a model: shows a failed flush, then the skipped source and its reason', async () => {
    const chat = new ChatServer()
    chat.responder = () => ({ content: '{"candidates": "nope"}' })
    const modeled = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: tempDir(),
      logLevel: 'silent',
      extraction: { generation: { url: await chat.listen(), model: 'scripted', maxRequests: 1 } },
    })
    const scope = 'console:poison'
    try {
      const pm = createPowerContextClient({ baseUrl: modeled.url })
      await pm.captureContent({ scope_id: scope, source_id: 'garbled', content: 'confusing notes' })
      await withPage(async (page) => {
        await page.goto(`${modeled.url}/${scopeHash(scope)}/sources`)
        await page.waitForSelector('[data-testid="cursor"]')
        for (let attempt = 1; attempt <= 2; attempt += 1) {
          await page.click('text=Flush now')
          await page.waitForSelector('.error .code')
          expect(await page.textContent('.error .code')).toBe('invalid_inference_output')
          expect(await page.textContent('[data-testid="request-id"]')).toMatch(/^[0-9a-f]{16}$/)
          expect(await page.textContent('[data-testid="cursor"]')).toBe('0')
        }
        await page.click('text=Flush now')
        await page.waitForSelector('[data-testid="flush-result"]')
        expect(await page.textContent('[data-testid="flush-result"]')).toContain('1 skipped')
        await page.waitForSelector('.sources .source-skipped')
        expect(await page.textContent('.sources .skip-reason')).toMatch(
          /^Skipped after 3 attempts: invalid_inference_output /,
        )
        await page.waitForSelector('.records .record')
        await page.screenshot({ path: join(ARTIFACTS, 'e2e-skipped-source.png'), fullPage: true })
        await page.click('text=Changes')
        await page.waitForSelector('.timeline li')
        expect(await page.textContent('.timeline')).toContain('flush skipped a source')
        expect(await page.textContent('.timeline')).toContain('garbled')
      })
    } finally {
      await modeled.stop()
      await chat.close()
    }
  })

  it('moves through lists and the merge graph with the keyboard, with a visible focus', async () => {
    const scope = 'console:keys'
    const [p, q, r] = await rememberIn(scope, 'Key one.', 'Key two.', 'Key three.')
    const top = await pc.merge({
      scope_id: scope,
      inputs: [p!.memory_ref, q!.memory_ref],
      kind: 'fact',
      text: 'Keys one and two.',
    })
    await withPage(async (page) => {
      await page.goto(`${server.url}/${scopeHash(scope)}`)
      await page.waitForSelector('ul.rows li')
      await page.focus('ul.rows [data-nav]')
      await page.keyboard.press('ArrowDown')
      const focusedHref = await page.evaluate(() => document.activeElement?.getAttribute('href'))
      expect(focusedHref).toBe(
        `${scopeHash(scope)}/memory/${encodeURIComponent((await pc.list({ scope_id: scope })).memories[1]!.memory_ref.artifact_id)}`,
      )
      const outline = await page.evaluate(
        () => getComputedStyle(document.activeElement!).outlineStyle,
      )
      expect(outline).not.toBe('none')
      await page.goto(`${server.url}/${memoryHash(p!.memory_ref.artifact_id, scope)}`)
      await page.waitForSelector('svg.graph .node')
      await page.focus(`[data-node="${p!.memory_ref.artifact_id}"]`)
      await page.keyboard.press('ArrowDown')
      expect(
        await page.evaluate(() => (document.activeElement as HTMLElement).dataset['node']),
      ).toBe(top.memory.memory_ref.artifact_id)
      await page.keyboard.press('ArrowUp')
      await page.keyboard.press('ArrowRight')
      const sibling = await page.evaluate(
        () => (document.activeElement as HTMLElement).dataset['node'],
      )
      expect([p!.memory_ref.artifact_id, q!.memory_ref.artifact_id]).toContain(sibling)
      await page.keyboard.press('Enter')
      await page.waitForFunction((id) => window.location.hash.endsWith(id), sibling!)
    })
    expect(r).toBeDefined()
  })

  it('labels every control in every view', async () => {
    await withPage(async (page) => {
      const unlabelled = () =>
        page.evaluate(() =>
          [...document.querySelectorAll('input, select, textarea, button')]
            .filter((el) => {
              const c = el as HTMLInputElement
              const name =
                (c.labels?.length ?? 0) > 0 ||
                c.getAttribute('aria-label') !== null ||
                (el.tagName === 'BUTTON' && (el.textContent ?? '').trim() !== '')
              return !name
            })
            .map((el) => el.outerHTML.slice(0, 80)),
        )
      for (const [hash, ready] of [
        [scopeHash(), 'ul.rows li'],
        [memoryHash(ids.edited), '#edit-text'],
        [memoryHash(ids.forgotten), 'text=Preview restore'],
        [`${scopeHash()}/sources`, '[data-testid="cursor"]'],
      ] as const) {
        await page.goto(`${server.url}/${hash}`)
        await page.waitForSelector(ready)
        expect(await unlabelled(), hash).toEqual([])
      }
    })
  })

  it('writes a screenshot of each view', async () => {
    const fresh = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: tempDir(),
      logLevel: 'silent',
    })
    try {
      const seeded = await seedDemo(createPowerContextClient({ baseUrl: fresh.url }))
      const files = await captureViews(browser, {
        url: fresh.url,
        authUrl: authServer.url,
        scope: DEMO_SCOPE,
        ids: seeded,
        dir: ARTIFACTS,
      })
      expect(files).toHaveLength(11)
    } finally {
      await fresh.stop()
    }
  })
})
