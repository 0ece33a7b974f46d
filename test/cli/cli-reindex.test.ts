import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { EmbeddingsServer } from '../support/embeddings-server.js'

const dataDir = mkdtempSync(join(tmpdir(), 'pc-cli-reindex-'))
const embeddings = new EmbeddingsServer(32)
let flags: string[] = []

beforeAll(async () => {
  const url = await embeddings.listen()
  flags = [
    '--embedding-url',
    url,
    '--embedding-model',
    'cli-model',
    '--embedding-dimension',
    '32',
    '--embedding-profile-id',
    'cli-profile',
  ]
})
afterAll(async () => {
  await embeddings.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(['node', 'powercontext', '--data-dir', dataDir, ...args], {
    out: (t) => (out += t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => (err += t.endsWith('\n') ? t : `${t}\n`),
  })
  return { code, out, err }
}

describe('powercontext admin reindex', () => {
  it('fills the vectors of memories written without a model', async () => {
    for (const text of ['Deploys go through the release train', 'Use pnpm workspaces']) {
      expect((await cli('remember', '--scope', 'cli:vec', '--kind', 'fact', text)).code).toBe(0)
    }
    const first = await cli('--json', 'admin', 'reindex', ...flags)
    expect(first.err).toBe('')
    expect(first.code).toBe(0)
    expect(JSON.parse(first.out)).toEqual({ scanned: 2, embedded: 2, remaining: 0, error: null })
    const again = await cli('admin', 'reindex', ...flags)
    expect(again.out).toBe('reindexed: 0 vectors embedded, 0 missing, 2 active memories\n')
    // Progress goes to stderr, after each page of heads.
    expect(again.err).toBe('reindex: 2 active memories scanned, 0 embedded, 0 missing\n')
    const verify = await cli('--json', 'admin', 'verify')
    expect(JSON.parse(verify.out).counts).toMatchObject({ vectors: 2, missingVectors: 0 })
  })

  it('rebuild re-embeds when a model is given, and reports a model outage', async () => {
    const rebuilt = await cli('admin', 'rebuild', ...flags)
    expect(rebuilt.out).toBe('rebuilt: 2 active memories projected, 2 vectors embedded\n')
    embeddings.down = true
    await cli('admin', 'rebuild')
    const failed = await cli('admin', 'reindex', ...flags)
    expect(failed.code).toBe(1)
    expect(failed.out).toMatch(/^reindexed: 0 vectors embedded, 2 missing/)
    expect(failed.out).toMatch(/stopped: inference_unavailable/)
    embeddings.down = false
  })

  it('the local CLI searches vector and hybrid with the server embedding flags or environment', async () => {
    const scope = 'cli:local-vec'
    for (const text of ['Otters swim in the river', 'Tax forms are due in April']) {
      expect((await cli('remember', '--scope', scope, '--kind', 'fact', text)).code).toBe(0)
    }
    expect((await cli('admin', 'reindex', ...flags)).code).toBe(0)
    const search = (...args: string[]) => cli('--json', 'search', '--scope', scope, ...args)
    const vector = await search('--mode', 'vector', ...flags, 'otters', 'river')
    expect(vector.err).toBe('')
    const hits = JSON.parse(vector.out) as { mode: string; hits: { text: string }[] }
    expect(hits.mode).toBe('vector')
    expect(hits.hits[0]?.text).toBe('Otters swim in the river')
    const env = {
      POWERCONTEXT_SERVER_EMBEDDING_URL: flags[1]!,
      POWERCONTEXT_SERVER_EMBEDDING_MODEL: 'cli-model',
      POWERCONTEXT_SERVER_EMBEDDING_DIMENSION: '32',
      POWERCONTEXT_SERVER_EMBEDDING_PROFILE_ID: 'cli-profile',
    }
    Object.assign(process.env, env)
    try {
      const hybrid = await search('--mode', 'hybrid', 'otters')
      expect(hybrid.err).toBe('')
      expect(JSON.parse(hybrid.out)).toMatchObject({ mode: 'hybrid' })
      expect(JSON.parse((await search('otters')).out)).toMatchObject({ mode: 'hybrid' })
    } finally {
      for (const name of Object.keys(env)) delete process.env[name]
    }
    const without = await cli('search', '--scope', scope, '--mode', 'vector', 'otters')
    expect(without.code).toBe(1)
    expect(without.err).toMatch(/capability_not_supported/)
    expect(JSON.parse((await search('otters')).out)).toMatchObject({ mode: 'fts' })
  })

  it('needs all four embedding settings, or none', async () => {
    const partial = await cli('admin', 'reindex', '--embedding-model', 'm')
    expect(partial.code).toBe(2)
    expect(partial.err).toMatch(/embedding settings go together: missing --embedding-url/)
    const none = await cli('admin', 'reindex')
    expect(none.code).toBe(2)
    expect(none.err).toMatch(/reindex needs an embedding model/)
    const other = await cli('admin', 'reindex', ...flags.slice(0, -1), 'another-profile')
    expect(other.code).toBe(1)
    expect(other.err).toMatch(/capability_not_supported: .*does not match/)
  })
})
