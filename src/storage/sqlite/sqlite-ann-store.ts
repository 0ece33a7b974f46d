import { createHash, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'

import type { HierarchicalNSW } from 'hnswlib-node'

import type { AnnStamp } from './sqlite-ann-types.js'
import type { Hnswlib } from './sqlite-ann-types.js'
import { scopeHash } from './sqlite-search.js'

/**
 * A graph as saved next to the database, so that a restarted process loads it (≈ 1 s for 100,000
 * vectors) instead of building it again (≈ 1 min). The files are a cache: whatever does not match
 * the database exactly is ignored and rebuilt.
 */
export interface SavedGraph {
  readonly index: HierarchicalNSW
  readonly meta: SavedGraphMeta
}

/** Everything a saved index needs to be trusted and used. */
export interface SavedGraphMeta {
  readonly format: 1
  /** `database_identity.database_id` of the database it was built from. */
  readonly databaseId: string
  readonly scopeId: string
  readonly dimension: number
  readonly m: number
  readonly efConstruction: number
  /** The log position and vector epoch the graph is exactly in step with. */
  readonly stamp: AnnStamp
  /** The memory of the log entry at `stamp.logSeq` (null at 0): the database's history matches. */
  readonly lastLogMemoryId: string | null
  /** The index file (immutable once written; a new save writes a new one). */
  readonly indexFile: string
  /**
   * SHA-256 of the index file, checked before hnswlib reads it: the native reader trusts its input,
   * and a damaged cache file must cost a rebuild, never the process.
   */
  readonly indexSha256: string
  /** Live nodes: [memory id, label (projection id)]. */
  readonly labels: readonly (readonly [string, number])[]
  /** Labels marked deleted in the index. */
  readonly deleted: readonly number[]
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}

const fileKey = scopeHash

/**
 * Saved graphs in one directory (`<database>.graphs/`): per scope a `<key>.json` meta file naming
 * a `<key>-<nonce>.hnsw` index. A save writes the index under a fresh name, then replaces the meta
 * file by rename, so a reader sees an old or a new pair, never a mix; index files no meta names
 * any more are removed after the rename.
 */
export class GraphStore {
  readonly #dir: string
  readonly #hnswlib: Hnswlib

  constructor(dir: string, hnswlib: Hnswlib) {
    this.#dir = dir
    this.#hnswlib = hnswlib
  }

  /** Writes the index (on a worker thread) and its meta; the caller must not change the index meanwhile. */
  async save(
    index: HierarchicalNSW,
    meta: Omit<SavedGraphMeta, 'indexFile' | 'indexSha256'>,
  ): Promise<void> {
    await mkdir(this.#dir, { recursive: true })
    const key = fileKey(meta.scopeId)
    const indexFile = `${key}-${randomBytes(8).toString('hex')}.hnsw`
    await index.writeIndex(join(this.#dir, indexFile))
    const indexSha256 = await sha256Of(join(this.#dir, indexFile))
    const tmp = join(this.#dir, `${key}.json.${randomBytes(8).toString('hex')}.tmp`)
    await writeFile(tmp, JSON.stringify({ ...meta, indexFile, indexSha256 }))
    await rename(tmp, join(this.#dir, `${key}.json`))
    for (const name of await readdir(this.#dir)) {
      if (name.startsWith(`${key}-`) && name.endsWith('.hnsw') && name !== indexFile) {
        await rm(join(this.#dir, name), { force: true })
      }
    }
  }

  /** Deletes the scope's saved graph (meta and index files); none is fine. */
  async remove(scopeId: string): Promise<void> {
    const key = fileKey(scopeId)
    const names = await readdir(this.#dir).catch(() => [] as string[])
    for (const name of names) {
      if (name === `${key}.json` || (name.startsWith(`${key}-`) && name.endsWith('.hnsw'))) {
        await rm(join(this.#dir, name), { force: true })
      }
    }
  }

  /** The saved graph of the scope, or undefined when there is none or it cannot be read. */
  async load(scopeId: string, dimension: number): Promise<SavedGraph | undefined> {
    let meta: SavedGraphMeta
    try {
      meta = JSON.parse(
        await readFile(join(this.#dir, `${fileKey(scopeId)}.json`), 'utf8'),
      ) as SavedGraphMeta
    } catch {
      return undefined
    }
    if (meta.format !== 1 || meta.scopeId !== scopeId || meta.dimension !== dimension) {
      return undefined
    }
    const path = join(this.#dir, meta.indexFile)
    const index = new this.#hnswlib.HierarchicalNSW('l2', dimension)
    try {
      if ((await sha256Of(path)) !== meta.indexSha256) return undefined // damaged
      await index.readIndex(path, false)
    } catch {
      return undefined // replaced by another process's save meanwhile
    }
    if (index.getCurrentCount() !== meta.labels.length + meta.deleted.length) return undefined
    return { index, meta }
  }
}
