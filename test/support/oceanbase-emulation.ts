/*
 * Runs the adapter's OceanBase dialect against MariaDB by rewriting the few constructs only
 * OceanBase parses (tested honestly — this proves the OceanBase code path and the rest of
 * each statement, not OceanBase's own parser; docs/oceanbase.md lists what ran where):
 *
 *   VECTOR(n)                      → LONGTEXT COMMENT 'vector(n)' (JSON array text)
 *   CREATE VECTOR INDEX … / inline → no index (MariaDB scans)
 *   l2_distance(a, b)              → a stored SQL function over the JSON arrays
 *   … APPROXIMATE LIMIT            → … LIMIT (exact search)
 *   WITH PARSER SPACE              → the InnoDB parser
 *   ob_version(), column_type      → a fixed 4.3.5.1, the column comment
 *
 * Every statement that needed a rewrite is recorded, so a test can prove each OceanBase-only
 * statement was issued.
 */
import type { Connection } from 'mysql2/promise'

/** Rewrites seen so far: the OceanBase statement as the adapter issued it. */
export const OCEANBASE_ONLY_STATEMENTS = new Set<string>()

const REWRITES: readonly [RegExp, string][] = [
  [/SELECT ob_version\(\) AS v/, "SELECT '4.3.5.1' AS v"],
  [/,\s*VECTOR INDEX \w+ \(\w+\) WITH \([^)]*\)/g, ''],
  [/^CREATE VECTOR INDEX [\s\S]*$/, 'SELECT 1'],
  [/VECTOR\((\d+)\)/g, "LONGTEXT COMMENT 'vector($1)'"],
  [/ WITH PARSER SPACE/g, ''],
  [/\) APPROXIMATE LIMIT/g, ') LIMIT'],
  [
    /SELECT column_type AS type FROM information_schema\.columns/,
    'SELECT column_comment AS type FROM information_schema.columns',
  ],
]

/** The `rewriteSql` hook of the emulation. */
export function emulateOceanBase(sql: string): string {
  let out = sql
  for (const [pattern, replacement] of REWRITES) out = out.replace(pattern, replacement)
  if (out !== sql) OCEANBASE_ONLY_STATEMENTS.add(sql)
  return out
}

/** Creates the stand-in `l2_distance` in the connection's database. */
export async function installL2Distance(conn: Connection, database: string): Promise<void> {
  await conn.query(`DROP FUNCTION IF EXISTS \`${database}\`.l2_distance`)
  await conn.query(`CREATE FUNCTION \`${database}\`.l2_distance(a LONGTEXT, b LONGTEXT)
    RETURNS DOUBLE DETERMINISTIC
    RETURN (SELECT SQRT(SUM(POW(x.v - y.v, 2)))
      FROM JSON_TABLE(a, '$[*]' COLUMNS (i FOR ORDINALITY, v DOUBLE PATH '$')) x
      JOIN JSON_TABLE(b, '$[*]' COLUMNS (i FOR ORDINALITY, v DOUBLE PATH '$')) y ON x.i = y.i)`)
}
