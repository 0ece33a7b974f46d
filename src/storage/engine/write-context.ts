import type { ArtifactRef, SourceRef, VersionContent } from '../../core/memory-model.js'
import type { PreparedVectors } from './vectors/vector-support.js'

/** Context shared by the rows of one write request. */
export interface WriteContext {
  readonly operationId: string
  readonly at: string
  readonly newMemoryId: () => string
  /** Vectors embedded before the transaction for the texts it will project (none: FTS only). */
  readonly vectors?: PreparedVectors | undefined
}

export interface CheckedEntry {
  readonly content: VersionContent
  readonly reason: string | null
}

export interface CheckedUpdate {
  readonly scopeId: string
  readonly memoryRef: ArtifactRef
  readonly text: string | undefined
  readonly kind: string | undefined
  readonly sources: readonly SourceRef[]
  readonly observedAt: string | null | undefined
  readonly reason: string | null
}
