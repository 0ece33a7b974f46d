/**
 * The tables of the Python reference this upgrade reads (its `persistence/tables.py` as of
 * reference snapshot 0530a35d, docs/upgrade.md), and the ones it leaves in the archive. A database
 * whose tables differ is an unknown schema and the upgrade refuses it: a column it does not know
 * could hold data it would otherwise drop without saying so.
 */
import type { ReferenceSession } from './reference-session.js'

/** Tables the upgrade reads, with their exact columns. */
export const READ_TABLES: Readonly<Record<string, readonly string[]>> = {
  pc_source_journal_heads: ['scope_id', 'position'],
  pc_sources: ['scope_id', 'source_type', 'source_id', 'payload', 'journal_position'],
  pc_artifacts: ['scope_id', 'family', 'artifact_id', 'revision', 'content'],
  pc_artifact_heads: ['scope_id', 'family', 'artifact_id', 'revision', 'searchable_text'],
  pc_source_cursors: ['scope_id', 'binding_name', 'cursor', 'generation'],
  pc_memory_entry_versions: [
    'scope_id',
    'family',
    'memory_artifact_id',
    'entry_id',
    'entry_version_id',
    'version',
    'previous_version_id',
    'kind',
    'text',
    'source_refs',
    'artifact_refs',
    'entry_content_hash',
    'created_in_revision',
  ],
  pc_memory_entry_heads: [
    'scope_id',
    'family',
    'memory_artifact_id',
    'head_revision',
    'entry_id',
    'entry_version_id',
    'entry_content_hash',
    'searchable_text',
  ],
}

/** Columns an older reference lacks (added later by an ad-hoc check of the reference). */
const OPTIONAL_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  pc_artifact_heads: ['searchable_text'],
}

/**
 * Tables with no counterpart here: left in the archive (the old database), counted by the
 * preflight. Projections (full-text, vectors) are rebuilt here from the moved rows instead.
 */
export const ARCHIVE_TABLES: Readonly<Record<string, string>> = {
  pc_artifact_lineage_sources: 'revision lineage rows (sources)',
  pc_artifact_lineage_artifacts: 'revision lineage rows (artifacts)',
  pc_artifact_candidate_versions: 'review candidate versions',
  pc_artifact_candidate_heads: 'review candidates',
  pc_external_skill_registrations: 'external skill registrations',
  pc_model_usage_daily: 'model usage statistics rows',
  pc_recall_token_daily: 'recall token statistics rows',
  pc_memory_vector_entries: 'vector rows (re-embedded here by reindex)',
  pc_memory_entry_vec: 'vector index rows',
  pc_memory_entry_fts: 'full-text index rows (rebuilt here)',
  pc_memory_fts_index: 'full-text marker',
  pc_experience_fts: 'experience full-text rows',
}

/** The schema of the old database as the preflight found it. */
export interface ReferenceSchema {
  /** Why the schema is unknown; empty when the upgrade can read it. */
  readonly problems: readonly string[]
  /** Archive tables present (name → what they hold). */
  readonly archive: ReadonlyMap<string, string>
  /** `pc_*` tables this upgrade knows nothing about (refused). */
  readonly unknown: readonly string[]
}

/** Checks that the database is a Python-reference database of a known schema. */
export async function readReferenceSchema(session: ReferenceSession): Promise<ReferenceSchema> {
  const problems: string[] = []
  const names = await session.tables()
  const pc = names.filter((t) => t.startsWith('pc_'))
  if (pc.length === 0) {
    return {
      problems: ['no pc_* tables: this is not a Python-reference database'],
      archive: new Map(),
      unknown: [],
    }
  }
  for (const [table, expected] of Object.entries(READ_TABLES)) {
    const columns = await session.columns(table)
    if (columns === undefined) {
      problems.push(`table ${table} is missing`)
      continue
    }
    const optional = OPTIONAL_COLUMNS[table] ?? []
    const missing = expected.filter((c) => !columns.includes(c) && !optional.includes(c))
    const extra = columns.filter((c) => !expected.includes(c))
    if (missing.length > 0) problems.push(`table ${table} lacks ${missing.join(', ')}`)
    if (extra.length > 0) problems.push(`table ${table} has unknown columns ${extra.join(', ')}`)
  }
  const archive = new Map<string, string>()
  const unknown: string[] = []
  for (const table of pc) {
    if (READ_TABLES[table] !== undefined) continue
    const what =
      ARCHIVE_TABLES[table] ??
      (table.startsWith('pc_handoff_report') ? 'handoff report rows' : undefined)
    // SQLite virtual tables keep shadow tables (`pc_memory_entry_fts_data`, …) beside them.
    if (what === undefined && Object.keys(ARCHIVE_TABLES).some((t) => table.startsWith(`${t}_`)))
      continue
    if (what === undefined) unknown.push(table)
    else archive.set(table, what)
  }
  if (unknown.length > 0) problems.push(`unknown tables ${unknown.join(', ')}`)
  if (names.includes('pc_memory_fts_index')) {
    const rows = await session.all<{ v: unknown }>(
      'SELECT schema_version AS v FROM pc_memory_fts_index',
    )
    if (rows.some((r) => Number(r.v) !== 1))
      problems.push('full-text marker schema_version is not 1')
  }
  return { problems, archive, unknown }
}
