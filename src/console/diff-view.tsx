import { diffWords } from 'diff'

import type { Memory } from '../client/index.js'

/** A word diff (jsdiff) from one version's text to another's; kind changes are named. */
export function Diff({ before, after }: { before: Memory; after: Memory }) {
  const parts = diffWords(before.text, after.text)
  return (
    <p class="diff" aria-label={`Changes from revision ${before.memory_ref.revision}`}>
      {before.kind !== after.kind && (
        <span class="muted">
          kind {before.kind} → {after.kind}:{' '}
        </span>
      )}
      {parts.map((p, i) =>
        p.added ? (
          <ins key={i}>{p.value}</ins>
        ) : p.removed ? (
          <del key={i}>{p.value}</del>
        ) : (
          <span key={i}>{p.value}</span>
        ),
      )}
    </p>
  )
}
