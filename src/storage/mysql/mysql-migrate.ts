import { schemaNewerError } from '../sql/schema-version.js'
import type { SqlSession } from '../sql/session.js'
import { withRetries } from '../sql/transaction-runner.js'
import { isSchemaConflict } from './mysql-errors.js'
import {
  MYSQL_MIGRATIONS,
  MYSQL_SCHEMA_VERSION,
  schemaVersionTableSql,
  SET_SCHEMA_VERSION_SQL,
  tableOptions,
} from './mysql-schema.js'
import type { MysqlDialect } from './mysql-search.js'

/** How long an opening replica waits for another one's schema work. */
const SCHEMA_LOCK_SECONDS = 120

/**
 * Runs `work` holding the database's named schema lock (`GET_LOCK`, held by this session across
 * the implicit commits of DDL), so replicas opening at once migrate and create indexes one after
 * the other. A server without named locks still works: every schema statement is idempotent.
 */
export async function withSchemaLock<T>(
  sql: SqlSession,
  database: string,
  work: () => Promise<T>,
): Promise<T> {
  const lock = `powercontext:schema:${database}`
  let locked = false
  try {
    const row = await sql.get<{ got: unknown }>('SELECT GET_LOCK(?, ?) AS got', [
      lock,
      SCHEMA_LOCK_SECONDS,
    ])
    locked = Number(row?.got) === 1
  } catch {
    locked = false
  }
  if (!locked) {
    const row = await sql
      .get<{ holder: unknown }>('SELECT IS_USED_LOCK(?) AS holder', [lock])
      .catch(() => undefined)
    if (row?.holder !== undefined && row.holder !== null) {
      throw new Error(`another process held the schema lock ${lock} for ${SCHEMA_LOCK_SECONDS} s`)
    }
  }
  try {
    return await work()
  } finally {
    if (locked) await sql.run('SELECT RELEASE_LOCK(?)', [lock]).catch(() => undefined)
  }
}

/**
 * Bounds of {@link withSchemaRetries}: enough for the three nodes of the test cluster opening a
 * new database at once (a few reruns each), and a failure that keeps coming back surfaces in time.
 */
const SCHEMA_RETRY_BOUNDS = { maxAttempts: 12, deadlineMs: 30_000 }

/**
 * Runs open-time schema `work` (migrations, index creation, probes; every statement idempotent)
 * again, after the runner's jittered backoff, when it fails on a conflict with a server opening
 * at once elsewhere (`isSchemaConflict`: deadlock, lock wait timeout, certification conflict,
 * a statement interrupted by another node's replicated DDL). The schema lock does not prevent
 * these on Galera, where it is per node (docs/cluster.md). The last failure is rethrown.
 */
export function withSchemaRetries<T>(work: () => Promise<T>): Promise<T> {
  return withRetries(work, isSchemaConflict, SCHEMA_RETRY_BOUNDS)
}

/**
 * Applies the migrations the database lacks (call inside {@link withSchemaLock}). Statements are
 * idempotent, so a migration interrupted half way is completed by the next open; opening an
 * up-to-date database reads one row.
 * @throws PowerContextError `storage_unavailable` (`details.reason` `schema_newer`) when the stored
 *   schema is newer than this code.
 */
export async function migrateMysql(sql: SqlSession, dialect: MysqlDialect): Promise<number> {
  await sql.run(schemaVersionTableSql(dialect))
  const row = await sql.get<{ version: number }>('SELECT version FROM schema_version WHERE id = 1')
  const from = row?.version ?? 0
  if (from > MYSQL_SCHEMA_VERSION) {
    throw schemaNewerError(from, MYSQL_SCHEMA_VERSION)
  }
  const opts = tableOptions(dialect)
  for (let v = from; v < MYSQL_SCHEMA_VERSION; v += 1) {
    for (const step of MYSQL_MIGRATIONS[v] ?? []) {
      if (typeof step === 'function') await sql.run(step(opts))
      else await step.procedure(sql)
    }
    await sql.run(SET_SCHEMA_VERSION_SQL, [v + 1])
  }
  return from
}
