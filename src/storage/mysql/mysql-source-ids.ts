/**
 * Schema version 6: source ids become Unicode (docs/storage.md "Identifiers"). The columns that
 * hold a source id move from ASCII to `utf8mb4` with a binary collation, 256 characters (at most
 * 1,024 bytes, inside InnoDB's key limit). MariaDB refuses to alter a column used by a foreign
 * key (even with `foreign_key_checks = 0`) and OceanBase refuses collation changes on tables with
 * foreign keys, so every foreign key of the four tables is dropped, the columns are altered, and
 * the keys are added back by name. Each step checks what is already done, so a run interrupted
 * half way (DDL commits implicitly) is completed by the next open.
 */
import type { SqlSession } from '../sql/session.js'

/** Column type of a source id. */
export const SOURCE_ID_COLUMN = 'VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin'

/** The tables holding a source id, and whether the column is nullable there. */
const SOURCE_ID_COLUMNS: readonly (readonly [table: string, nullable: boolean])[] = [
  ['sources', false],
  ['source_failures', false],
  ['legacy_source_payloads', false],
  ['redactions', true],
]

interface ForeignKey {
  readonly table: string
  readonly name: string
  readonly columns: readonly string[]
  readonly references: string
  readonly referencedColumns: readonly string[]
}

/** Every foreign key of the four tables, as the schema (versions 1–4) declares it. */
const FOREIGN_KEYS: readonly ForeignKey[] = [
  fk('sources', 'sources_scope_fk', ['scope_id'], 'scopes'),
  fk('source_failures', 'source_failures_source_fk', ['scope_id', 'position'], 'sources'),
  fk(
    'legacy_source_payloads',
    'legacy_source_payloads_source_fk',
    ['scope_id', 'source_type', 'source_id'],
    'sources',
  ),
  fk('redactions', 'redactions_scope_fk', ['scope_id'], 'scopes'),
  fk('redactions', 'redactions_memory_fk', ['memory_id'], 'memories'),
]

function fk(table: string, name: string, columns: string[], references: string): ForeignKey {
  return { table, name, columns, references, referencedColumns: columns }
}

const IN_TABLES = SOURCE_ID_COLUMNS.map(() => '?').join(', ')
const TABLE_NAMES = SOURCE_ID_COLUMNS.map(([t]) => t)

/** Widens the source id columns (see the file comment); a no-op when already done. */
export async function widenSourceIdColumns(sql: SqlSession): Promise<void> {
  const narrow = await narrowColumns(sql)
  if (narrow.length > 0) {
    for (const key of await existingForeignKeys(sql)) {
      await sql.run(`ALTER TABLE ${key.table} DROP FOREIGN KEY ${key.name}`)
    }
    for (const [table, nullable] of SOURCE_ID_COLUMNS) {
      if (!narrow.includes(table)) continue
      const nulls = nullable ? 'NULL' : 'NOT NULL'
      await sql.run(`ALTER TABLE ${table} MODIFY source_id ${SOURCE_ID_COLUMN} ${nulls}`)
    }
  }
  const present = await existingForeignKeys(sql)
  for (const key of FOREIGN_KEYS) {
    const same = (k: ForeignKey): boolean =>
      k.table === key.table &&
      k.references === key.references &&
      k.columns.join(',') === key.columns.join(',')
    if (present.some(same)) continue
    await sql.run(
      `ALTER TABLE ${key.table} ADD CONSTRAINT ${key.name} FOREIGN KEY (${key.columns.join(', ')}) ` +
        `REFERENCES ${key.references} (${key.referencedColumns.join(', ')})`,
    )
  }
}

/** Tables whose source id column is not yet the Unicode one. */
async function narrowColumns(sql: SqlSession): Promise<string[]> {
  const rows = await sql.all<{ t: string; cs: string | null; n: number | string | null }>(
    `SELECT TABLE_NAME AS t, CHARACTER_SET_NAME AS cs, CHARACTER_MAXIMUM_LENGTH AS n
       FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = DATABASE() AND COLUMN_NAME = 'source_id' AND TABLE_NAME IN (${IN_TABLES})`,
    TABLE_NAMES,
  )
  return rows
    .filter((r) => String(r.cs).toLowerCase() !== 'utf8mb4' || Number(r.n) !== 256)
    .map((r) => String(r.t))
}

/** The foreign keys the four tables have now, one entry per constraint. */
async function existingForeignKeys(sql: SqlSession): Promise<ForeignKey[]> {
  const rows = await sql.all<{ t: string; name: string; col: string; ref: string; rcol: string }>(
    `SELECT TABLE_NAME AS t, CONSTRAINT_NAME AS name, COLUMN_NAME AS col,
            REFERENCED_TABLE_NAME AS ref, REFERENCED_COLUMN_NAME AS rcol
       FROM information_schema.KEY_COLUMN_USAGE
      WHERE TABLE_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME IS NOT NULL
        AND TABLE_NAME IN (${IN_TABLES})
      ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`,
    TABLE_NAMES,
  )
  const keys = new Map<string, { table: string; name: string; columns: string[]; ref: string }>()
  for (const r of rows) {
    const id = `${r.t}\u0000${r.name}`
    let key = keys.get(id)
    if (key === undefined) {
      key = { table: String(r.t), name: String(r.name), columns: [], ref: String(r.ref) }
      keys.set(id, key)
    }
    key.columns.push(String(r.col))
  }
  return [...keys.values()].map((k) => ({
    table: k.table,
    name: k.name,
    columns: k.columns,
    references: k.ref,
    referencedColumns: k.columns,
  }))
}
