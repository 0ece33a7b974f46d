/**
 * The small session every SQL verb is written over: one connection inside one
 * transaction, three shapes of statement. Statements use `?` placeholders and bind every value;
 * no value is ever spliced into SQL text. Adapters implement it over their driver.
 */
export interface SqlSession {
  /** Every row of a query, in the statement's order. */
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>
  /** The first row of a query, if any. */
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>
  /** A statement's matched rows (`changes`). */
  run(sql: string, params?: readonly unknown[]): Promise<SqlRunResult>
}

/** What a statement did. */
export interface SqlRunResult {
  /** Rows the statement matched (MySQL: `FOUND_ROWS` semantics; SQLite: changed rows). */
  readonly changes: number
}
