/*
 * Schema of the MySQL-protocol adapter (docs/storage.md, docs/oceanbase.md; the OceanBase DDL adapted to
 * the atomic tables): identity and hash columns are ASCII with a binary collation (case-variant
 * scope ids stay distinct; source ids are utf8mb4 with a binary collation since version 6), text columns utf8mb4 with a binary collation, refs canonical
 * JSON text, every key well inside InnoDB's 3072-byte limit. The FULLTEXT and vector indexes are
 * not migrations: they depend on what the server supports and are ensured at open.
 */
import type { SqlSession } from '../sql/session.js'
import type { MysqlDialect } from './mysql-search.js'
import { SOURCE_ID_COLUMN, widenSourceIdColumns } from './mysql-source-ids.js'

const ID = 'VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin'
const HASH = 'CHAR(64) CHARACTER SET ascii COLLATE ascii_bin'
const STAMP = 'VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin'
const TAG = 'VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin'
const KIND = 'VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin'
const TEXT = 'TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin'
const MEDIUM = 'MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin'
const LONG = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin'
const STATE = `VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin`

/** Table options per dialect (OceanBase has no storage engine clause). */
export function tableOptions(dialect: MysqlDialect): string {
  const charset = 'DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin'
  return dialect.name === 'mariadb' ? `ENGINE=InnoDB ${charset}` : charset
}

/**
 * One step of a migration: a statement (a function of the dialect's table options), or a
 * procedure that reads the schema to decide its statements (each of them idempotent too).
 */
export type MigrationStep =
  ((opts: string) => string) | { readonly procedure: (sql: SqlSession) => Promise<void> }

/**
 * Forward-only migrations: entry `i` moves the schema from version `i` to `i + 1`. Each statement
 * is idempotent (`IF NOT EXISTS`), because DDL commits implicitly: a migration interrupted half
 * way is simply run again.
 */
export const MYSQL_MIGRATIONS: readonly (readonly MigrationStep[])[] = [
  [
    (o) => `CREATE TABLE IF NOT EXISTS scopes (
      scope_id ${ID} NOT NULL,
      change_seq BIGINT NOT NULL DEFAULT 0 CHECK (change_seq >= 0),
      source_position BIGINT NOT NULL DEFAULT 0 CHECK (source_position >= 0),
      PRIMARY KEY (scope_id)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS sources (
      scope_id ${ID} NOT NULL,
      source_type ${TAG} NOT NULL,
      source_id ${ID} NOT NULL,
      position BIGINT NOT NULL CHECK (position >= 1),
      payload_hash ${HASH} NOT NULL,
      payload ${LONG} NOT NULL,
      created_at ${STAMP} NOT NULL,
      PRIMARY KEY (scope_id, source_type, source_id),
      UNIQUE KEY sources_by_position (scope_id, position),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS memories (
      memory_id ${ID} NOT NULL,
      scope_id ${ID} NOT NULL,
      current_version BIGINT NOT NULL CHECK (current_version >= 1),
      state ${STATE} NOT NULL CHECK (state IN ('active', 'forgotten', 'merged', 'retired')),
      state_version BIGINT NOT NULL CHECK (state_version >= 1),
      merged_into ${ID} NULL,
      kind ${KIND} NOT NULL,
      created_at ${STAMP} NOT NULL,
      updated_at ${STAMP} NOT NULL,
      PRIMARY KEY (memory_id),
      KEY memories_by_scope (scope_id, memory_id),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id),
      FOREIGN KEY (merged_into) REFERENCES memories (memory_id)
    ) ${o}`,
    // The chain rule (previous = version - 1) is a CHECK; a self-referencing foreign key
    // is left out because OceanBase rejects composite self-references (verify checks the chain).
    (o) => `CREATE TABLE IF NOT EXISTS memory_versions (
      memory_id ${ID} NOT NULL,
      version BIGINT NOT NULL CHECK (version >= 1),
      scope_id ${ID} NOT NULL,
      previous_version BIGINT NULL CHECK (previous_version IS NULL OR previous_version = version - 1),
      kind ${KIND} NOT NULL,
      text ${TEXT} NOT NULL,
      sources_json ${LONG} NOT NULL,
      artifacts_json ${LONG} NOT NULL,
      observed_at ${STAMP} NULL,
      content_hash ${HASH} NOT NULL,
      created_at ${STAMP} NOT NULL,
      operation ${TAG} NOT NULL,
      operation_id ${ID} NOT NULL,
      reason ${TEXT} NULL,
      PRIMARY KEY (memory_id, version),
      FOREIGN KEY (memory_id) REFERENCES memories (memory_id)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS memory_changes (
      scope_id ${ID} NOT NULL,
      seq BIGINT NOT NULL CHECK (seq >= 1),
      op ${TAG} NOT NULL,
      memory_id ${ID} NOT NULL,
      from_revision BIGINT NULL,
      to_revision BIGINT NULL,
      from_state ${STATE} NULL,
      to_state ${STATE} NULL,
      reason ${TEXT} NULL,
      operation_id ${ID} NOT NULL,
      at ${STAMP} NOT NULL,
      PRIMARY KEY (scope_id, seq),
      KEY memory_changes_by_memory (memory_id, seq),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id),
      FOREIGN KEY (memory_id) REFERENCES memories (memory_id)
    ) ${o}`,
    // The search projection: Analyzer v1 text as stored by every adapter, and its FULLTEXT form
    // (encoded tokens, see mysql-search.ts). Vector metadata columns are here for every dialect;
    // the VECTOR(dim) column itself is added at open, once the profile's dimension is known.
    (o) => `CREATE TABLE IF NOT EXISTS memory_heads (
      projection_id BIGINT NOT NULL AUTO_INCREMENT,
      memory_id ${ID} NOT NULL,
      scope_id ${ID} NOT NULL,
      version BIGINT NOT NULL,
      kind ${KIND} NOT NULL,
      content_hash ${HASH} NOT NULL,
      searchable_text ${MEDIUM} NOT NULL,
      fts_text ${MEDIUM} NOT NULL,
      vector_version BIGINT NULL,
      vector_content_hash ${HASH} NULL,
      embedding_hash ${HASH} NULL,
      PRIMARY KEY (projection_id),
      UNIQUE KEY memory_heads_by_memory (memory_id),
      KEY memory_heads_by_hash (scope_id, content_hash),
      FOREIGN KEY (memory_id, version) REFERENCES memory_versions (memory_id, version)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS merges (
      merge_id ${ID} NOT NULL,
      scope_id ${ID} NOT NULL,
      result_memory_id ${ID} NOT NULL,
      state ${STATE} NOT NULL CHECK (state IN ('effective', 'undone')),
      created_at ${STAMP} NOT NULL,
      operation_id ${ID} NOT NULL,
      undone_at ${STAMP} NULL,
      undone_operation_id ${ID} NULL,
      PRIMARY KEY (merge_id),
      UNIQUE KEY merges_by_result (result_memory_id),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id),
      FOREIGN KEY (result_memory_id) REFERENCES memories (memory_id)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS merge_inputs (
      merge_id ${ID} NOT NULL,
      ordinal INT NOT NULL,
      memory_id ${ID} NOT NULL,
      version BIGINT NOT NULL,
      PRIMARY KEY (merge_id, ordinal),
      KEY merge_inputs_by_memory (memory_id),
      FOREIGN KEY (merge_id) REFERENCES merges (merge_id),
      FOREIGN KEY (memory_id, version) REFERENCES memory_versions (memory_id, version)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS embedding_profile (
      id TINYINT NOT NULL CHECK (id = 1),
      profile_id ${ID} NOT NULL,
      model VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      dimension INT NOT NULL CHECK (dimension BETWEEN 1 AND 8192),
      distance ${TAG} NOT NULL CHECK (distance = 'l2'),
      normalization ${TAG} NOT NULL CHECK (normalization = 'unit'),
      created_at ${STAMP} NOT NULL,
      vector_epoch BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (id)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS source_cursors (
      scope_id ${ID} NOT NULL,
      position BIGINT NOT NULL CHECK (position >= 0),
      generation BIGINT NOT NULL CHECK (generation >= 1),
      isolate_through BIGINT NOT NULL DEFAULT 0 CHECK (isolate_through >= 0),
      updated_at ${STAMP} NOT NULL,
      PRIMARY KEY (scope_id),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS source_failures (
      scope_id ${ID} NOT NULL,
      position BIGINT NOT NULL CHECK (position >= 1),
      source_id ${ID} NOT NULL,
      attempts INT NOT NULL CHECK (attempts >= 1),
      error_code VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      error_message ${TEXT} NOT NULL,
      state ${STATE} NOT NULL CHECK (state IN ('failing', 'skipped')),
      skip_seq BIGINT NULL,
      first_failed_at ${STAMP} NOT NULL,
      last_failed_at ${STAMP} NOT NULL,
      PRIMARY KEY (scope_id, position),
      UNIQUE KEY source_failures_by_skip_seq (scope_id, skip_seq),
      CHECK ((state = 'skipped') = (skip_seq IS NOT NULL)),
      FOREIGN KEY (scope_id, position) REFERENCES sources (scope_id, position)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS flush_records (
      record_id ${ID} NOT NULL,
      scope_id ${ID} NOT NULL,
      from_position BIGINT NOT NULL CHECK (from_position >= 0),
      to_position BIGINT NOT NULL,
      mode ${TAG} NOT NULL CHECK (mode IN ('structured', 'model')),
      model VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      prompt_version VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      operation_id ${ID} NOT NULL,
      created_at ${STAMP} NOT NULL,
      details_json ${LONG} NOT NULL,
      PRIMARY KEY (record_id),
      UNIQUE KEY flush_records_by_end (scope_id, to_position),
      CHECK (to_position > from_position),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id)
    ) ${o}`,
  ],
  // 2: upgrade from the Python reference (docs/upgrade.md): upgraded scopes, the map from old
  // entry citations to exact memory versions, and each upgraded source's original payload bytes.
  // The old scope id may be any text the reference accepted (up to 256 characters).
  [
    (o) => `CREATE TABLE IF NOT EXISTS legacy_upgrades (
      scope_id ${ID} NOT NULL,
      legacy_scope_id VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      origin ${TEXT} NOT NULL,
      fingerprint ${HASH} NOT NULL,
      cursor_base BIGINT NOT NULL CHECK (cursor_base >= 0),
      counts_json ${TEXT} NOT NULL,
      operation_id ${ID} NOT NULL,
      upgraded_at ${STAMP} NOT NULL,
      PRIMARY KEY (scope_id),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS legacy_citations (
      scope_id ${ID} NOT NULL,
      memory_artifact_id ${ID} NOT NULL,
      entry_id ${ID} NOT NULL,
      entry_version_id ${ID} NOT NULL,
      first_revision BIGINT NOT NULL CHECK (first_revision >= 1),
      memory_id ${ID} NOT NULL,
      version BIGINT NOT NULL,
      PRIMARY KEY (scope_id, memory_artifact_id, entry_id, entry_version_id),
      KEY legacy_citations_by_version (scope_id, memory_artifact_id, entry_version_id),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id),
      FOREIGN KEY (memory_id, version) REFERENCES memory_versions (memory_id, version)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS legacy_source_payloads (
      scope_id ${ID} NOT NULL,
      source_type ${TAG} NOT NULL,
      source_id ${ID} NOT NULL,
      payload LONGBLOB NOT NULL,
      PRIMARY KEY (scope_id, source_type, source_id),
      FOREIGN KEY (scope_id, source_type, source_id) REFERENCES sources (scope_id, source_type, source_id)
    ) ${o}`,
  ],
  // 3: the FULLTEXT index moves to `memory_fts`, whose rows are never deleted (see FULLTEXT_INDEX
  // in mysql-search.ts: InnoDB hands out the document ids of deleted rows again after a crash).
  // The old probe table, whose rows were deleted after each probe, is dropped and made again.
  [
    (o) => `CREATE TABLE IF NOT EXISTS memory_fts (
      memory_id ${ID} NOT NULL,
      fts_text ${MEDIUM} NOT NULL,
      PRIMARY KEY (memory_id)
    ) ${o}`,
    () => `INSERT INTO memory_fts (memory_id, fts_text)
      SELECT memory_id, fts_text FROM memory_heads
      ON DUPLICATE KEY UPDATE fts_text = VALUES(fts_text)`,
    () => 'DROP TABLE IF EXISTS fts_probe',
  ],
  // 4: administrative erase (docs/storage.md "Redaction"): one record per erased source or memory
  // version; each takes a number of the scope's change sequence (the change feed reports it).
  [
    (o) => `CREATE TABLE IF NOT EXISTS redactions (
      scope_id ${ID} NOT NULL,
      seq BIGINT NOT NULL CHECK (seq >= 1),
      target ${TAG} NOT NULL CHECK (target IN ('source', 'version')),
      source_type ${TAG} NULL,
      source_id ${ID} NULL,
      memory_id ${ID} NULL,
      version BIGINT NULL,
      rule ${ID} NULL,
      reason ${TEXT} NOT NULL,
      redacted_at ${STAMP} NOT NULL,
      operation_id ${ID} NOT NULL,
      PRIMARY KEY (scope_id, seq),
      UNIQUE KEY redactions_by_version (memory_id, version),
      UNIQUE KEY redactions_by_source (scope_id, source_type, source_id),
      FOREIGN KEY (scope_id) REFERENCES scopes (scope_id),
      FOREIGN KEY (memory_id) REFERENCES memories (memory_id)
    ) ${o}`,
  ],
  // 5: a redaction may erase a flush decision record (target `record`, its id in `record_id`).
  // Re-declaring the column replaces its CHECK; each statement can run again unchanged.
  [
    () => `ALTER TABLE redactions ADD COLUMN IF NOT EXISTS record_id ${ID} NULL AFTER version`,
    () => `ALTER TABLE redactions MODIFY COLUMN target ${TAG} NOT NULL
      CHECK (target IN ('source', 'version', 'record'))`,
    () => `ALTER TABLE redactions ADD UNIQUE KEY IF NOT EXISTS
      redactions_by_record (scope_id, record_id)`,
  ],
  // 6: source ids are Unicode text (NFC, 1–256 characters): their columns become utf8mb4 with a
  // binary collation (mysql-source-ids.ts).
  [{ procedure: widenSourceIdColumns }],
  // 7: receipts (docs/agents.md "Receipts"): what prepared context gave each agent session, as
  // memory refs and sizes (never text). An operational log: no foreign keys, not exported, pruned.
  [
    (o) => `CREATE TABLE IF NOT EXISTS receipts (
      receipt_id ${ID} NOT NULL,
      scope_id ${ID} NOT NULL,
      scope_ids_json ${TEXT} NOT NULL,
      host ${ID} NOT NULL,
      session_id ${ID} NOT NULL,
      event ${ID} NOT NULL,
      kind ${TAG} NOT NULL CHECK (kind IN ('brief', 'recall')),
      status ${TAG} NOT NULL CHECK (status IN ('ready', 'empty')),
      max_bytes INT NOT NULL,
      content_bytes INT NOT NULL CHECK (content_bytes >= 0),
      token_estimate INT NOT NULL CHECK (token_estimate >= 0),
      within_budget TINYINT NOT NULL CHECK (within_budget IN (0, 1)),
      duration_ms INT NOT NULL CHECK (duration_ms >= 0),
      created_at ${STAMP} NOT NULL,
      PRIMARY KEY (receipt_id),
      KEY receipts_by_scope (scope_id, created_at, receipt_id),
      KEY receipts_by_session (scope_id, session_id, created_at, receipt_id),
      KEY receipts_by_age (created_at, receipt_id)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS receipt_items (
      receipt_id ${ID} NOT NULL,
      ordinal INT NOT NULL CHECK (ordinal >= 0),
      memory_id ${ID} NOT NULL,
      revision BIGINT NOT NULL CHECK (revision >= 1),
      scope_id ${ID} NOT NULL,
      truncated TINYINT NOT NULL CHECK (truncated IN (0, 1)),
      PRIMARY KEY (receipt_id, ordinal),
      KEY receipt_items_by_memory (memory_id, revision)
    ) ${o}`,
  ],
  // 8: freshness of code-anchored memories (docs/agents.md "Freshness"): every path a captured
  // Git change or task outcome names (a projection of the journal, rebuilt by `rebuild`; paths
  // are looked up by their SHA-256), and the last freshness check of a memory a flush found true.
  [
    (o) => `CREATE TABLE IF NOT EXISTS source_paths (
      scope_id ${ID} NOT NULL,
      position BIGINT NOT NULL CHECK (position >= 1),
      source_id ${SOURCE_ID_COLUMN} NOT NULL,
      path_key ${HASH} NOT NULL,
      path ${TEXT} NOT NULL,
      kind ${TAG} NOT NULL CHECK (kind IN ('git_change', 'task_outcome')),
      commit_id ${ID} NULL,
      captured_at ${STAMP} NOT NULL,
      PRIMARY KEY (scope_id, position, path_key),
      KEY source_paths_by_source (scope_id, source_id),
      KEY source_paths_by_path (scope_id, path_key, captured_at)
    ) ${o}`,
    (o) => `CREATE TABLE IF NOT EXISTS freshness_checks (
      memory_id ${ID} NOT NULL,
      scope_id ${ID} NOT NULL,
      version BIGINT NOT NULL CHECK (version >= 1),
      checked_at ${STAMP} NOT NULL,
      PRIMARY KEY (memory_id),
      FOREIGN KEY (memory_id) REFERENCES memories (memory_id)
    ) ${o}`,
  ],
]

/** The schema version this code writes and reads. */
export const MYSQL_SCHEMA_VERSION = MYSQL_MIGRATIONS.length

/** The version table (created before anything else). */
export function schemaVersionTableSql(dialect: MysqlDialect): string {
  return `CREATE TABLE IF NOT EXISTS schema_version (
    id TINYINT NOT NULL CHECK (id = 1),
    version INT NOT NULL,
    PRIMARY KEY (id)
  ) ${tableOptions(dialect)}`
}

/** Upsert of the stored schema version. */
export const SET_SCHEMA_VERSION_SQL =
  'INSERT INTO schema_version (id, version) VALUES (1, ?) ON DUPLICATE KEY UPDATE version = VALUES(version)'

/** The probe table of the FULLTEXT probe (same column and parser as the heads table). */
export function ftsProbeTableSql(dialect: MysqlDialect): string {
  return `CREATE TABLE IF NOT EXISTS fts_probe (
    probe_id ${ID} NOT NULL,
    fts_text ${TEXT} NOT NULL,
    PRIMARY KEY (probe_id),
    FULLTEXT INDEX fts_probe_fts (fts_text)${dialect.fulltextParser}
  ) ${tableOptions(dialect)}`
}

/** Every fixed statement of every migration in order, for a dialect (tests parse each one). */
export function migrationStatements(dialect: MysqlDialect, from = 0): string[] {
  const opts = tableOptions(dialect)
  return MYSQL_MIGRATIONS.slice(from).flatMap((m) =>
    m.flatMap((step) => (typeof step === 'function' ? [step(opts)] : [])),
  )
}
