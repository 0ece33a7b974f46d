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

/** What stays readable on a Galera node, where the server does not rebuild the tables. */
const GALERA_PENDING = `the tables that held the text are not rebuilt on a Galera cluster (run OPTIMIZE TABLE on ${TABLES.join(', ')} in a maintenance window, docs/cluster.md); ${PENDING}`

/**
 * Rebuilds the tables that held erased text (`OPTIMIZE TABLE`: InnoDB recreates the table and its
 * FULLTEXT index from the live rows). Not on a Galera node (`galera`): there it would be a
 * total-order schema change holding every write of the cluster. OceanBase compacts in its own
 * major freeze.
 */
export async function rebuildRedactedTables(
  sql: SqlSession,
  dialect: 'mariadb' | 'oceanbase',
  galera = false,
): Promise<ErasureReport> {
  const started = performance.now()
  const steps: string[] = []
  if (galera) {
    // On a Galera node the rebuild is a total-order schema change: it stalls every write of the
    // cluster while it runs, and one was seen to wait forever on a node whose parallel applier
    // held the table. The server leaves it to the operator (docs/cluster.md "Redaction").
    return { filesClean: false, steps, pending: GALERA_PENDING, ms: 0 }
  }
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
