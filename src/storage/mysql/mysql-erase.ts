/*
 * After a redaction on the MySQL family (docs/storage.md "Redaction"): the rows no longer hold the
 * erased text, but InnoDB keeps old row images in places rows do not point at — the free space of
 * pages, the FULLTEXT index's auxiliary tables (a deleted or emptied row's words stay there until
 * the index is optimized) — and in logs this adapter cannot reach (undo, redo, binary log, a
 * Galera node's gcache). Rebuilding the tables that held the text writes their live rows into new
 * tablespaces and rebuilds their FULLTEXT index; the logs are the operator's (see the docs).
 */
import type { ErasureReport } from '../spi/redaction-types.js'
import type { SqlSession } from '../sql/session.js'

/** The tables whose rows carry erasable text (or its index). */
const TABLES = [
  'sources',
  'legacy_source_payloads',
  'memory_versions',
  'memory_changes',
  'memory_heads',
  'memory_fts',
  'flush_records',
  'source_failures',
] as const

/** What stays readable after the rebuild, in the report. */
const PENDING =
  'InnoDB undo and redo logs, the binary log and a Galera node’s gcache keep earlier row images until they are purged or overwritten (docs/storage.md)'

/**
 * Rebuilds the tables that held erased text (`OPTIMIZE TABLE`: InnoDB recreates the table and its
 * FULLTEXT index from the live rows). On Galera it is replicated as schema change (total order):
 * every node rebuilds, and writes wait meanwhile. OceanBase compacts in its own major freeze.
 */
export async function rebuildRedactedTables(
  sql: SqlSession,
  dialect: 'mariadb' | 'oceanbase',
): Promise<ErasureReport> {
  const started = performance.now()
  const steps: string[] = []
  if (dialect === 'mariadb') {
    for (const table of TABLES) {
      await sql.all(`OPTIMIZE TABLE ${table}`)
      steps.push(`optimize_table:${table}`)
    }
  }
  const pending =
    dialect === 'mariadb'
      ? PENDING
      : 'OceanBase drops old row versions at its next major compaction (docs/storage.md)'
  return { filesClean: false, steps, pending, ms: Math.round(performance.now() - started) }
}
