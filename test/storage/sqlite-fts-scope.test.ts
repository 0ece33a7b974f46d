/* The scope token in the FTS5 candidate query (sqlite-search.ts): left out when every head is in
 * the searched scope — the same rows in the same bm25 order —, kept as soon as another scope has
 * a head, so a search never sees another scope's memories. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { analyzeTokens } from '../../src/core/analyzer.js'
import { planQuery } from '../../src/core/query-plan.js'
import { openSqliteBackend } from '../../src/storage/sqlite/index.js'
import {
  FTS_CANDIDATES_SQL,
  ftsMatchExpression,
  ONE_SCOPE_SQL,
} from '../../src/storage/sqlite/sqlite-search.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-fts-scope-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const WORDS = ['deploy', 'build', 'cache', 'release', 'schema', 'review', 'vector', 'token']
const QUERIES = ['deploy cache', 'release schema reviews', 'vector token build', 'caching']
const texts = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    const [a, b] = [WORDS[i % WORDS.length], WORDS[(i * 3 + 1) % WORDS.length]]
    return `note ${i}: ${a} ${b} ${a} step${i}`
  })

describe('scope token of the full-text candidate query', () => {
  it('is left out when one scope holds every head, with the same candidates in the same order', async () => {
    const b = await openSqliteBackend({ database: join(dir, 'one.sqlite') })
    try {
      for (const text of texts(120))
        await b.remember({ scopeId: 'proj', entries: [{ kind: 'fact', text }] })
      const db = b.rawDatabase
      const whole = (scope: string) =>
        (db.prepare(ONE_SCOPE_SQL).get(scope, scope) as { whole: number }).whole
      expect(whole('proj')).toBe(1)
      expect(whole('other')).toBe(0)
      const candidates = db.prepare(FTS_CANDIDATES_SQL)
      for (const query of QUERIES) {
        const { terms } = planQuery(analyzeTokens(query))
        const scoped = ftsMatchExpression('proj', terms)
        const bare = ftsMatchExpression('proj', terms, true)
        expect(scoped).toContain('scope_key')
        expect(bare).not.toContain('scope_key')
        const rows = candidates.all(bare, 32)
        expect(rows.length).toBeGreaterThan(0)
        expect(rows).toEqual(candidates.all(scoped, 32))
      }
      // Another scope's head: the token is needed again, and each scope finds only its own.
      await b.remember({
        scopeId: 'zz-other',
        entries: [{ kind: 'fact', text: 'deploy cache zz' }],
      })
      await b.remember({
        scopeId: 'aa-other',
        entries: [{ kind: 'fact', text: 'deploy cache aa' }],
      })
      expect(whole('proj')).toBe(0)
      const hits = await b.search({ scopeId: 'proj', query: 'deploy cache', limit: 50 })
      expect(hits.hits.length).toBeGreaterThan(0)
      expect(hits.hits.every((h) => !/zz|aa/.test(h.text))).toBe(true)
      const other = await b.search({ scopeId: 'zz-other', query: 'deploy cache', limit: 50 })
      expect(other.hits.map((h) => h.text)).toEqual(['deploy cache zz'])
    } finally {
      await b.close()
    }
  })

  it('is kept on an empty database', async () => {
    const b = await openSqliteBackend({ database: join(dir, 'empty.sqlite') })
    try {
      const row = b.rawDatabase.prepare(ONE_SCOPE_SQL).get('proj', 'proj') as { whole: number }
      expect(row.whole).toBe(0)
      expect((await b.search({ scopeId: 'proj', query: 'deploy', limit: 5 })).hits).toEqual([])
    } finally {
      await b.close()
    }
  })
})
