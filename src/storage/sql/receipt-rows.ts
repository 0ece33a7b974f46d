/**
 * Row verbs of the receipt log (docs/agents.md "Receipts"), written once over the session every
 * SQL adapter offers (SQL only, no decision). `DialectTx.receipts` carries them.
 */
import type { MemoryUsage, Receipt, ReceiptItem, ReceiptsQuery } from '../../core/receipt-rules.js'
import type { GivenMemory, GivenQuery, ReceiptTx } from '../spi/receipt-types.js'
import type { SqlDialect } from './dialect.js'
import type { SqlSession } from './session.js'

const RECEIPT_COLUMNS = `r.receipt_id AS receiptId, r.scope_id AS scopeId, r.scope_ids_json AS
  scopeIds, r.host, r.session_id AS sessionId, r.event, r.kind, r.status, r.max_bytes AS maxBytes,
  r.content_bytes AS contentBytes, r.token_estimate AS tokenEstimate, r.within_budget AS
  withinBudget, r.duration_ms AS durationMs, r.created_at AS createdAt`

type StoredReceipt = Omit<Receipt, 'items' | 'scopeIds' | 'withinBudget'> & {
  scopeIds: string
  withinBudget: unknown
}
interface StoredItem {
  receiptId: string
  memoryId: string
  revision: unknown
  scopeId: string
  truncated: unknown
}

/** The receipt verbs of one transaction. */
export class ReceiptRows implements ReceiptTx {
  readonly #s: SqlSession
  readonly #d: SqlDialect

  constructor(session: SqlSession, dialect: SqlDialect) {
    this.#s = session
    this.#d = dialect
  }

  async insert(r: Receipt): Promise<void> {
    await this.#s.run(
      `INSERT INTO receipts (receipt_id, scope_id, scope_ids_json, host, session_id, event, kind,
         status, max_bytes, content_bytes, token_estimate, within_budget, duration_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.receiptId,
        r.scopeId,
        JSON.stringify(r.scopeIds),
        r.host,
        r.sessionId,
        r.event,
        r.kind,
        r.status,
        r.maxBytes,
        r.contentBytes,
        r.tokenEstimate,
        r.withinBudget ? 1 : 0,
        r.durationMs,
        r.createdAt,
      ],
    )
    if (r.items.length === 0) return
    await this.#d.insertMany(
      this.#s,
      'INSERT INTO receipt_items (receipt_id, ordinal, memory_id, revision, scope_id, truncated)',
      r.items.map((item, i) => [
        r.receiptId,
        i,
        item.memoryRef.artifactId,
        item.memoryRef.revision,
        item.scopeId,
        item.truncated ? 1 : 0,
      ]),
    )
  }

  async page(q: ReceiptsQuery): Promise<Receipt[]> {
    const where = ['r.scope_id = ?']
    const params: unknown[] = [q.scopeId]
    if (q.sessionId !== undefined) {
      where.push('r.session_id = ?')
      params.push(q.sessionId)
    }
    if (q.memoryId !== undefined) {
      where.push(
        'EXISTS (SELECT 1 FROM receipt_items i WHERE i.receipt_id = r.receipt_id AND i.memory_id = ?)',
      )
      params.push(q.memoryId)
    }
    if (q.before !== undefined) {
      where.push('(r.created_at < ? OR (r.created_at = ? AND r.receipt_id < ?))')
      params.push(q.before.createdAt, q.before.createdAt, q.before.receiptId)
    }
    const rows = await this.#s.all<StoredReceipt>(
      `SELECT ${RECEIPT_COLUMNS} FROM receipts r WHERE ${where.join(' AND ')}
       ORDER BY r.created_at DESC, r.receipt_id DESC LIMIT ?`,
      [...params, q.limit],
    )
    const items = await this.#items(rows.map((r) => r.receiptId))
    return rows.map((r) => ({
      ...r,
      scopeIds: JSON.parse(r.scopeIds) as string[],
      maxBytes: Number(r.maxBytes),
      contentBytes: Number(r.contentBytes),
      tokenEstimate: Number(r.tokenEstimate),
      withinBudget: Number(r.withinBudget) === 1,
      durationMs: Number(r.durationMs),
      items: items.get(r.receiptId) ?? [],
    }))
  }

  async #items(receiptIds: readonly string[]): Promise<Map<string, ReceiptItem[]>> {
    const out = new Map<string, ReceiptItem[]>()
    if (receiptIds.length === 0) return out
    const rows = await this.#s.all<StoredItem>(
      `SELECT receipt_id AS receiptId, memory_id AS memoryId, revision, scope_id AS scopeId,
         truncated FROM receipt_items WHERE receipt_id IN ${this.#d.inList.sql}
       ORDER BY receipt_id, ordinal`,
      [this.#d.inList.bind(receiptIds)],
    )
    for (const r of rows) {
      const list = out.get(r.receiptId) ?? []
      list.push({
        memoryRef: { artifactId: r.memoryId, revision: Number(r.revision) },
        scopeId: r.scopeId,
        truncated: Number(r.truncated) === 1,
      })
      out.set(r.receiptId, list)
    }
    return out
  }

  async usage(scopeId: string, memoryId: string): Promise<MemoryUsage> {
    const row = await this.#s.get<{ injections: unknown; sessions: unknown; lastAt: unknown }>(
      `SELECT COUNT(DISTINCT r.receipt_id) AS injections, COUNT(DISTINCT r.session_id) AS sessions,
         MAX(r.created_at) AS lastAt
       FROM receipt_items i JOIN receipts r ON r.receipt_id = i.receipt_id
       WHERE i.memory_id = ? AND r.scope_id = ?`,
      [memoryId, scopeId],
    )
    return {
      injections: Number(row?.injections ?? 0),
      sessions: Number(row?.sessions ?? 0),
      lastAt: typeof row?.lastAt === 'string' ? row.lastAt : null,
    }
  }

  async given(q: GivenQuery): Promise<GivenMemory[]> {
    if (q.scopeIds.length === 0 || q.kinds.length === 0) return []
    const { sql, bind } = this.#d.inList
    const rows = await this.#s.all<{ memoryId: string; scopeId: string; sessions: unknown }>(
      `SELECT i.memory_id AS memoryId, m.scope_id AS scopeId,
         COUNT(DISTINCT r.session_id) AS sessions, MAX(r.created_at) AS lastAt
       FROM (SELECT receipt_id, session_id, created_at FROM receipts WHERE scope_id IN ${sql}
             ORDER BY created_at DESC, receipt_id DESC LIMIT ?) r
       JOIN receipt_items i ON i.receipt_id = r.receipt_id
       JOIN memories m ON m.memory_id = i.memory_id AND m.current_version = i.revision
       WHERE i.scope_id IN ${sql} AND m.state = 'active' AND m.kind IN ${sql}
       GROUP BY i.memory_id, m.scope_id
       ORDER BY sessions DESC, lastAt DESC, i.memory_id LIMIT ?`,
      [bind(q.scopeIds), q.window, bind(q.scopeIds), bind(q.kinds), q.limit],
    )
    return rows.map((r) => ({
      memoryId: r.memoryId,
      scopeId: r.scopeId,
      sessions: Number(r.sessions),
    }))
  }

  async oldest(before: string | undefined, limit: number): Promise<string[]> {
    const rows = await this.#s.all<{ receiptId: string }>(
      `SELECT receipt_id AS receiptId FROM receipts ${before === undefined ? '' : 'WHERE created_at < ?'}
       ORDER BY created_at, receipt_id LIMIT ?`,
      before === undefined ? [limit] : [before, limit],
    )
    return rows.map((r) => r.receiptId)
  }

  async delete(receiptIds: readonly string[]): Promise<number> {
    if (receiptIds.length === 0) return 0
    const { sql, bind } = this.#d.inList
    await this.#s.run(`DELETE FROM receipt_items WHERE receipt_id IN ${sql}`, [bind(receiptIds)])
    const r = await this.#s.run(`DELETE FROM receipts WHERE receipt_id IN ${sql}`, [
      bind(receiptIds),
    ])
    return r.changes
  }

  async count(): Promise<number> {
    const row = await this.#s.get<{ n: unknown }>('SELECT COUNT(*) AS n FROM receipts')
    return Number(row?.n ?? 0)
  }
}
