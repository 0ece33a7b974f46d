import type { SourceType } from '../../core/memory-model.js'

export interface SourceRow {
  readonly scopeId: string
  readonly sourceType: SourceType
  readonly sourceId: string
  readonly position: number
  readonly payloadHash: string
  readonly payload: string
  readonly createdAt: string
}

/**
 * A source row with its payload as the stored UTF-8 bytes: a read that answers a large source
 * makes no string of it (no megabyte on the JavaScript heap per read).
 */
export interface SourceBytesRow extends Omit<SourceRow, 'payload'> {
  readonly payload: Uint8Array
}
