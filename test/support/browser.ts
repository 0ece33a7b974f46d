/**
 * Headless Chromium for the console tests and scripts: Debian's `chromium` package driven by
 * playwright-core (never a downloaded browser). `.ci/run` installs the package when it is missing.
 */
import { existsSync } from 'node:fs'

import { type Browser, chromium } from 'playwright-core'

export const CHROMIUM = process.env['POWERCONTEXT_TEST_CHROMIUM'] ?? '/usr/bin/chromium'

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/** Launches headless Chromium; fails (never skips) when the browser is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`,
    )
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS })
}
