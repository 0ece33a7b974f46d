/**
 * The secret gate measured on the corpus (test/support/secret-corpus.ts): on EACH write path
 * (remember, update, merge result, capture content, capture metadata, import, the hooks' filter),
 * at least 97 % of the credentials are refused with `secret_detected` and at most 0.5 % of the
 * negative set is. Detection is deterministic (a fixed corpus, fixed rules), so the rates are
 * asserted here; `npm run bench:secrets` prints them per path and per rule family. Runs on a real
 * SQLite database (:memory:); the conformance cases (memory-secrets.case.ts) run the write paths
 * on every backend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import { negativeCorpus, secretCorpus } from '../support/secret-corpus.js'
import { tryWrite, WRITE_PATHS } from '../support/secret-paths.js'

const open = () => openSqliteBackend({ database: ':memory:' })
const secrets = secretCorpus()
const negatives = negativeCorpus()
let backend: MemoryBackend

beforeAll(async () => {
  backend = await open()
})
afterAll(async () => {
  await backend?.close()
})

describe('the secret corpus', () => {
  it('holds ≥ 20 providers in every leak form, and a negative set', () => {
    const providers = new Set(
      secrets.filter((s) => s.kind === 'provider_token').map((s) => s.provider),
    )
    expect(providers.size).toBeGreaterThanOrEqual(20)
    for (const kind of [
      'password',
      'private_key',
      'service_account',
      'connection_string',
      'auth_header',
    ])
      expect(
        secrets.some((s) => s.kind === kind),
        kind,
      ).toBe(true)
    expect(new Set(secrets.map((s) => s.form)).size).toBe(7)
    expect(negatives.length).toBeGreaterThanOrEqual(200)
  })

  it.each(WRITE_PATHS)(
    '%s refuses at least 97 per cent of the credentials, at most 0.5 per cent of the negatives',
    async (path) => {
      // The import path opens two databases per text: a sample of every 7th keeps it short.
      const every = path === 'import' ? 7 : 1
      const pickEvery = <T>(xs: readonly T[]) => xs.filter((_x, i) => i % every === 0)
      let kept = 0
      const missed: string[] = []
      for (const s of pickEvery(secrets)) {
        if (await tryWrite(path, s.text, backend, open)) kept += 1
        else missed.push(`${s.provider}/${s.form}`)
      }
      let refusedNegatives = 0
      const wrong: string[] = []
      for (const t of pickEvery(negatives)) {
        if (await tryWrite(path, t, backend, open)) {
          refusedNegatives += 1
          wrong.push(t.slice(0, 40))
        }
      }
      const total = pickEvery(secrets).length
      expect(kept / total, `missed: ${missed.join(', ')}`).toBeGreaterThanOrEqual(0.97)
      expect(
        refusedNegatives / pickEvery(negatives).length,
        `refused: ${wrong.join(' | ')}`,
      ).toBeLessThanOrEqual(0.005)
    },
  )
})
