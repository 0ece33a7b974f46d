/**
 * CLI `capture`, `flush` (`--until`) and `flush-records`, on a data directory and through
 * `--server-url` (the same commands, written once against the contract's operations).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { MEMORY_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const dirs: string[] = []
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-cli-flush-'))
  dirs.push(dir)
  return dir
}
const dataDir = tempDir()
let server: RunningServer
beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir: tempDir(), logLevel: 'silent' })
})
afterAll(async () => {
  await server?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(['node', 'powercontext', ...args], {
    out: (t) => (out += t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => (err += t.endsWith('\n') ? t : `${t}\n`),
  })
  return { code, out, err }
}

const entries = (text: string) => JSON.stringify({ entries: [{ kind: 'fact', text }] })

describe.each([
  ['a data directory', () => ['--data-dir', dataDir]],
  ['a server', () => ['--server-url', server.url]],
])('capture and flush on %s', (_name, where) => {
  const scope = `cli:flush:${_name.length}`

  it('captures, flushes until a position, and searches the result', async () => {
    const first = await cli(...where(), '--json', 'capture', '--scope', scope, 'just', 'chatter')
    expect(first.code).toBe(0)
    expect(JSON.parse(first.out)).toMatchObject({ status: 'accepted', position: 1 })
    const second = await cli(
      ...where(),
      'capture',
      '--scope',
      scope,
      '--source-id',
      'adr-1',
      '--media-type',
      MEMORY_MEDIA_TYPE,
      '--metadata',
      '{"author":"kim"}',
      '--occurred-at',
      '2025-04-01T00:00:00Z',
      entries('The monorepo uses Turborepo.'),
    )
    expect(second.out.trim()).toBe('accepted: adr-1 at position 2')
    const conflict = await cli(...where(), 'capture', '--scope', scope, '--source-id', 'adr-1', 'x')
    expect(conflict.code).toBe(1)
    expect(conflict.err).toMatch(/source_conflict/)
    const flushed = await cli(
      ...where(),
      '--json',
      'flush',
      '--scope',
      scope,
      '--limit',
      '1',
      '--until',
      '2',
    )
    expect(flushed.code).toBe(0)
    const body = JSON.parse(flushed.out) as { cursor: number; flushes: { cursor: number }[] }
    expect(body.cursor).toBe(2)
    expect(body.flushes.map((f) => f.cursor)).toEqual([1, 2])
    const search = await cli(...where(), '--json', 'search', '--scope', scope, 'Turborepo')
    expect(JSON.parse(search.out).hits).toHaveLength(1)
    const idle = await cli(...where(), 'flush', '--scope', scope)
    expect(idle.out.trim()).toBe('idle: cursor 2, high watermark 2')
    // Beyond the high watermark: everything captured is processed, which is a success.
    const beyond = await cli(...where(), 'flush', '--scope', scope, '--until', '9')
    expect(beyond).toMatchObject({ code: 0, err: '' })
    expect(beyond.out).toBe(
      'idle: cursor 2, high watermark 2\ncursor 2 (high watermark 2): every captured source is processed; position 9 is not captured yet\n',
    )
    const beyondJson = await cli(...where(), '--json', 'flush', '--scope', scope, '--until', '9')
    expect(JSON.parse(beyondJson.out)).toMatchObject({
      cursor: 2,
      high_watermark: 2,
      until: 9,
      until_reached: false,
    })
    const records = await cli(...where(), 'flush-records', '--scope', scope)
    expect(records.out.trim().split('\n')).toHaveLength(2)
    expect(records.out).toMatch(/^flr_\S+ \(0\.\.1\] structured/)
  })
})

describe('flush text output', () => {
  it('names every refused entry with its reason, and each no-op source', async () => {
    const scope = 'cli:flush:refusals'
    const at = ['--data-dir', dataDir]
    const content = JSON.stringify({
      entries: [
        { kind: 'fact', text: 'Builds run on Node 20.' },
        { kind: 'fact', text: '' },
        { kind: 'fact', text: 'x', colour: 'blue' },
      ],
    })
    const structured = (id: string, json: string) =>
      cli(
        ...at,
        'capture',
        '--scope',
        scope,
        '--source-id',
        id,
        '--media-type',
        MEMORY_MEDIA_TYPE,
        json,
      )
    await structured('mixed', content)
    await structured('bad', JSON.stringify({ entries: ['not an object'] }))
    await cli(...at, 'capture', '--scope', scope, '--source-id', 'chat', 'just chatter')
    const r = await cli(...at, 'flush', '--scope', scope, '--until', '3')
    expect(r).toMatchObject({ code: 0, err: '' })
    const lines = r.out.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^processed positions 1\.\.3 \(3 sources, 1 changes, structured\) record flr_/,
    )
    expect(lines[1]).toMatch(/^ {2}#1 \S+ add mem_\w+ ∅ → 1\/active \(op_\w+\)$/)
    expect(lines.slice(2)).toEqual([
      '  source mixed@1: 1 candidates, 2 refused',
      expect.stringMatching(/^ {4}refused entry 1: .+/),
      expect.stringMatching(/^ {4}refused entry 2: .*colour/),
      '  source bad@2: refused',
      expect.stringMatching(/^ {4}refused entry 0: entry must be an object$/),
      '  source chat@3: no_op (evidence only: a content source (text/plain) needs a generation model)',
      'cursor 3 (high watermark 3)',
    ])
  })
})

describe('capture from stdin', () => {
  it('reads the content from stdin when no text is given', async () => {
    const proc = spawn(
      process.execPath,
      [
        BIN,
        '--data-dir',
        dataDir,
        '--json',
        'capture',
        '--scope',
        'cli:stdin',
        '--source-id',
        'piped',
      ],
      { stdio: 'pipe' },
    )
    let out = ''
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()))
    proc.stdin.end('line one\nline two\n')
    const code = await new Promise<number | null>((resolve) => proc.on('close', resolve))
    expect(code).toBe(0)
    expect(JSON.parse(out)).toMatchObject({ source: { source_id: 'piped' }, position: 1 })
    const again = await cli(
      '--data-dir',
      dataDir,
      'capture',
      '--scope',
      'cli:stdin',
      '--source-id',
      'piped',
      'line one\nline two\n',
    )
    expect(again.out.trim()).toBe('accepted: piped at position 1')
  })
})
