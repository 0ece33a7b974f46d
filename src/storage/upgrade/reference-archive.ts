/**
 * What stays behind in the old database (the archive, docs/upgrade.md): artifacts of families
 * with no counterpart here (experience, skill, handoff, …), review candidates, statistics and
 * index rows. The preflight counts them so that the report says what does not move.
 */
import type { ReferenceSchema } from './reference-schema.js'
import type { ReferenceSession } from './reference-session.js'

/** One line of the archive report: what it is and how many rows (null: could not be counted). */
export interface ArchiveCount {
  readonly what: string
  readonly count: number | null
}

/** Counts the rows the upgrade leaves in the old database. */
export async function archiveCounts(
  s: ReferenceSession,
  schema: ReferenceSchema,
): Promise<ArchiveCount[]> {
  const out: ArchiveCount[] = []
  // No table aliases: a MySQL session under LOCK TABLES may only name the locked tables.
  const heads = await s.all<{ family: string; n: number }>(
    `SELECT family, COUNT(*) AS n FROM pc_artifact_heads WHERE family <> 'memory'
     GROUP BY family ORDER BY family`,
  )
  const revisions = await s.all<{ family: string; n: number }>(
    `SELECT family, COUNT(*) AS n FROM pc_artifacts WHERE family <> 'memory' GROUP BY family`,
  )
  for (const f of heads) {
    const r = revisions.find((x) => x.family === f.family)?.n ?? 0
    out.push({ what: `${String(f.family)} artifacts (${Number(r)} revisions)`, count: Number(f.n) })
  }
  for (const [table, what] of schema.archive) {
    // Virtual tables may need an extension this process does not load: present, not counted.
    const rows = await s.all<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).catch(() => null)
    const count = rows === null ? null : Number(rows[0]?.n ?? 0)
    if (count !== 0) out.push({ what: `${what} (${table})`, count })
  }
  return out
}
