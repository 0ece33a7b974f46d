/**
 * Redaction in the web console (docs/console.md): a version, a source and a flush decision record
 * are erased through the public API after a confirmation step, and then show as redacted — never their text. Real
 * headless Chromium against a real server with a token; screenshots go to artifacts/console/.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createPowerContextClient, type PowerContextClient } from '../../src/client/index.js'
import { launchChromium } from '../support/browser.js'
import { useTempServer } from '../support/temp-server.js'

const TOKEN = 'console-redact-token'
const SCOPE = 'project:acme/api'
/** Personal data an administrator erases (redaction is not only for credentials). */
const PHONE = '+1 415 555 0187'
const ARTIFACTS = fileURLToPath(new URL('../../artifacts/console/', import.meta.url))
const temp = useTempServer('pc-console-redact-', { authToken: TOKEN })
let browser: Browser
let pc: PowerContextClient

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  pc = createPowerContextClient({ baseUrl: temp.server.url, token: TOKEN })
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

/** A page that already holds the token (the console keeps it in the tab's storage). */
async function withPage(work: (page: Page) => Promise<void>) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  try {
    await page.goto(`${temp.server.url}/`)
    await page.fill('input[type="password"]', TOKEN)
    await page.keyboard.press('Enter')
    await page.waitForSelector('h1')
    await work(page)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}

describe('redaction in the web console', () => {
  it('erases one version after a confirmation and shows it as redacted', async () => {
    const { results } = await pc.remember({
      scope_id: SCOPE,
      entries: [{ kind: 'fact', text: `Dana Whitfield's mobile is ${PHONE}.` }],
    })
    const m = results[0]!.memory
    await pc.update({
      scope_id: SCOPE,
      memory_ref: m.memory_ref,
      text: "Dana Whitfield's mobile lives in the CRM (contacts/dana).",
    })
    const id = m.memory_ref.artifact_id
    await withPage(async (page) => {
      await page.goto(`${temp.server.url}/#/scope/${encodeURIComponent(SCOPE)}/memory/${id}`)
      await page.waitForSelector('[data-testid="version-1"]')
      expect(await page.textContent('[data-testid="version-1"]')).toContain(PHONE)
      await page.click('[data-testid="version-1"] >> text=Redact…')
      await page.fill('#redact-reason', 'personal phone number')
      await page.click('[data-testid="redact-panel"] button[type="submit"]')
      await page.waitForSelector('[data-testid="redact-confirm"]')
      // Nothing is erased before the confirmation.
      expect(
        (await pc.get({ scope_id: SCOPE, memory_ref: { artifact_id: id, revision: 1 } })).memory
          .text,
      ).toContain(PHONE)
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-redact-confirm.png'), fullPage: true })
      await page.click('text=Yes, erase it')
      await page.waitForSelector('[data-testid="version-1"] [data-testid="redacted-note"]')
      const v1 = await page.textContent('[data-testid="version-1"]')
      expect(v1).toContain('personal phone number')
      expect(await page.content()).not.toContain(PHONE)
      expect(await page.textContent('[data-testid="current-text"]')).toContain('CRM')
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-redacted-version.png'), fullPage: true })
    })
    const got = await pc.get({ scope_id: SCOPE, memory_ref: { artifact_id: id, revision: 1 } })
    expect(got.memory.redaction).toMatchObject({ reason: 'personal phone number' })
  })

  it('erases a source from the sources view; cancel erases nothing', async () => {
    await pc.captureContent({
      scope_id: SCOPE,
      source_id: 'contact-card',
      content: `Dana Whitfield, mobile ${PHONE}`,
      metadata: { file: 'contacts.vcf' },
    })
    await withPage(async (page) => {
      await page.goto(`${temp.server.url}/#/scope/${encodeURIComponent(SCOPE)}/sources`)
      const source = page.locator('li.source', { hasText: 'contact-card' })
      await source.waitFor()
      await source.locator('text=Redact…').click()
      await page.click('[data-testid="redact-panel"] >> text=Cancel')
      expect(await source.textContent()).toContain(PHONE)
      await source.locator('text=Redact…').click()
      await page.click('[data-testid="redact-panel"] button[type="submit"]')
      await page.click('text=Yes, erase it')
      await source.locator('[data-testid="redacted-note"]').waitFor()
      expect(await page.content()).not.toContain(PHONE)
      expect(await source.textContent()).toContain('redacted by an administrator')
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-redacted-source.png'), fullPage: true })
    })
  })

  it('erases a flush decision record from the sources view', async () => {
    const scope = 'project:acme/records'
    await pc.captureContent({
      scope_id: scope,
      source_id: 'notes',
      media_type: 'application/vnd.powercontext.memory+json',
      content: JSON.stringify({ entries: [{ kind: 'fact', text: `Dana's mobile is ${PHONE}` }] }),
    })
    const flushed = await pc.flush({ scope_id: scope })
    await withPage(async (page) => {
      await page.goto(`${temp.server.url}/#/scope/${encodeURIComponent(scope)}/sources`)
      const record = page.locator('li.record', { hasText: flushed.record_id! })
      await record.waitFor()
      expect(await record.textContent()).toContain(PHONE)
      await record.locator('text=Redact…').click()
      await page.click('[data-testid="redact-panel"] button[type="submit"]')
      await page.click('text=Yes, erase it')
      await record.locator('[data-testid="redacted-note"]').waitFor()
      expect(await record.textContent()).not.toContain(PHONE)
      expect(await record.textContent()).toContain('redacted by an administrator')
    })
    const got = await pc.flushRecords({ scope_id: scope, record_id: flushed.record_id! })
    expect(got.records[0]?.redaction).toMatchObject({ reason: 'redacted by an administrator' })
  })
})
