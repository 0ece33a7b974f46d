import type { VersionRow } from '../../spi/rows.js'

/** Bytes a version or transition adds to an answer beyond its texts (ids, times, field names). */
export const ROW_OVERHEAD_BYTES = 256

/** What one version adds to a read answer (`list`, `history`): its texts plus the overhead. */
export function versionBytes(v: VersionRow): number {
  return (
    ROW_OVERHEAD_BYTES +
    Buffer.byteLength(v.text) +
    Buffer.byteLength(v.kind) +
    Buffer.byteLength(v.sourcesJson) +
    Buffer.byteLength(v.artifactsJson) +
    Buffer.byteLength(v.reason ?? '')
  )
}
