/**
 * Exit codes, one rule for every command (docs/cli.md): what the CLI itself rejects before any
 * operation runs — unknown commands or options, a missing argument, a value it parses (numbers,
 * URLs, JSON, `ID@REV`, a file to read), options that exclude each other — is a usage error
 * (exit 2); what an operation rejects (a typed error from the runtime or server) is exit 1.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { runCli } from '../support/cli-run.js'
import { tempDirs } from '../support/temp-git.js'

const temp = tempDirs('pc-cli-exit-')
const dataDir = temp.make()
afterAll(() => temp.removeAll())
const S = 'cli:exit'
const cli = (...args: string[]) => runCli('--data-dir', dataDir, ...args)

let id = ''
beforeAll(async () => {
  const r = await cli('--json', 'remember', '--scope', S, 'an exit code fact')
  id = (JSON.parse(r.out) as { results: { memory: { memory_ref: { artifact_id: string } } }[] })
    .results[0]!.memory.memory_ref.artifact_id
  writeFileSync(join(dataDir, 'not-json.txt'), 'this is not JSON')
  writeFileSync(join(dataDir, 'object.json'), '{"kind": "fact"}')
})

/** [what, arguments (ids filled in later), expected exit code, expected stderr fragment] */
const CASES: [string, () => string[], 1 | 2, RegExp][] = [
  ['unknown command', () => ['nonsense'], 2, /unknown command/],
  ['unknown option', () => ['list', '--scope', S, '--bogus'], 2, /unknown option/],
  ['--limit not a number', () => ['search', '--scope', S, '--limit', 'abc', 'x'], 2, /integer/],
  ['get without an id', () => ['get', '--scope', S], 2, /needs a memory id/],
  ['--legacy-citation not JSON', () => ['get', '--scope', S, '--legacy-citation', '{'], 2, /JSON/],
  ['merge input not ID@REV', () => ['merge', '--scope', S, '--text', 't', id, id], 2, /ID@REV/],
  [
    'merge input @x',
    () => ['merge', '--scope', S, '--text', 't', `${id}@x`, `${id}@1`],
    2,
    /ID@REV/,
  ],
  ['--metadata not JSON', () => ['capture', '--scope', S, '--metadata', '[', 'x'], 2, /--metadata/],
  ['--metadata an array', () => ['capture', '--scope', S, '--metadata', '[]', 'x'], 2, /object/],
  [
    '--entries missing file',
    () => ['remember', '--scope', S, '--entries', join(dataDir, 'none.json')],
    2,
    /cannot be read \(ENOENT\)/,
  ],
  [
    '--entries not JSON',
    () => ['remember', '--scope', S, '--entries', join(dataDir, 'not-json.txt')],
    2,
    /is not JSON/,
  ],
  [
    '--entries not a list',
    () => ['remember', '--scope', S, '--entries', join(dataDir, 'object.json')],
    2,
    /JSON array/,
  ],
  [
    '--preview with --preview-token',
    () => ['restore', '--scope', S, '--preview', '--preview-token', 't', id],
    2,
    /cannot be used with/,
  ],
  [
    '--observed-at with --clear-observed-at',
    () => [
      'update',
      '--scope',
      S,
      '--revision',
      '1',
      '--observed-at',
      '2024-01-01T00:00:00Z',
      '--clear-observed-at',
      id,
    ],
    2,
    /cannot be used with/,
  ],
  [
    'capture git --limit 0',
    () => ['capture', '--scope', S, 'git', '--limit', '0'],
    2,
    /--limit must be 1–1000/,
  ],
  [
    '--data-dir with --database',
    () => ['--database', 'mysql://u@127.0.0.1:1/x', 'list', '--scope', S],
    2,
    /either --data-dir or --database/,
  ],
  ['--server-url not a URL', () => ['--server-url', 'nope', 'doctor'], 2, /http\(s\) URL/],
  ['setup of an unknown host', () => ['setup', 'cursor'], 2, /one of/],
  ['doctor of an unknown host', () => ['doctor', 'cursor'], 2, /unknown host/],
  [
    '--limit 0 (the operation checks it)',
    () => ['search', '--scope', S, '--limit', '0', 'x'],
    1,
    /^error: invalid_request:/,
  ],
  [
    'unknown memory',
    () => ['get', '--scope', S, 'mem_00000000000000000000000000'],
    1,
    /^error: memory_not_found:/,
  ],
  [
    'stale revision',
    () => ['update', '--scope', S, '--revision', '9', '--text', 'x', id],
    1,
    /^error: revision_conflict:/,
  ],
  [
    'bad --mode',
    () => ['search', '--scope', S, '--mode', 'psychic', 'x'],
    1,
    /^error: invalid_request:/,
  ],
  ['blank text', () => ['remember', '--scope', S, '   '], 1, /^error: invalid_request:/],
  [
    'merge of one memory twice',
    () => ['merge', '--scope', S, '--text', 't', '--kind', 'fact', `${id}@1`, `${id}@1`],
    1,
    /^error: invalid_request:/,
  ],
  [
    'forget at a stale revision',
    () => ['forget', '--scope', S, '--revision', '3', id],
    1,
    /^error: revision_conflict:/,
  ],
  ['bad scope id', () => ['list', '--scope', ' '], 1, /^error: invalid_request:/],
]

describe('exit codes: 2 for what the CLI rejects, 1 for what an operation rejects', () => {
  it.each(CASES)('%s', async (_what, args, code, err) => {
    const r = await cli(...args())
    expect({ code: r.code, out: r.out }).toEqual({ code, out: '' })
    expect(r.err).toMatch(err)
    // One line (or commander's own), never a stack trace.
    expect(r.err).not.toMatch(/\n\s+at /)
  })
})
