/**
 * What kind of task event a captured source is, and how flush treats each kind (docs/sources-and-flush.md,
 * "Media types and source kinds"): explicit memory entries, task outcomes (a hook's `Stop`),
 * Git changes (`capture git`), user prompts (a hook's `UserPromptSubmit`, recognised by the
 * metadata the hooks and the reference plugins send) and any other content. Pure, no I/O.
 */
import { mediaTypeEssence, MEMORY_MEDIA_TYPE, TASK_OUTCOME_MEDIA_TYPE } from './extraction-rules.js'
import { GIT_CHANGE_MEDIA_TYPE } from './git-change.js'

/** Every source kind, in the order capabilities list them. */
export const SOURCE_KINDS = ['memory', 'task_outcome', 'git_change', 'prompt', 'content'] as const
export type SourceKind = (typeof SOURCE_KINDS)[number]

/** `metadata.event` of a captured user prompt (the hooks and the reference's plugins). */
export const PROMPT_EVENT = 'user_prompt_submit'

/**
 * How flush treats a kind: `structured` (its entries are candidates as they are), `working_note`
 * (one mechanical note), `extracted` (retrieve-then-decide with the generation model, with the
 * kind's own guidance in the proposing prompt) or `evidence_only` (kept as evidence, no memory
 * from it).
 */
export type SourceHandling = 'structured' | 'working_note' | 'extracted' | 'evidence_only'

/** The kind of a source, from its media type and, for a free-text source, its metadata. */
export function sourceKind(source: {
  readonly mediaType: string
  readonly metadata: Readonly<Record<string, unknown>> | null
}): SourceKind {
  const essence = mediaTypeEssence(source.mediaType)
  if (essence === MEMORY_MEDIA_TYPE) return 'memory'
  if (essence === TASK_OUTCOME_MEDIA_TYPE) return 'task_outcome'
  if (essence === GIT_CHANGE_MEDIA_TYPE) return 'git_change'
  return source.metadata?.['event'] === PROMPT_EVENT ? 'prompt' : 'content'
}

/** How each kind is handled with or without a generation model. */
export function sourceHandling(withModel: boolean): Readonly<Record<SourceKind, SourceHandling>> {
  const free: SourceHandling = withModel ? 'extracted' : 'evidence_only'
  return Object.freeze({
    memory: 'structured',
    task_outcome: withModel ? 'extracted' : 'working_note',
    git_change: free,
    prompt: free,
    content: free,
  })
}
