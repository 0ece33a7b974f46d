/*
 * Reference databases for the upgrade tests: written by `test/fixtures/reference/make_reference_db.py`
 * (python3, standard library only) with the Python reference's tables and Pydantic payload bytes,
 * copied into a MariaDB database with the reference's MySQL column types when a test needs the
 * MySQL family, and read back independently of the upgrade code (citations, digests).
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'

import Database from 'better-sqlite3'
import mysql from 'mysql2/promise'
import { expect } from 'vitest'

import type { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import type { LegacyCitationInput } from '../../src/storage/spi/memory-backend.js'
import { fromWireLegacyCitation } from '../../src/wire/request-mapper.js'
import { connectionOf } from '../support/mysql-databases.js'

const SCRIPT = fileURLToPath(new URL('../fixtures/reference/make_reference_db.py', import.meta.url))

/** Writes a reference SQLite database (see the script for profiles and `--bad` kinds). */
export function makeReferenceDb(path: string, args: readonly string[] = []): string {
  execFileSync('python3', [SCRIPT, path, ...args], { stdio: ['ignore', 'inherit', 'inherit'] })
  return path
}

/** One old entry version as a Handoff would cite it, with what it must read as. */
export interface ReferenceCitation {
  readonly scopeId: string
  readonly citation: {
    readonly memory_ref: { family: 'memory'; artifact_id: string; revision: number }
    readonly entry_id: string
    readonly entry_version_id: string
  }
  readonly kind: string
  readonly text: string
  readonly version: number
}

/** An old citation as the SPI's `get` takes it. */
export const legacyCitationOf = (c: ReferenceCitation['citation']): LegacyCitationInput =>
  fromWireLegacyCitation(c)

/** Every citation reads, through `get`, the text and version of the entry version it names. */
export async function expectCitationsResolve(
  rt: MemoryRuntime,
  citations: readonly ReferenceCitation[],
): Promise<void> {
  for (const c of citations) {
    const got = await rt.get({ scopeId: c.scopeId, legacyCitation: legacyCitationOf(c.citation) })
    expect(got.memory.text).toBe(c.text)
    expect(got.memory.kind).toBe(c.kind)
    expect(got.memory.memoryRef.revision).toBe(c.version)
  }
}

/** Every entry version of a reference SQLite file, cited at the revision that created it. */
export function referenceCitations(path: string): ReferenceCitation[] {
  const db = new Database(path, { readonly: true })
  try {
    const rows = db
      .prepare(
        `SELECT scope_id, memory_artifact_id, entry_id, entry_version_id, version, kind, text,
           created_in_revision FROM pc_memory_entry_versions ORDER BY scope_id, entry_id, version`,
      )
      .all() as Record<string, string | number>[]
    return rows.map((r) => ({
      scopeId: String(r['scope_id']),
      citation: {
        memory_ref: {
          family: 'memory',
          artifact_id: String(r['memory_artifact_id']),
          revision: Number(r['created_in_revision']),
        },
        entry_id: String(r['entry_id']),
        entry_version_id: String(r['entry_version_id']),
      },
      kind: String(r['kind']),
      text: String(r['text']),
      version: Number(r['version']),
    }))
  } finally {
    db.close()
  }
}

const PC_TABLES = [
  'pc_source_journal_heads',
  'pc_sources',
  'pc_artifacts',
  'pc_artifact_heads',
  'pc_artifact_lineage_sources',
  'pc_artifact_lineage_artifacts',
  'pc_artifact_candidate_versions',
  'pc_artifact_candidate_heads',
  'pc_source_cursors',
  'pc_external_skill_registrations',
  'pc_memory_entry_versions',
  'pc_memory_entry_heads',
  'pc_model_usage_daily',
  'pc_recall_token_daily',
  'pc_memory_fts_index',
]

function digestRows(rows: readonly Record<string, unknown>[]): string {
  const h = createHash('sha256')
  const key = (r: Record<string, unknown>): string =>
    JSON.stringify(
      Object.values(r).map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)),
    )
  for (const r of [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))) {
    for (const [k, v] of Object.entries(r)) {
      h.update(k).update('\u0000')
      h.update(v instanceof Uint8Array ? Buffer.from(v).toString('hex') : JSON.stringify(v ?? null))
      h.update('\u0001')
    }
  }
  return h.digest('hex')
}

/** SHA-256 over every row of every reference table of a SQLite file (the archive must not move). */
export function sqliteReferenceDigest(path: string): string {
  const db = new Database(path, { readonly: true })
  try {
    return digestRows(
      PC_TABLES.flatMap(
        (t) => db.prepare(`SELECT '${t}' AS t, * FROM ${t}`).all() as Record<string, unknown>[],
      ),
    )
  } finally {
    db.close()
  }
}

/** The reference's MySQL DDL (VARCHAR utf8mb4_bin identities, MEDIUMBLOB payloads, MEDIUMTEXT). */
const ID = (n: number): string => `VARCHAR(${n}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`
const MYSQL_DDL = [
  `CREATE TABLE pc_source_journal_heads (scope_id ${ID(256)} NOT NULL, position BIGINT NOT NULL,
    PRIMARY KEY (scope_id))`,
  `CREATE TABLE pc_sources (scope_id ${ID(256)} NOT NULL, source_type ${ID(128)} NOT NULL,
    source_id ${ID(256)} NOT NULL, payload MEDIUMBLOB NOT NULL, journal_position BIGINT NOT NULL,
    PRIMARY KEY (scope_id, source_type, source_id), UNIQUE (scope_id, journal_position))`,
  `CREATE TABLE pc_artifacts (scope_id ${ID(256)} NOT NULL, family ${ID(128)} NOT NULL,
    artifact_id ${ID(128)} NOT NULL, revision INTEGER NOT NULL, content MEDIUMBLOB NOT NULL,
    PRIMARY KEY (scope_id, family, artifact_id, revision))`,
  `CREATE TABLE pc_artifact_heads (scope_id ${ID(256)} NOT NULL, family ${ID(128)} NOT NULL,
    artifact_id ${ID(128)} NOT NULL, revision INTEGER NOT NULL, searchable_text MEDIUMTEXT,
    PRIMARY KEY (scope_id, family, artifact_id),
    FOREIGN KEY (scope_id, family, artifact_id, revision) REFERENCES pc_artifacts (scope_id, family, artifact_id, revision))`,
  `CREATE TABLE pc_artifact_lineage_sources (scope_id ${ID(256)} NOT NULL, family ${ID(128)} NOT NULL,
    artifact_id ${ID(128)} NOT NULL, revision INTEGER NOT NULL, ordinal INTEGER NOT NULL,
    source_type ${ID(128)} NOT NULL, source_id ${ID(256)} NOT NULL,
    PRIMARY KEY (scope_id, family, artifact_id, revision, ordinal))`,
  `CREATE TABLE pc_artifact_lineage_artifacts (scope_id ${ID(256)} NOT NULL, family ${ID(128)} NOT NULL,
    artifact_id ${ID(128)} NOT NULL, revision INTEGER NOT NULL, ordinal INTEGER NOT NULL,
    upstream_family ${ID(128)} NOT NULL, upstream_artifact_id ${ID(128)} NOT NULL,
    upstream_revision INTEGER NOT NULL, PRIMARY KEY (scope_id, family, artifact_id, revision, ordinal))`,
  `CREATE TABLE pc_artifact_candidate_versions (scope_id ${ID(256)} NOT NULL, candidate_id ${ID(128)} NOT NULL,
    version INTEGER NOT NULL, family ${ID(128)} NOT NULL, proposal MEDIUMBLOB NOT NULL,
    source_refs MEDIUMBLOB NOT NULL, artifact_refs MEDIUMBLOB NOT NULL, target_family ${ID(128)},
    target_artifact_id ${ID(128)}, target_revision INTEGER, reason MEDIUMTEXT,
    PRIMARY KEY (scope_id, candidate_id, version))`,
  `CREATE TABLE pc_artifact_candidate_heads (scope_id ${ID(256)} NOT NULL, candidate_id ${ID(128)} NOT NULL,
    family ${ID(128)} NOT NULL, version INTEGER NOT NULL, status ${ID(16)} NOT NULL,
    result_family ${ID(128)}, result_artifact_id ${ID(128)}, result_revision INTEGER,
    decision_reason MEDIUMTEXT, PRIMARY KEY (scope_id, candidate_id))`,
  `CREATE TABLE pc_source_cursors (scope_id ${ID(256)} NOT NULL, binding_name ${ID(128)} NOT NULL,
    \`cursor\` MEDIUMBLOB NOT NULL, generation BIGINT NOT NULL, PRIMARY KEY (scope_id, binding_name))`,
  `CREATE TABLE pc_external_skill_registrations (scope_id ${ID(256)} NOT NULL,
    external_skill_id ${ID(128)} NOT NULL, provider ${ID(128)} NOT NULL, agent_kind ${ID(128)} NOT NULL,
    host_id ${ID(128)} NOT NULL, installation_scope ${ID(16)} NOT NULL, locator ${ID(2000)} NOT NULL,
    locator_hash ${ID(64)} NOT NULL, fingerprint ${ID(64)} NOT NULL, name ${ID(128)} NOT NULL,
    description ${ID(2000)} NOT NULL, PRIMARY KEY (scope_id, external_skill_id))`,
  `CREATE TABLE pc_memory_entry_versions (scope_id ${ID(256)} NOT NULL, family ${ID(128)} NOT NULL,
    memory_artifact_id ${ID(128)} NOT NULL, entry_id ${ID(128)} NOT NULL,
    entry_version_id ${ID(128)} NOT NULL, version INTEGER NOT NULL, previous_version_id ${ID(128)},
    kind ${ID(128)} NOT NULL, text MEDIUMTEXT NOT NULL, source_refs MEDIUMBLOB NOT NULL,
    artifact_refs MEDIUMBLOB NOT NULL, entry_content_hash ${ID(64)} NOT NULL,
    created_in_revision INTEGER NOT NULL,
    PRIMARY KEY (scope_id, memory_artifact_id, entry_version_id),
    UNIQUE (scope_id, memory_artifact_id, entry_id, version),
    UNIQUE (scope_id, memory_artifact_id, entry_id, entry_version_id))`,
  `CREATE TABLE pc_memory_entry_heads (scope_id ${ID(256)} NOT NULL, family ${ID(128)} NOT NULL,
    memory_artifact_id ${ID(128)} NOT NULL, head_revision INTEGER NOT NULL, entry_id ${ID(128)} NOT NULL,
    entry_version_id ${ID(128)} NOT NULL, entry_content_hash ${ID(64)} NOT NULL,
    searchable_text MEDIUMTEXT NOT NULL, PRIMARY KEY (scope_id, memory_artifact_id, entry_id))`,
  `CREATE TABLE pc_model_usage_daily (scope_id ${ID(256)} NOT NULL, usage_date DATE NOT NULL,
    purpose ${ID(64)} NOT NULL, operation ${ID(16)} NOT NULL, requests BIGINT NOT NULL,
    input_tokens BIGINT NOT NULL, output_tokens BIGINT NOT NULL, input_complete BOOLEAN NOT NULL,
    output_complete BOOLEAN NOT NULL, PRIMARY KEY (scope_id, usage_date, purpose, operation))`,
  `CREATE TABLE pc_recall_token_daily (scope_id ${ID(256)} NOT NULL, usage_date DATE NOT NULL,
    estimator_id ${ID(128)} NOT NULL, estimator_version ${ID(64)} NOT NULL, preparations BIGINT NOT NULL,
    ready_preparations BIGINT NOT NULL, comparable_preparations BIGINT NOT NULL,
    baseline_tokens BIGINT NOT NULL, recalled_tokens BIGINT NOT NULL,
    PRIMARY KEY (scope_id, usage_date, estimator_id, estimator_version))`,
]

/** Runs `work` on a plain connection to `url`. */
export async function withMysql<T>(
  url: string,
  work: (c: mysql.Connection) => Promise<T>,
): Promise<T> {
  const conn = await mysql.createConnection({
    ...connectionOf(url),
    charset: 'utf8mb4',
    supportBigNumbers: true,
  })
  try {
    return await work(conn)
  } finally {
    await conn.end()
  }
}

/** Copies a reference SQLite file into a MySQL-family database with the reference's DDL. */
export async function copyReferenceToMysql(sqlitePath: string, url: string): Promise<void> {
  const db = new Database(sqlitePath, { readonly: true })
  try {
    await withMysql(url, async (c) => {
      for (const ddl of MYSQL_DDL) await c.query(`${ddl} ENGINE=InnoDB`)
      for (const t of PC_TABLES.filter((x) => x !== 'pc_memory_fts_index')) {
        const rows = db.prepare(`SELECT * FROM ${t}`).all() as Record<string, unknown>[]
        for (const r of rows) {
          const cols = Object.keys(r)
          await c.query(
            `INSERT INTO ${t} (${cols.map((k) => `\`${k}\``).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
            cols.map((k) => r[k]),
          )
        }
      }
    })
  } finally {
    db.close()
  }
}

/** SHA-256 over every row of every reference table of a MySQL-family database. */
export async function mysqlReferenceDigest(url: string): Promise<string> {
  return withMysql(url, async (c) => {
    const all: Record<string, unknown>[] = []
    for (const t of PC_TABLES.filter((x) => x !== 'pc_memory_fts_index')) {
      const [rows] = await c.query(`SELECT '${t}' AS t, ${t}.* FROM ${t}`)
      all.push(...(rows as Record<string, unknown>[]))
    }
    return digestRows(all)
  })
}
