import type { ArtifactRef, SourceRef, VersionContent } from '../../core/memory-model.js'
import type { DialectTx } from '../spi/dialect-tx.js'
import type { PreparedVectors, TxRunner } from './vectors/vector-support.js'

/**
 * What an operation of `ops/` needs of its backend: each operation checks its command, prepares
 * its write context (embedding outside any transaction) and runs its body in one transaction.
 */
export interface OpDeps {
  readonly run: TxRunner
  /** The write context, with vectors embedded (outside any transaction) for the given texts. */
  readonly context: (texts?: readonly string[]) => Promise<WriteContext>
  /** Texts a write will project, read in a snapshot; none when vectors are off or it fails. */
  readonly textsToProject: (plan: (tx: DialectTx) => Promise<string[]>) => Promise<string[]>
}

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
