/**
 * A sample SQLite file for the benches that time whole-file work (open, verify): `memories`
 * short facts in batches of 100 over 10 scopes; `updateEvery` n updates every n-th memory once.
 */
import { openSqliteBackend } from '../src/storage/sqlite/index.js'

/** Writes the sample memories to a new file at `file`. */
export async function writeSampleMemories(
  file: string,
  memories: number,
  updateEvery = 0,
): Promise<void> {
  const writer = await openSqliteBackend({ database: file, vectorAnn: false })
  for (let i = 0; i * 100 < memories; i += 1) {
    const entries = Array.from({ length: Math.min(100, memories - i * 100) }, (_, j) => ({
      kind: 'fact',
      text: `memory ${i}-${j} about the deploy pipeline and the retry budget of service ${j % 17} in region ${i % 5}`,
    }))
    const scopeId = `bench:${i % 10}`
    const { results } = await writer.remember({ scopeId, entries })
    if (updateEvery <= 0) continue
    for (const r of results.filter((_, k) => k % updateEvery === 0)) {
      await writer.update({ scopeId, memoryRef: r.memory.memoryRef, text: `${r.memory.text} (v2)` })
    }
  }
  await writer.close()
}
