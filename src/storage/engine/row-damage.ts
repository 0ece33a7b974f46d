/*
 * Stored rows that no longer read back as written (a flipped byte, a hand edit, a broken disk):
 * each is a typed `storage_unavailable` with `details.reason` `corrupt` naming the row, never an
 * untyped failure and never served as data (docs/storage.md#damage-verify-and-salvage).
 */
import { PowerContextError } from '../../core/errors.js'
import { isPrintableId } from '../../core/ids.js'
import type { ChangeRow, MemoryRow, VersionRow } from '../spi/dialect-tx.js'

/** How a damaged row is named in errors, verify reports and salvage lists. */
export const rowName = {
  memory: (id: string): string => `memories ${printable(id)}`,
  version: (id: string, version: number): string => `memory_versions ${printable(id)}@${version}`,
  change: (scopeId: string, seq: number): string => `memory_changes ${printable(scopeId)}#${seq}`,
  head: (id: string): string => `memory_heads ${printable(id)}`,
} as const

/** An id as it can be shown: control and non-ASCII characters escaped. */
export function printable(id: string): string {
  return JSON.stringify(id)
    .slice(1, -1)
    .replace(/[^\x20-\x7E]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** A problem without the row name verify puts before it (`version mem_…@2: …`). */
export function problemOnly(problem: string): string {
  return problem.replace(/^version \S+: /, '')
}

/** The typed error of one damaged row. */
export function damagedRow(row: string, problem: string): PowerContextError {
  return new PowerContextError(
    'storage_unavailable',
    `stored row ${row} is damaged (${problemOnly(problem)}); run \`powercontext admin verify\`, then restore a backup or \`powercontext admin salvage\``,
    { reason: 'corrupt', row },
  )
}

/** Problems of a memory row's keys (ids that no write could have stored). */
export function memoryKeyProblems(row: MemoryRow): string[] {
  const problems: string[] = []
  if (!isPrintableId(row.memoryId)) problems.push('memory_id is not a well-formed id')
  if (!isPrintableId(row.scopeId)) problems.push('scope_id is not a well-formed id')
  if (row.mergedInto !== null && !isPrintableId(row.mergedInto))
    problems.push('merged_into is not a well-formed id')
  return problems
}

/** Problems of a version row's keys. */
export function versionKeyProblems(row: VersionRow): string[] {
  const problems: string[] = []
  if (!isPrintableId(row.memoryId)) problems.push('memory_id is not a well-formed id')
  if (!isPrintableId(row.scopeId)) problems.push('scope_id is not a well-formed id')
  return problems
}

/** Problems of a change row's keys. */
export function changeKeyProblems(row: ChangeRow): string[] {
  const problems: string[] = []
  if (!isPrintableId(row.memoryId)) problems.push('memory_id is not a well-formed id')
  if (!isPrintableId(row.scopeId)) problems.push('scope_id is not a well-formed id')
  return problems
}

/** Throws {@link damagedRow} for the first problem, if any. */
export function requireSound(row: string, problems: readonly string[]): void {
  const first = problems[0]
  if (first !== undefined) throw damagedRow(row, first)
}
