/*
 * Real damage to a real SQLite file: one byte of a table's (or index's) own pages flipped on
 * disk, found through SQLite's `dbstat` page map, as a failing disk or a stray write would leave
 * it. The file must be closed (checkpointed) first.
 */
import { readFileSync, writeFileSync } from 'node:fs'

import Database from 'better-sqlite3'

/**
 * Flips one byte (XOR `mask`) at `offset` within the first occurrence of `needle` in the pages
 * of the b-tree `name` (a table or an index); returns the page number.
 * @throws Error when `needle` is not on those pages.
 */
export function flipByte(
  file: string,
  name: string,
  needle: string,
  offset: number,
  mask = 0x40,
): number {
  const db = new Database(file, { readonly: true })
  const pages = db.prepare('SELECT pageno FROM dbstat WHERE name = ?').all(name) as {
    pageno: number
  }[]
  const pageSize = db.pragma('page_size', { simple: true }) as number
  db.close()
  const bytes = readFileSync(file)
  for (const { pageno } of pages) {
    const start = (pageno - 1) * pageSize
    const at = bytes.subarray(start, start + pageSize).indexOf(needle)
    if (at < 0) continue
    const i = start + at + offset
    bytes[i] = (bytes[i] as number) ^ mask
    writeFileSync(file, bytes)
    return pageno
  }
  throw new Error(`${needle} is not on the pages of ${name}`)
}
