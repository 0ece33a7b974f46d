/*
 * The data directory's filesystem, as a person must act on it (docs/server.md#readiness): a full
 * disk or a read-only directory, at open (say which, and what to do, instead of SQLite's "disk
 * I/O error" / "unable to open database file") and in readiness (reported before a write fails).
 */
import { accessSync, constants, statfsSync } from 'node:fs'

import type { PowerContextError } from '../../core/errors.js'
import { storageUnavailable } from '../sql/storage-health.js'

/**
 * Free bytes below which the disk counts as full: a write needs room for its WAL frames, and
 * SQLite's own "disk full" arrives only once the write is under way.
 */
export const MIN_FREE_BYTES = 1024 * 1024

/** What is wrong with the filesystem of `dir`, or undefined when it can take writes. */
export function diskProblem(dir: string): 'disk_full' | 'read_only' | undefined {
  try {
    accessSync(dir, constants.W_OK)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return 'read_only'
    return undefined
  }
  try {
    const fs = statfsSync(dir)
    return fs.bavail * fs.bsize < MIN_FREE_BYTES ? 'disk_full' : undefined
  } catch {
    return undefined
  }
}

/**
 * The open error of a database in `dir` when its filesystem explains it: `storage_unavailable`
 * with `details.reason` `disk_full` or `read_only`; undefined otherwise.
 */
export function openFailureOfDisk(
  path: string,
  dir: string,
  cause: unknown,
): PowerContextError | undefined {
  const problem = diskProblem(dir)
  if (problem === 'disk_full') {
    return storageUnavailable(
      'disk_full',
      `cannot open SQLite database ${path}: the disk is full (less than ${MIN_FREE_BYTES / 1024 / 1024} MiB free on the filesystem of ${dir}); free space there, then start again`,
      cause,
    )
  }
  if (problem === 'read_only') {
    return storageUnavailable(
      'read_only',
      `cannot open SQLite database ${path}: the data directory ${dir} is read-only; make it writable (or mount it read-write), or choose another --data-dir`,
      cause,
    )
  }
  return undefined
}
