/**
 * A read-only session on a database written by the Python reference (docs/upgrade.md). The SQLite
 * and MySQL-family adapters open one (`storage/sqlite/reference-sqlite.ts`,
 * `storage/mysql/reference-mysql.ts`); everything above reads through it with plain SQL that
 * both dialects run unchanged (`?` parameters, keyset pages, no driver-specific syntax).
 */
export interface ReferenceSession {
  readonly kind: 'sqlite' | 'mysql'
  /** Where the reference database is: its file path, or its URL without the password. */
  readonly origin: string
  /** How writers are kept out while the session is open (printed by the preflight). */
  readonly writeGuard: string
  /** Observations about the old database worth printing (e.g. a WAL file from another process). */
  readonly notes: readonly string[]
  /** Every row of a query; BLOB columns come back as bytes. */
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>
  /** The column names of a table, or undefined when it does not exist. */
  columns(table: string): Promise<string[] | undefined>
  /** Every table name of the database. */
  tables(): Promise<string[]>
  /** Ends the session (releases its lock; nothing was written). */
  close(): Promise<void>
}

/** `?, ?, …` for a list of `n` parameters (an explicit IN list both drivers bind the same way). */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ')
}
