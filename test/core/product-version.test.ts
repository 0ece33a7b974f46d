import { readFileSync } from 'node:fs'

import { describe, expect, it } from 'vitest'

import { PRODUCT_VERSION } from '../../src/core/product-version.js'

describe('PRODUCT_VERSION', () => {
  it("is package.json's version (capabilities, `--version` and the MCP server identity report it)", () => {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string }
    expect(PRODUCT_VERSION).toBe(pkg.version)
    expect(PRODUCT_VERSION).toMatch(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/)
  })
})
