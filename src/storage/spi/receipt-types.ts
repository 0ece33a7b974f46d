/*
 * Receipts (docs/agents.md "Receipts"): what prepared context gave each agent session. An
 * operational log beside the memory tables: memory refs and sizes only, never text; not exported;
 * pruned by age and count. The row verbs an adapter offers inside one transaction (SQL
 * only) and the backend's port.
 */
import type {
  MemoryUsage,
  Receipt,
  ReceiptRetention,
  ReceiptsQuery,
} from '../../core/receipt-rules.js'

/** A memory whose current version sessions were given, and in how many distinct sessions. */
export interface GivenMemory {
  readonly memoryId: string
  readonly scopeId: string
  readonly sessions: number
}

/**
 * What to read of the given memories: active ones of these scopes and kinds, most given first,
 * counted over the newest `window` receipts of the scopes (so the read stays bounded).
 */
export interface GivenQuery {
  readonly scopeIds: readonly string[]
  readonly kinds: readonly string[]
  readonly window: number
  readonly limit: number
}

/** The receipt verbs of one transaction. */
export interface ReceiptTx {
  /** Inserts a receipt and its items. */
  insert(receipt: Receipt): Promise<void>
  /** One page of the query, newest first (`created_at`, then receipt id, descending). */
  page(q: ReceiptsQuery): Promise<Receipt[]>
  /** How often the scope's kept receipts injected the memory. */
  usage(scopeId: string, memoryId: string): Promise<MemoryUsage>
  /**
   * Active memories of the scopes and kinds whose current version the newest `window` receipts
   * of the scopes name: most distinct sessions first, then the latest receipt first, at most
   * `limit`.
   */
  given(q: GivenQuery): Promise<GivenMemory[]>
  /** Ids of the oldest receipts (created before `before`, when given), oldest first, at most `limit`. */
  oldest(before: string | undefined, limit: number): Promise<string[]>
  /** Deletes the receipts (and their items) of these ids. */
  delete(receiptIds: readonly string[]): Promise<number>
  /** Number of kept receipts. */
  count(): Promise<number>
}

/** The backend's receipt log: validated reads, writes in their own transactions. */
export interface ReceiptLogPort {
  /** Records a receipt (one transaction). */
  record(receipt: Receipt): Promise<void>
  /** One page of receipts, newest first, with the memory's usage when `memoryId` is given. */
  list(q: ReceiptsQuery): Promise<{ receipts: Receipt[]; usage: MemoryUsage | null }>
  /** Memories of the scopes whose current version sessions were given; see {@link ReceiptTx.given}. */
  given(q: GivenQuery): Promise<GivenMemory[]>
  /** Prunes by age and count in bounded batches; returns how many receipts were removed. */
  prune(retention: ReceiptRetention): Promise<number>
}
