/**
 * The agent-host tables: every adapter of `HOST_ADAPTERS` has its row of the hooks' table
 * (`integrations/shared/hosts.mjs`) and its plugin folder, and the hook side maps a host's own
 * event names onto our handlers and names them back in its output.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'

import { describe, expect, it } from 'vitest'

import { hookEntry } from '../../integrations/shared/hook-entry.mjs'
import type { HostProfile } from '../../integrations/shared/hosts.mjs'
import {
  HOST_PROFILES,
  hostEventName,
  hostProfile,
  ourEventName,
} from '../../integrations/shared/hosts.mjs'
import { PACKAGE_ROOT } from '../../src/cli/agents/agent-hosts.js'
import { AGENT_HOSTS, HOST_ADAPTERS, hostFiles } from '../../src/cli/agents/hosts/index.js'

describe('the host tables', () => {
  it('pair each adapter with its hook row and its plugin folder, and nothing else', () => {
    expect([...AGENT_HOSTS].sort()).toEqual(Object.keys(HOST_PROFILES).sort())
    for (const host of AGENT_HOSTS) {
      const adapter = HOST_ADAPTERS[host]
      expect(adapter.profile).toBe(hostProfile(host))
      expect(adapter.profile.host).toBe(host)
      for (const level of [undefined, '/p']) {
        const files = hostFiles(host, level, { HOME: '/h' })
        expect(files.host).toBe(host)
        expect(files.pluginDir).toBe(join(PACKAGE_ROOT, 'integrations', host))
      }
      const dir = join(PACKAGE_ROOT, 'integrations', host)
      for (const file of ['hooks/hooks.json', 'hooks/powercontext-hook.mjs'])
        expect(existsSync(join(dir, file)), `${host}: ${file}`).toBe(true)
      expect(readFileSync(join(dir, 'hooks/powercontext-hook.mjs'), 'utf8')).toContain(
        `hostProfile('${host}')`,
      )
    }
  })

  it('map a host’s own event names to ours and back; a host without names uses ours', () => {
    const codex = hostProfile('codex')
    expect(ourEventName(codex, 'UserPromptSubmit')).toBe('UserPromptSubmit')
    expect(hostEventName(codex, 'SessionStart')).toBe('SessionStart')
    const other: HostProfile = { ...codex, events: { UserPromptSubmit: 'BeforeAgent' } }
    expect(ourEventName(other, 'BeforeAgent')).toBe('UserPromptSubmit')
    expect(ourEventName(other, 'Stop')).toBe('Stop')
    expect(hostEventName(other, 'UserPromptSubmit')).toBe('BeforeAgent')
  })
})

describe('a hook run of a host naming events its own way', () => {
  it('runs our handler for its event and names its event in the output', async () => {
    const profile: HostProfile = {
      ...hostProfile('codex'),
      host: 'trial-host',
      events: { SessionStart: 'Begin' },
    }
    const home = mkdtempSync(join(tmpdir(), 'pc-host-registry-'))
    // A local server answering the brief's prepare with a ready envelope.
    const paths: string[] = []
    const server = createServer((req, res) => {
      paths.push(req.url ?? '')
      req.resume()
      req.on('end', () => {
        res.setHeader('content-type', 'application/json')
        res.end(
          JSON.stringify({
            schema: 'powercontext.prepared-context.v1',
            status: 'ready',
            content: 'the brief',
            content_bytes: 9,
          }),
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const stderr = new PassThrough()
    let out = ''
    let err = ''
    stdout.on('data', (c: Buffer) => (out += c.toString()))
    stderr.on('data', (c: Buffer) => (err += c.toString()))
    const exited = new Promise<number>((resolve) => {
      const io = {
        argv: ['node', 'powercontext-hook.mjs'],
        env: {
          PATH: process.env['PATH'],
          HOME: home,
          POWERCONTEXT_CLIENT_SERVER_URL: `http://127.0.0.1:${port}`,
          POWERCONTEXT_HOOKS_STATE_DIR: join(home, 'state'),
        },
        stdin,
        stdout,
        stderr,
        exit: (code: number) => resolve(code),
      }
      void hookEntry(profile, 'powercontext-hook.mjs', io as never)
    })
    stdin.end(JSON.stringify({ hook_event_name: 'Begin', cwd: home, session_id: 's1' }))
    expect(await exited).toBe(0)
    server.close()
    // A run whose steps all succeeded prints no diagnostic line.
    expect(err).toBe('')
    expect(paths).toEqual(['/v1/context/prepare'])
    expect(JSON.parse(out)).toEqual({
      hookSpecificOutput: { hookEventName: 'Begin', additionalContext: 'the brief' },
    })
  })
})
