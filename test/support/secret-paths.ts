/**
 * Every write path a credential could take into storage, as one function per path that tries to
 * write a text through a real backend and answers whether the write was refused with
 * `secret_detected` (and stored nothing) or went through. Shared by the corpus test
 * (test/storage/secret-corpus.test.ts) and `npm run bench:secrets`. The hooks' path is the rule
 * list the hooks load (integrations/shared/secret-scanner.mjs) applied to the text they would send.
 */
import { loadSecretFinder } from '../../integrations/shared/secret-scanner.mjs'
import { contentHash } from '../../src/core/content-hash.js'
import { PowerContextError } from '../../src/core/errors.js'
import { normalizeText } from '../../src/core/text-rules.js'
import type { ExportRecord } from '../../src/storage/spi/export-types.js'
import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'

export const WRITE_PATHS = [
  'remember',
  'update',
  'merge',
  'capture_content',
  'capture_metadata',
  'import',
  'hooks',
] as const
export type WritePath = (typeof WRITE_PATHS)[number]

/** Opens a fresh, empty backend (the import path needs one per attempt). */
export type OpenBackend = () => Promise<MemoryBackend>

/** `true` when the write was refused with `secret_detected`; `false` when it went through. */
async function refused(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write()
    return false
  } catch (err) {
    if (err instanceof PowerContextError && err.code === 'secret_detected') return true
    throw err
  }
}

let made = 0
const scope = () => `secrets:${++made}`

async function twoMemories(b: MemoryBackend, scopeId: string) {
  const r = await b.remember({
    scopeId,
    entries: [
      { kind: 'fact', text: `first note ${made}` },
      { kind: 'fact', text: `second note ${made}` },
    ],
  })
  return r.results.map((x) => x.memory.memoryRef)
}

/**
 * An export of one memory with `text`: a real export of `source` (a fresh, empty backend) holding
 * one placeholder memory, whose version text and content hash are then replaced.
 */
export async function exportWithText(source: MemoryBackend, text: string): Promise<ExportRecord[]> {
  const placeholder = 'placeholder memory for the import path'
  await source.remember({
    scopeId: 'secrets:import',
    entries: [{ kind: 'fact', text: placeholder }],
  })
  const records: ExportRecord[] = []
  await source.exportRows((r) => void records.push(r))
  const stored = normalizeText(text)
  const hash = (t: string) =>
    contentHash({ kind: 'fact', text: t, sources: [], artifacts: [], observedAt: null })
  const [oldHash, newHash] = [hash(placeholder), hash(stored)]
  return records.map((r) => {
    const swapped = JSON.parse(JSON.stringify(r).replaceAll(oldHash, newHash)) as ExportRecord
    return swapped.type === 'version'
      ? { ...swapped, row: { ...swapped.row, text: stored } }
      : swapped
  })
}

/** Tries one write path with `text` on `backend` (`open` makes fresh ones for imports). */
export async function tryWrite(
  path: WritePath,
  text: string,
  backend: MemoryBackend,
  open: OpenBackend,
): Promise<boolean> {
  const scopeId = scope()
  switch (path) {
    case 'remember':
      return refused(() => backend.remember({ scopeId, entries: [{ kind: 'fact', text }] }))
    case 'update': {
      const [ref] = await twoMemories(backend, scopeId)
      return refused(() => backend.update({ scopeId, memoryRef: ref!, text }))
    }
    case 'merge': {
      const inputs = await twoMemories(backend, scopeId)
      return refused(() => backend.merge({ scopeId, inputs, kind: 'fact', text }))
    }
    case 'capture_content':
      return refused(() => backend.captureSource({ scopeId, content: text }))
    case 'capture_metadata':
      return refused(() =>
        backend.captureSource({ scopeId, content: 'a clean note', metadata: { note: text } }),
      )
    case 'import': {
      const [source, target] = [await open(), await open()]
      try {
        const records = await exportWithText(source, text)
        return await refused(() => target.importRows(records))
      } finally {
        await source.close()
        await target.close()
      }
    }
    case 'hooks':
      return (await loadSecretFinder())(text) !== undefined
  }
}
