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
