import type {
  MemoryUsage,
  Receipt,
  ReceiptRetention,
  ReceiptsQuery,
} from '../../../core/receipt-rules.js'
import type { GivenMemory, GivenQuery, ReceiptLogPort } from '../../spi/receipt-types.js'
import type { TxRunner } from '../vectors/vector-support.js'

/** Receipts removed per prune transaction, so a prune never holds the write lock for long. */
export const RECEIPT_PRUNE_BATCH = 500

/**
 * The receipt log of a backend (docs/agents.md "Receipts"): each record is its own small write
 * transaction; reads run in one snapshot. Queries arrive validated (`checkReceiptsQuery`).
 */
export class ReceiptLog implements ReceiptLogPort {
  readonly #run: TxRunner
  readonly #now: () => Date

  constructor(run: TxRunner, now: () => Date) {
    this.#run = run
    this.#now = now
  }

  record(receipt: Receipt): Promise<void> {
    return this.#run.write((tx) => tx.receipts.insert(receipt))
  }

  list(q: ReceiptsQuery): Promise<{ receipts: Receipt[]; usage: MemoryUsage | null }> {
    return this.#run.read(async (tx) => ({
      receipts: await tx.receipts.page(q),
      usage: q.memoryId === undefined ? null : await tx.receipts.usage(q.scopeId, q.memoryId),
    }))
  }

  given(q: GivenQuery): Promise<GivenMemory[]> {
    return this.#run.read((tx) => tx.receipts.given(q))
  }

  /**
   * Removes receipts older than `keepDays`, then the oldest beyond the newest `keepCount`, in
   * batches of {@link RECEIPT_PRUNE_BATCH}, each its own write transaction.
   */
  async prune(retention: ReceiptRetention): Promise<number> {
    const cutoff = new Date(this.#now().getTime() - retention.keepDays * 86_400_000).toISOString()
    let removed = 0
    for (;;) {
      const n = await this.#run.write(async (tx) => {
        let ids = await tx.receipts.oldest(cutoff, RECEIPT_PRUNE_BATCH)
        if (ids.length === 0) {
          const over = (await tx.receipts.count()) - retention.keepCount
          if (over > 0)
            ids = await tx.receipts.oldest(undefined, Math.min(over, RECEIPT_PRUNE_BATCH))
        }
        return tx.receipts.delete(ids)
      })
      removed += n
      if (n === 0) return removed
    }
  }
}
