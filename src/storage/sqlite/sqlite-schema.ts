import type Database from 'better-sqlite3'

import { schemaNewerError } from '../sql/schema-version.js'
import { SQLITE_MIGRATIONS_FROM_10 } from './sqlite-migrations-later.js'

/** Keeps the full-text index in step when a head row is deleted (re-created by `rebuild`). */
export const HEAD_DELETE_TRIGGER = `CREATE TRIGGER memory_heads_ad AFTER DELETE ON memory_heads BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, scope_key, searchable_text)
    VALUES ('delete', old.projection_id, old.scope_key, old.searchable_text);
  END`

/**
 * Forward-only migrations. Each entry moves the schema from version `i` to `i + 1`; they run inside
 * one `BEGIN IMMEDIATE` transaction at open, and only when the stored version is behind, so opening
 * an up-to-date database touches no data (open time independent of size).
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE scopes (
    scope_id TEXT PRIMARY KEY,
    change_seq INTEGER NOT NULL DEFAULT 0 CHECK (change_seq >= 0),
    source_position INTEGER NOT NULL DEFAULT 0 CHECK (source_position >= 0)
  ) STRICT;

  CREATE TABLE sources (
    scope_id TEXT NOT NULL REFERENCES scopes (scope_id),
    source_type TEXT NOT NULL,
    source_id TEXT NOT NULL,
    position INTEGER NOT NULL CHECK (position >= 1),
    payload_hash TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope_id, source_type, source_id),
    UNIQUE (scope_id, position)
  ) STRICT;

  CREATE TABLE memories (
    memory_id TEXT PRIMARY KEY,
    scope_id TEXT NOT NULL REFERENCES scopes (scope_id),
    current_version INTEGER NOT NULL CHECK (current_version >= 1),
    state TEXT NOT NULL CHECK (state IN ('active', 'forgotten', 'merged', 'retired')),
    state_version INTEGER NOT NULL CHECK (state_version >= 1),
    merged_into TEXT REFERENCES memories (memory_id),
    kind TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX memories_by_scope ON memories (scope_id, memory_id);

  CREATE TABLE memory_versions (
    memory_id TEXT NOT NULL REFERENCES memories (memory_id),
    version INTEGER NOT NULL CHECK (version >= 1),
    scope_id TEXT NOT NULL,
    previous_version INTEGER CHECK (previous_version IS NULL OR previous_version = version - 1),
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    sources_json TEXT NOT NULL,
    artifacts_json TEXT NOT NULL,
    observed_at TEXT,
    content_hash TEXT NOT NULL CHECK (length(content_hash) = 64),
    created_at TEXT NOT NULL,
    operation TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    reason TEXT,
    PRIMARY KEY (memory_id, version),
    FOREIGN KEY (memory_id, previous_version) REFERENCES memory_versions (memory_id, version)
  ) STRICT;

  CREATE TABLE memory_changes (
    scope_id TEXT NOT NULL REFERENCES scopes (scope_id),
    seq INTEGER NOT NULL CHECK (seq >= 1),
    op TEXT NOT NULL,
    memory_id TEXT NOT NULL REFERENCES memories (memory_id),
    from_revision INTEGER,
    to_revision INTEGER,
    from_state TEXT,
    to_state TEXT,
    reason TEXT,
    operation_id TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (scope_id, seq)
  ) STRICT;
  CREATE INDEX memory_changes_by_memory ON memory_changes (memory_id, seq);

  CREATE TABLE memory_heads (
    projection_id INTEGER PRIMARY KEY,
    memory_id TEXT NOT NULL UNIQUE REFERENCES memories (memory_id),
    scope_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    kind TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    scope_key TEXT NOT NULL,
    searchable_text TEXT NOT NULL,
    FOREIGN KEY (memory_id, version) REFERENCES memory_versions (memory_id, version)
  ) STRICT;
  CREATE INDEX memory_heads_by_hash ON memory_heads (scope_id, content_hash);

  CREATE VIRTUAL TABLE memory_fts USING fts5 (
    scope_key, searchable_text,
    content = 'memory_heads', content_rowid = 'projection_id',
    tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
  );
  CREATE TRIGGER memory_heads_ai AFTER INSERT ON memory_heads BEGIN
    INSERT INTO memory_fts (rowid, scope_key, searchable_text)
    VALUES (new.projection_id, new.scope_key, new.searchable_text);
  END;
  ${HEAD_DELETE_TRIGGER};
  CREATE TRIGGER memory_heads_au AFTER UPDATE ON memory_heads BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, scope_key, searchable_text)
    VALUES ('delete', old.projection_id, old.scope_key, old.searchable_text);
    INSERT INTO memory_fts (rowid, scope_key, searchable_text)
    VALUES (new.projection_id, new.scope_key, new.searchable_text);
  END;
  `,
  // 2: merges (docs/memory-model.md): a record per merge and its inputs' exact versions.
  `
  CREATE TABLE merges (
    merge_id TEXT PRIMARY KEY,
    scope_id TEXT NOT NULL REFERENCES scopes (scope_id),
    result_memory_id TEXT NOT NULL UNIQUE REFERENCES memories (memory_id),
    state TEXT NOT NULL CHECK (state IN ('effective', 'undone')),
    created_at TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    undone_at TEXT,
    undone_operation_id TEXT
  ) STRICT;

  CREATE TABLE merge_inputs (
    merge_id TEXT NOT NULL REFERENCES merges (merge_id),
    ordinal INTEGER NOT NULL,
    memory_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (merge_id, ordinal),
    FOREIGN KEY (memory_id, version) REFERENCES memory_versions (memory_id, version)
  ) STRICT;
  CREATE INDEX merge_inputs_by_memory ON merge_inputs (memory_id);
  `,
  // 3: vector projection (docs/storage.md): the database's one embedding profile (fixed when first
  // configured; vector_epoch is a cache key bumped by reindex/rebuild) and one metadata row per
  // vector, keyed like the head and its index row. The sqlite-vec table itself is created at open,
  // when the extension is loaded and the profile's dimension is known.
  `
  CREATE TABLE embedding_profile (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    profile_id TEXT NOT NULL,
    model TEXT NOT NULL,
    dimension INTEGER NOT NULL CHECK (dimension BETWEEN 1 AND 8192),
    distance TEXT NOT NULL CHECK (distance = 'l2'),
    normalization TEXT NOT NULL CHECK (normalization = 'unit'),
    created_at TEXT NOT NULL,
    vector_epoch INTEGER NOT NULL DEFAULT 0
  ) STRICT;

  CREATE TABLE memory_vectors (
    projection_id INTEGER PRIMARY KEY REFERENCES memory_heads (projection_id) ON DELETE CASCADE,
    memory_id TEXT NOT NULL UNIQUE,
    scope_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    embedding_hash TEXT NOT NULL CHECK (length(embedding_hash) = 64)
  ) STRICT;
  CREATE INDEX memory_vectors_by_scope ON memory_vectors (scope_id);
  `,
  // 4: source journal (docs/sources-and-flush.md): each scope's flush cursor (CAS on generation; isolate_through
  // retries a failed window one source at a time), failed and skipped (poison) sources — a skip
  // takes a number of the scope's change sequence — and one decision record per cursor advance.
  `
  CREATE TABLE source_cursors (
    scope_id TEXT PRIMARY KEY REFERENCES scopes (scope_id),
    position INTEGER NOT NULL CHECK (position >= 0),
    generation INTEGER NOT NULL CHECK (generation >= 1),
    isolate_through INTEGER NOT NULL DEFAULT 0 CHECK (isolate_through >= 0),
    updated_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE source_failures (
    scope_id TEXT NOT NULL,
    position INTEGER NOT NULL CHECK (position >= 1),
    source_id TEXT NOT NULL,
    attempts INTEGER NOT NULL CHECK (attempts >= 1),
    error_code TEXT NOT NULL,
    error_message TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('failing', 'skipped')),
    skip_seq INTEGER CHECK ((state = 'skipped') = (skip_seq IS NOT NULL)),
    first_failed_at TEXT NOT NULL,
    last_failed_at TEXT NOT NULL,
    PRIMARY KEY (scope_id, position),
    FOREIGN KEY (scope_id, position) REFERENCES sources (scope_id, position)
  ) STRICT;
  CREATE UNIQUE INDEX source_failures_by_skip_seq ON source_failures (scope_id, skip_seq)
    WHERE skip_seq IS NOT NULL;

  CREATE TABLE flush_records (
    record_id TEXT PRIMARY KEY,
    scope_id TEXT NOT NULL REFERENCES scopes (scope_id),
    from_position INTEGER NOT NULL CHECK (from_position >= 0),
    to_position INTEGER NOT NULL CHECK (to_position > from_position),
    mode TEXT NOT NULL CHECK (mode IN ('structured', 'model')),
    model TEXT,
    prompt_version TEXT,
    operation_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    details_json TEXT NOT NULL,
    UNIQUE (scope_id, to_position)
  ) STRICT;
  `,
  // 5: vector change log: one entry per change of a memory's vector row, written in the same
  // transaction. The in-memory approximate-search graphs of large scopes (sqlite-ann-*.ts) catch
  // up from it; it keeps the last 200,000 entries (a graph further behind is rebuilt).
  `
  CREATE TABLE memory_vector_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    scope_id TEXT NOT NULL,
    memory_id TEXT NOT NULL
  ) STRICT;
  CREATE INDEX memory_vector_log_by_scope ON memory_vector_log (scope_id, seq);
  `,
  // 6: the database's random identity: a graph saved beside the file (sqlite-ann-store.ts) proves
  // with it which database it was built from.
  `
  CREATE TABLE database_identity (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    database_id TEXT NOT NULL
  ) STRICT;
  INSERT INTO database_identity (id, database_id) VALUES (1, lower(hex(randomblob(16))));
  `,
  // 7: upgrade from the Python reference (docs/upgrade.md): one row per upgraded scope, the map
  // from old entry citations to exact memory versions, and each upgraded source's original
  // payload bytes (its journal payload here is re-encoded canonically).
  `
  CREATE TABLE legacy_upgrades (
    scope_id TEXT PRIMARY KEY REFERENCES scopes (scope_id),
    legacy_scope_id TEXT NOT NULL,
    origin TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    cursor_base INTEGER NOT NULL CHECK (cursor_base >= 0),
    counts_json TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    upgraded_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE legacy_citations (
    scope_id TEXT NOT NULL REFERENCES scopes (scope_id),
    memory_artifact_id TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    entry_version_id TEXT NOT NULL,
    first_revision INTEGER NOT NULL CHECK (first_revision >= 1),
    memory_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (scope_id, memory_artifact_id, entry_id, entry_version_id),
    FOREIGN KEY (memory_id, version) REFERENCES memory_versions (memory_id, version)
  ) STRICT;
  CREATE INDEX legacy_citations_by_version ON legacy_citations (scope_id, memory_artifact_id, entry_version_id);

  CREATE TABLE legacy_source_payloads (
    scope_id TEXT NOT NULL,
    source_type TEXT NOT NULL,
    source_id TEXT NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (scope_id, source_type, source_id),
    FOREIGN KEY (scope_id, source_type, source_id) REFERENCES sources (scope_id, source_type, source_id)
  ) STRICT;
  `,
  // 8: administrative erase (docs/storage.md "Redaction"): one record per erased source or memory
  // version; each takes a number of the scope's change sequence (the change feed reports it).
  `
  CREATE TABLE redactions (
    scope_id TEXT NOT NULL REFERENCES scopes (scope_id),
    seq INTEGER NOT NULL CHECK (seq >= 1),
    target TEXT NOT NULL CHECK (target IN ('source', 'version')),
    source_type TEXT,
    source_id TEXT,
    memory_id TEXT REFERENCES memories (memory_id),
    version INTEGER,
    rule TEXT,
    reason TEXT NOT NULL,
    redacted_at TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    PRIMARY KEY (scope_id, seq),
    CHECK ((target = 'source') = (source_id IS NOT NULL AND memory_id IS NULL))
  ) STRICT;
  CREATE UNIQUE INDEX redactions_by_version ON redactions (memory_id, version) WHERE memory_id IS NOT NULL;
  CREATE UNIQUE INDEX redactions_by_source ON redactions (scope_id, source_type, source_id)
    WHERE source_id IS NOT NULL;
  `,
  // 9: a redaction may erase a flush decision record (target `record`, its id in `record_id`).
  // The target's CHECK is part of the table, so the table is rebuilt with its rows (STRICT tables
  // cannot alter a CHECK); no other table refers to it.
  `
  CREATE TABLE redactions_next (
    scope_id TEXT NOT NULL REFERENCES scopes (scope_id),
    seq INTEGER NOT NULL CHECK (seq >= 1),
    target TEXT NOT NULL CHECK (target IN ('source', 'version', 'record')),
    source_type TEXT,
    source_id TEXT,
    memory_id TEXT REFERENCES memories (memory_id),
    version INTEGER,
    record_id TEXT,
    rule TEXT,
    reason TEXT NOT NULL,
    redacted_at TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    PRIMARY KEY (scope_id, seq),
    CHECK ((target = 'source') = (source_id IS NOT NULL AND memory_id IS NULL)),
    CHECK ((target = 'record') = (record_id IS NOT NULL)),
    CHECK (target <> 'record' OR (source_id IS NULL AND memory_id IS NULL))
  ) STRICT;
  INSERT INTO redactions_next (scope_id, seq, target, source_type, source_id, memory_id, version,
    record_id, rule, reason, redacted_at, operation_id)
  SELECT scope_id, seq, target, source_type, source_id, memory_id, version, NULL, rule, reason,
    redacted_at, operation_id FROM redactions;
  DROP TABLE redactions;
  ALTER TABLE redactions_next RENAME TO redactions;
  CREATE UNIQUE INDEX redactions_by_version ON redactions (memory_id, version) WHERE memory_id IS NOT NULL;
  CREATE UNIQUE INDEX redactions_by_source ON redactions (scope_id, source_type, source_id)
    WHERE source_id IS NOT NULL;
  CREATE UNIQUE INDEX redactions_by_record ON redactions (scope_id, record_id)
    WHERE record_id IS NOT NULL;
  `,
  // 10 and later: sqlite-migrations-later.ts.
  ...SQLITE_MIGRATIONS_FROM_10,
]

/** The schema version this code writes and reads. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.length

/** Reads the stored schema version (0 for a new database). */
export function storedSchemaVersion(db: Database.Database): number {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL) STRICT',
  )
  const row = db.prepare('SELECT version FROM schema_version WHERE id = 1').get() as
    { version: number } | undefined
  return row?.version ?? 0
}

/** Applies the migrations the database lacks; the caller holds the write transaction. */
export function migrate(db: Database.Database): void {
  const from = storedSchemaVersion(db)
  if (from > SQLITE_SCHEMA_VERSION) {
    throw schemaNewerError(from, SQLITE_SCHEMA_VERSION)
  }
  for (let v = from; v < SQLITE_SCHEMA_VERSION; v += 1) db.exec(SQLITE_MIGRATIONS[v] ?? '')
  db.prepare(
    'INSERT INTO schema_version (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version',
  ).run(SQLITE_SCHEMA_VERSION)
}
