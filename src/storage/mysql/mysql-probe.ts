/*
 * Startup probes of the MySQL-protocol adapter (OceanBase adapter: "verify the
 * MySQL tenant, database version, vector memory, FULLTEXT tokenizer, HNSW distance and embedding
 * dimension at startup"). What is found decides the capabilities; a mismatch makes that capability
 * unavailable with a reason, never a silent empty result. Functional probes (write, search,
 * delete) are trusted over version numbers and settings.
 */
import { randomUUID } from 'node:crypto'

import { analyzeText } from '../../core/analyzer.js'
import { planQuery } from '../../core/query-plan.js'
import type { SqlSession } from '../sql/session.js'
import { isSchemaConflict } from './mysql-errors.js'
import { ftsProbeTableSql, tableOptions } from './mysql-schema.js'
import type { HnswParameters, MysqlDialect, MysqlDialectName } from './mysql-search.js'
import {
  encodeFtsText,
  ftsBooleanQuery,
  FULLTEXT_INDEX,
  FULLTEXT_TABLE,
  fulltextIndexSql,
  LEGACY_FULLTEXT_INDEX,
  MYSQL_DIALECTS,
  VECTOR_INDEX,
} from './mysql-search.js'
import type { VectorColumnState } from './mysql-vector-tx.js'

/** The oldest OceanBase this adapter accepts for FULLTEXT `WITH PARSER SPACE`, VECTOR and HNSW. */
export const OCEANBASE_MIN_VERSION = [4, 3, 5] as const

/** What the server said about itself. */
export interface ServerProbe {
  readonly product: 'OceanBase' | 'MariaDB' | 'MySQL'
  /** `SELECT VERSION()` as returned. */
  readonly versionString: string
  /** The product's own version (`ob_version()` on OceanBase), e.g. `4.3.5.1` or `10.11.19`. */
  readonly productVersion: string
  readonly dialect: MysqlDialect
  /** OceanBase: `ob_compatibility_mode` (must be MYSQL); null elsewhere. */
  readonly compatibilityMode: string | null
  /** OceanBase: `ob_vector_memory_limit_percentage`; null elsewhere or when unreadable. */
  readonly vectorMemoryPercentage: string | null
  /** Why this server version cannot have FULLTEXT/vector at all; null when it may. */
  readonly versionProblem: string | null
}

function parseVersion(v: string): number[] {
  return (/(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?/.exec(v)?.slice(1) ?? []).map((n) => Number(n ?? 0))
}

function atLeast(version: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i += 1) {
    const a = version[i] ?? 0
    const b = min[i] ?? 0
    if (a !== b) return a > b
  }
  return true
}

async function variable(sql: SqlSession, statement: string): Promise<string | null> {
  try {
    const row = await sql.get<Record<string, unknown>>(statement)
    const value = row?.['Value'] ?? row?.['value'] ?? row?.['VALUE']
    return value === undefined || value === null ? null : String(value)
  } catch {
    return null
  }
}

/**
 * Product, version and dialect. OceanBase must be a MySQL-mode tenant (anything else cannot run
 * this adapter's SQL at all, so that one throws).
 * @throws Error for an OceanBase tenant that is not in MySQL mode.
 */
export async function probeServer(
  sql: SqlSession,
  forced: MysqlDialectName | undefined,
): Promise<ServerProbe> {
  const versionString = String(
    (await sql.get<{ v: unknown }>('SELECT VERSION() AS v'))?.v ?? 'unknown',
  )
  const detected: MysqlDialectName = /oceanbase/i.test(versionString) ? 'oceanbase' : 'mariadb'
  const dialect = MYSQL_DIALECTS[forced ?? detected]
  if (dialect.name === 'oceanbase') {
    const mode = await variable(sql, "SHOW VARIABLES LIKE 'ob_compatibility_mode'")
    if (mode !== null && mode.toUpperCase() !== 'MYSQL') {
      throw new Error(`OceanBase tenant is in ${mode} mode; PowerContext needs a MySQL-mode tenant`)
    }
    let productVersion: string | null = null
    try {
      productVersion = String((await sql.get<{ v: unknown }>('SELECT ob_version() AS v'))?.v)
    } catch {
      productVersion =
        /v?(\d+\.\d+\.\d+(?:\.\d+)?)/.exec(versionString.split('OceanBase')[1] ?? '')?.[1] ?? null
    }
    const version = parseVersion(productVersion ?? '')
    const min = OCEANBASE_MIN_VERSION.join('.')
    return {
      product: 'OceanBase',
      versionString,
      productVersion: productVersion ?? 'unknown',
      dialect,
      compatibilityMode: mode,
      vectorMemoryPercentage:
        (await variable(sql, "SHOW PARAMETERS LIKE 'ob_vector_memory_limit_percentage'")) ??
        (await variable(sql, "SHOW VARIABLES LIKE 'ob_vector_memory_limit_percentage'")),
      versionProblem: atLeast(version, OCEANBASE_MIN_VERSION)
        ? null
        : `OceanBase ${productVersion ?? 'of unknown version'} is older than ${min} (FULLTEXT WITH PARSER SPACE, VECTOR and HNSW)`,
    }
  }
  const product = /mariadb/i.test(versionString) ? 'MariaDB' : 'MySQL'
  return {
    product,
    versionString,
    productVersion: /^(\d+\.\d+\.\d+)/.exec(versionString)?.[1] ?? versionString,
    dialect,
    compatibilityMode: null,
    vectorMemoryPercentage: null,
    versionProblem: null,
  }
}

async function indexExists(sql: SqlSession, table: string, index: string): Promise<boolean> {
  const row = await sql.get(
    `SELECT 1 AS found FROM information_schema.statistics
     WHERE table_schema = DATABASE() AND table_name = ? AND index_name = ? LIMIT 1`,
    [table, index],
  )
  return row !== undefined
}

/** Text whose tokens InnoDB would drop unencoded: short, stop words, CJK, accents, digits. */
const FTS_PROBE_TEXT = 'a of www the 中文 café painted 5 snake_case'
/** Queries that must find the probe row: exact short/stop/CJK/accented tokens and a stem prefix. */
const FTS_PROBE_QUERIES = ['a', 'the', 'www', '中', 'café', 'painting', '5']
/** The probe table's one row (rewritten by every open, never deleted). */
const FTS_PROBE_ID = 'probe'

/**
 * Ensures the FULLTEXT index on `memory_fts` (created here, not in a migration, because it depends
 * on the server; the heads table's index of schema ≤ 2 is dropped) and proves search works with
 * the encoded tokens: the one probe row is rewritten in place with a fresh nonce, then searched for
 * every kind of token InnoDB would otherwise drop (and a stem prefix). The probe row is never
 * deleted, for the reason `memory_fts` rows never are (see FULLTEXT_INDEX): a deleted row's
 * document id can come back after a crash and hide the next probe row, which is what made the
 * first opens after a database crash fail their probe.
 * @returns null when full-text search works, else the reason it is unavailable.
 */
export async function ensureFulltext(sql: SqlSession, probe: ServerProbe): Promise<string | null> {
  if (probe.versionProblem !== null) return probe.versionProblem
  const dialect = probe.dialect
  try {
    if (await indexExists(sql, 'memory_heads', LEGACY_FULLTEXT_INDEX)) {
      await sql.run(`ALTER TABLE memory_heads DROP INDEX ${LEGACY_FULLTEXT_INDEX}`)
    }
    if (!(await indexExists(sql, FULLTEXT_TABLE, FULLTEXT_INDEX))) {
      // The schema lock is per server: on a Galera cluster two nodes' servers may both get here;
      // the DDL replicates, so the loser's fails because the index is there, which is fine.
      await sql.run(fulltextIndexSql(dialect)).catch(async (err: unknown) => {
        if (!(await indexExists(sql, FULLTEXT_TABLE, FULLTEXT_INDEX))) throw err
      })
    }
  } catch (err) {
    if (isSchemaConflict(err)) throw err
    return `cannot create the FULLTEXT index: ${(err as Error).message}`
  }
  // Servers opening at once on several nodes rewrite the one probe row together: a search can
  // briefly miss the row another node just replaced, so the probe is tried a few times.
  let problem: string | null = null
  for (let attempt = 1; attempt <= PROBE_ROUNDS; attempt++) {
    problem = await probeOnce(sql, dialect)
    if (problem === null) return null
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
  }
  return problem
}

const PROBE_ROUNDS = 5

/**
 * One rewrite of the probe row and a search for each probe query; a problem, or null. The probe
 * table is made first each time: a server opening at once on another node may still be migrating
 * from schema 2, which drops it. A conflict with such a server (see `isSchemaConflict`) is thrown:
 * the open runs its schema work again.
 */
async function probeOnce(sql: SqlSession, dialect: MysqlDialect): Promise<string | null> {
  try {
    await sql.run(ftsProbeTableSql(dialect))
    await sql.run(
      `INSERT INTO fts_probe (probe_id, fts_text) VALUES (?, ?)
       ON DUPLICATE KEY UPDATE fts_text = VALUES(fts_text)`,
      [FTS_PROBE_ID, encodeFtsText(analyzeText(`${FTS_PROBE_TEXT} n${randomUUID()}`))],
    )
    for (const query of FTS_PROBE_QUERIES) {
      const against = ftsBooleanQuery(planQuery(analyzeText(query).split(' ')).terms)
      const hit = await sql.get(
        `SELECT probe_id FROM fts_probe WHERE MATCH (fts_text) AGAINST (? IN BOOLEAN MODE) AND probe_id = ?`,
        [against, FTS_PROBE_ID],
      )
      if (hit === undefined) {
        return `full-text probe: ${JSON.stringify(query)} (searched as ${against}) finds nothing; check the FULLTEXT parser and token size settings (innodb_ft_min_token_size ≤ 3)`
      }
    }
    return null
  } catch (err) {
    if (isSchemaConflict(err)) throw err
    return `full-text probe failed: ${(err as Error).message}`
  }
}

/** Functional HNSW probe: a 2-dimensional table, an L2 HNSW index, one APPROXIMATE search. */
async function probeHnsw(sql: SqlSession, dialect: MysqlDialect): Promise<string | null> {
  try {
    await sql.run(`CREATE TABLE IF NOT EXISTS vector_probe (
      id INT NOT NULL, v VECTOR(2) NULL, PRIMARY KEY (id),
      VECTOR INDEX vector_probe_v (v) WITH (distance=L2, type=hnsw, lib=vsag)
    ) ${tableOptions(dialect)}`)
    await sql.run("REPLACE INTO vector_probe (id, v) VALUES (1, '[1,0]'), (2, '[0,1]')")
    const hit = await sql.get<{ id: number; d: number }>(
      `SELECT id, l2_distance(v, '[0.9,0.1]') AS d FROM vector_probe
       ORDER BY l2_distance(v, '[0.9,0.1]') APPROXIMATE LIMIT 1`,
    )
    if (hit?.id !== 1 || Math.abs(Number(hit.d) - Math.SQRT2 / 10) > 1e-4) {
      return `HNSW probe returned ${JSON.stringify(hit)} instead of the nearest row`
    }
    return null
  } catch (err) {
    return `VECTOR/HNSW probe failed: ${(err as Error).message}`
  }
}

/**
 * Ensures the vector column and its HNSW L2 index for the database's fixed dimension (the stored
 * profile's, else the configured model's; none yet: nothing to do). An existing column of another
 * dimension, or an index that is not HNSW with L2 distance, leaves vectors unavailable.
 */
export async function ensureVectorColumn(
  sql: SqlSession,
  probe: ServerProbe,
  dimension: number | undefined,
  hnsw: HnswParameters,
): Promise<VectorColumnState> {
  const vector = probe.dialect.vector
  if ('unavailable' in vector)
    return { dialect: undefined, hasColumn: false, problem: vector.unavailable }
  const readColumn = () =>
    sql.get<{ type: string }>(
      `SELECT column_type AS type FROM information_schema.columns
       WHERE table_schema = DATABASE() AND table_name = 'memory_heads' AND column_name = 'embedding'`,
    )
  const column = await readColumn()
  const unavailable = (problem: string): VectorColumnState => ({
    dialect: vector,
    hasColumn: column !== undefined,
    problem,
  })
  if (probe.versionProblem !== null) return unavailable(probe.versionProblem)
  const hnswProblem = await probeHnsw(sql, probe.dialect)
  if (hnswProblem !== null) {
    const memory = probe.vectorMemoryPercentage
    return unavailable(
      memory === null || Number(memory) > 0
        ? hnswProblem
        : `${hnswProblem} (ob_vector_memory_limit_percentage is ${memory})`,
    )
  }
  if (dimension === undefined) return unavailable('no embedding profile configured yet')
  try {
    if (column === undefined) await sql.run(vector.addColumnSql(dimension))
    else if (String(column.type).toLowerCase() !== vector.columnType(dimension)) {
      return unavailable(
        `memory_heads.embedding is ${column.type}, the profile needs ${vector.columnType(dimension)}: rebuild the vector column offline (docs/oceanbase.md)`,
      )
    }
    if (!(await indexExists(sql, 'memory_heads', VECTOR_INDEX))) {
      await sql.run(vector.createIndexSql(hnsw))
    }
    const ddl = await sql.get<Record<string, string>>('SHOW CREATE TABLE memory_heads')
    const create = String(ddl?.['Create Table'] ?? '')
    const withClause = new RegExp(`${VECTOR_INDEX}[^\\n]*WITH\\s*\\(([^)]*)\\)`, 'i').exec(
      create,
    )?.[1]
    if (
      withClause !== undefined &&
      !(/distance\s*=\s*l2/i.test(withClause) && /type\s*=\s*hnsw/i.test(withClause))
    ) {
      return {
        dialect: vector,
        hasColumn: true,
        problem: `the vector index is not HNSW with L2 distance (${withClause})`,
      }
    }
  } catch (err) {
    return {
      dialect: vector,
      hasColumn: (await readColumn().catch(() => column)) !== undefined,
      problem: `cannot create the vector column or index: ${(err as Error).message}`,
    }
  }
  return { dialect: vector, hasColumn: true, problem: null }
}
