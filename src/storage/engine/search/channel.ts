import type { ChannelHit } from '../../../core/search-rules.js'

/** A validated search request. */
export interface CheckedSearch {
  readonly scopeId: string
  readonly query: string
  readonly limit: number
  readonly kinds: string[] | undefined
}

/** One channel's admitted hits in channel order, with the text and kind of each memory. */
export interface ChannelResult {
  readonly hits: readonly ChannelHit[]
  readonly texts: ReadonlyMap<string, { readonly kind: string; readonly text: string }>
  /** True when no candidate past the channel's pool could still be admitted. */
  readonly complete: boolean
}
