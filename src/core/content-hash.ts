import { createHash } from 'node:crypto'

import { canonicalJson, normalizeRefList } from './canonical.js'
import type { ArtifactRef, SourceRef, VersionContent } from './memory-model.js'

/** Domain prefix of a version content hash; changing it is a migration. */
export const VERSION_CONTENT_DOMAIN = 'powercontext:memory-version-content:v1'

/** Wire/canonical form of a source ref. */
export function sourceRefJson(ref: SourceRef): { name: string; source_id: string } {
  return { name: ref.name, source_id: ref.sourceId }
}

/** Wire/canonical form of an exact memory ref. */
export function artifactRefJson(ref: ArtifactRef): { artifact_id: string; revision: number } {
  return { artifact_id: ref.artifactId, revision: ref.revision }
}

/** Sorts and de-duplicates source refs by canonical bytes. */
export function normalizeSourceRefs(refs: readonly SourceRef[]): SourceRef[] {
  const normalized = refs.map((r) => ({ name: r.name, sourceId: r.sourceId.normalize('NFC') }))
  return normalizeRefList(normalized.map(sourceRefJson), 'sources').map((j) => ({
    name: j.name as SourceRef['name'],
    sourceId: j.source_id,
  }))
}

/** Sorts and de-duplicates artifact refs by canonical bytes. */
export function normalizeArtifactRefs(refs: readonly ArtifactRef[]): ArtifactRef[] {
  return normalizeRefList(refs.map(artifactRefJson), 'artifacts').map((j) => ({
    artifactId: j.artifact_id,
    revision: j.revision,
  }))
}

/**
 * Canonical content of a version: RFC 8785 JSON of `{kind, text, sources, artifacts,
 * observed_at}` with refs in canonical order. Two versions with equal canonical content are the
 * same memory content.
 */
export function canonicalContent(content: VersionContent): string {
  return canonicalJson(
    {
      kind: content.kind,
      text: content.text,
      sources: normalizeSourceRefs(content.sources).map(sourceRefJson),
      artifacts: normalizeArtifactRefs(content.artifacts).map(artifactRefJson),
      observed_at: content.observedAt,
    },
    'content',
  )
}

/** SHA-256 over the domain prefix, NUL, and the canonical content; 64 lowercase hex digits. */
export function hashCanonicalContent(canonical: string): string {
  return createHash('sha256')
    .update(VERSION_CONTENT_DOMAIN)
    .update('\u0000')
    .update(canonical, 'utf8')
    .digest('hex')
}

/** Content hash of a version's content. */
export function contentHash(content: VersionContent): string {
  return hashCanonicalContent(canonicalContent(content))
}

/**
 * Content equality: hashes must match and then the canonical bytes themselves are compared, so a
 * hash collision can never make two different contents equal.
 */
export function sameContent(a: VersionContent, b: VersionContent): boolean {
  const ca = canonicalContent(a)
  const cb = canonicalContent(b)
  return hashCanonicalContent(ca) === hashCanonicalContent(cb) && ca === cb
}
