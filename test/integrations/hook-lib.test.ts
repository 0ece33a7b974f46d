/**
 * The hook library's own rules: it imports only node: built-ins and its own files; settings refuse
 * what the transport policy refuses; the prepared-context envelope is checked strictly.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { describe, expect, it } from 'vitest'

import { preparedContent } from '../../integrations/shared/envelope.mjs'
import { readSettings } from '../../integrations/shared/settings.mjs'

const ROOT = fileURLToPath(new URL('../../integrations/', import.meta.url))
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.mjs') ? [join(dir, e.name)] : [],
  )

describe('hook library', () => {
  it('imports only node: built-ins and files inside integrations/', () => {
    const all = files(ROOT)
    expect(all.length).toBeGreaterThan(5)
    for (const file of all) {
      const text = readFileSync(file, 'utf8')
      for (const [, spec] of text.matchAll(/(?:^|\n)\s*import\s[^'"]*['"]([^'"]+)['"]/g)) {
        if (spec!.startsWith('node:')) continue
        const target = resolve(dirname(file), spec!)
        expect(relative(ROOT, target).startsWith('..'), `${file} imports ${spec}`).toBe(false)
      }
      // A dynamic import (what only some runs need) obeys the same rule.
      for (const [, spec] of text.matchAll(/await import\(['"]([^'"]+)['"]\)/g)) {
        if (spec!.startsWith('node:')) continue
        const target = resolve(dirname(file), spec!)
        expect(relative(ROOT, target).startsWith('..'), `${file} imports ${spec}`).toBe(false)
      }
    }
  })

  it('settings: plain http only to loopback, no credentials, /mcp dropped, switches', () => {
    const ok = (url: string) => readSettings({ POWERCONTEXT_CLIENT_SERVER_URL: url }, 'codex')
    expect(ok('http://127.0.0.1:8000/mcp').serverUrl.href).toBe('http://127.0.0.1:8000/')
    expect(ok('http://localhost:9/').serverUrl.host).toBe('localhost:9')
    expect(ok('http://[::1]:9').serverUrl.hostname).toBe('[::1]')
    expect(ok('https://memory.example.org/base/').serverUrl.pathname).toBe('/base')
    for (const bad of [
      'http://example.org',
      'http://10.0.0.1:8000',
      'ftp://127.0.0.1',
      'http://u:p@127.0.0.1',
      'http://127.0.0.1/?x=1',
      'not a url',
    ])
      expect(() => ok(bad), bad).toThrow(expect.objectContaining({ outcome: 'invalid_settings' }))
    const s = readSettings(
      {
        POWERCONTEXT_CLIENT_API_TOKEN: ' tok-123 ',
        POWERCONTEXT_HOOKS_CAPTURE: 'off',
        POWERCONTEXT_HOOKS_BUDGET_MS: '2500',
      },
      'claude-code',
    )
    expect(s).toMatchObject({
      authorization: 'Bearer tok-123',
      capture: false,
      recall: true,
      budgetMs: 2500,
      form: 'command',
    })
    expect(readSettings({ POWERCONTEXT_HOOKS_FORM: 'HTTP' }, 'claude-code').form).toBe('http')
    expect(
      readSettings({ CLAUDE_PLUGIN_OPTION_SERVER_URL: 'http://127.0.0.1:7' }, 'claude-code')
        .serverUrl.port,
    ).toBe('7')
    for (const env of [
      { POWERCONTEXT_HOOKS_CAPTURE: 'maybe' },
      { POWERCONTEXT_HOOKS_BUDGET_MS: '0' },
      { POWERCONTEXT_HOOKS_REQUEST_TIMEOUT_MS: '1.5' },
      { POWERCONTEXT_CLIENT_API_TOKEN: 'two words' },
      { POWERCONTEXT_HOOKS_FORM: 'both' },
    ])
      expect(() => readSettings(env, 'codex')).toThrow(
        expect.objectContaining({ outcome: 'invalid_settings' }),
      )
  })

  it('envelope: exactly the v1 fields, byte count, budget', () => {
    const ready = (content: string, extra: object = {}) => ({
      schema: 'powercontext.prepared-context.v1',
      status: 'ready',
      content,
      content_bytes: Buffer.byteLength(content),
      ...extra,
    })
    expect(preparedContent(ready('héllo'), 8000)).toBe('héllo')
    expect(
      preparedContent(
        {
          schema: 'powercontext.prepared-context.v1',
          status: 'empty',
          content: null,
          content_bytes: 0,
        },
        8000,
      ),
    ).toBeNull()
    for (const bad of [
      ready('x', { extra: 1 }),
      { ...ready('héllo'), content_bytes: 5 },
      { ...ready('x'), schema: 'powercontext.prepared-context.v2' },
      { ...ready('x'), status: 'partial' },
      ready('   '),
      ready('x'.repeat(9000)),
      {
        schema: 'powercontext.prepared-context.v1',
        status: 'empty',
        content: '',
        content_bytes: 0,
      },
      null,
      [ready('x')],
    ])
      expect(() => preparedContent(bad, 8000)).toThrow(
        expect.objectContaining({ outcome: 'invalid_response' }),
      )
  })
})
