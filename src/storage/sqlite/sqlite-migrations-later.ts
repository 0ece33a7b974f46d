/**
 * The SQLite migrations from schema version 10 on (entry `i` of this list moves the schema from
 * version `10 + i` to `11 + i`); `sqlite-schema.ts` appends them to the earlier ones.
 */
export const SQLITE_MIGRATIONS_FROM_10: readonly string[] = [
  // 10: receipts (docs/agents.md "Receipts"): what prepared context gave each agent session, as
  // memory refs and sizes (never text). An operational log: no foreign keys, not exported, pruned.
  `
  CREATE TABLE receipts (
    receipt_id TEXT PRIMARY KEY,
    scope_id TEXT NOT NULL,
    scope_ids_json TEXT NOT NULL,
    host TEXT NOT NULL,
    session_id TEXT NOT NULL,
    event TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('brief', 'recall')),
    status TEXT NOT NULL CHECK (status IN ('ready', 'empty')),
    max_bytes INTEGER NOT NULL,
    content_bytes INTEGER NOT NULL CHECK (content_bytes >= 0),
    token_estimate INTEGER NOT NULL CHECK (token_estimate >= 0),
    within_budget INTEGER NOT NULL CHECK (within_budget IN (0, 1)),
    duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX receipts_by_scope ON receipts (scope_id, created_at, receipt_id);
  CREATE INDEX receipts_by_session ON receipts (scope_id, session_id, created_at, receipt_id);
  CREATE INDEX receipts_by_age ON receipts (created_at, receipt_id);

  CREATE TABLE receipt_items (
    receipt_id TEXT NOT NULL,
    ordinal INTEGER NOT NULL CHECK (ordinal >= 0),
    memory_id TEXT NOT NULL,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    scope_id TEXT NOT NULL,
    truncated INTEGER NOT NULL CHECK (truncated IN (0, 1)),
    PRIMARY KEY (receipt_id, ordinal)
  ) STRICT;
  CREATE INDEX receipt_items_by_memory ON receipt_items (memory_id, revision);
  `,
  // 11: freshness of code-anchored memories (docs/agents.md "Freshness"): every path a captured
  // Git change or task outcome names (a projection of the journal, rebuilt by `rebuild`), and the
  // last freshness check of a memory a flush found still true.
  `
  CREATE TABLE source_paths (
    scope_id TEXT NOT NULL,
    position INTEGER NOT NULL CHECK (position >= 1),
    source_id TEXT NOT NULL,
    path_key TEXT NOT NULL CHECK (length(path_key) = 64),
    path TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('git_change', 'task_outcome')),
    commit_id TEXT,
    captured_at TEXT NOT NULL,
    PRIMARY KEY (scope_id, position, path_key)
  ) STRICT;
  CREATE INDEX source_paths_by_source ON source_paths (scope_id, source_id);
  CREATE INDEX source_paths_by_path ON source_paths (scope_id, path_key, captured_at);

  CREATE TABLE freshness_checks (
    memory_id TEXT PRIMARY KEY REFERENCES memories (memory_id),
    scope_id TEXT NOT NULL,
    version INTEGER NOT NULL CHECK (version >= 1),
    checked_at TEXT NOT NULL
  ) STRICT;
  `,
]
