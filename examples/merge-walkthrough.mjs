// The A,B→C; C,D→E walk-through of docs/merges.md, runnable: `npm run build && node examples/merge-walkthrough.mjs`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { MemoryRuntime } from '../dist/index.js'

const dataDir = mkdtempSync(join(tmpdir(), 'pc-merge-walkthrough-'))
const rt = await MemoryRuntime.open({ dataDir })
const scope = 'example:merges'
const names = new Map()
const name = (id) => names.get(id) ?? id
const show = (memories) =>
  memories.map((m) => `${name(m.memoryRef.artifactId)}@${m.memoryRef.revision}`).join(', ')

try {
  const remember = async (label, text) => {
    const { results } = await rt.remember({ scopeId: scope, entries: [{ kind: 'fact', text }] })
    names.set(results[0].memory.memoryRef.artifactId, label)
    return results[0].memory.memoryRef
  }
  const A = await remember('A', 'Deploys go to the East China region')
  const B = await remember('B', 'Deploys need an owner approval')
  const D = await remember('D', 'Deploys are frozen on Fridays')

  const c = await rt.merge({
    scopeId: scope,
    inputs: [A, B],
    kind: 'fact',
    text: 'Deploys go to East China and need an owner approval',
  })
  names.set(c.memory.memoryRef.artifactId, 'C')
  console.log(
    `merge A,B → C: inputs now ${c.inputs.map((m) => `${name(m.memoryRef.artifactId)}=${m.state}`).join(', ')}`,
  )

  const e = await rt.merge({
    scopeId: scope,
    inputs: [c.memory.memoryRef, D],
    kind: 'fact',
    text: 'Deploys go to East China, need an owner approval, and are frozen on Fridays',
  })
  names.set(e.memory.memoryRef.artifactId, 'E')
  console.log(
    `merge C,D → E: inputs now ${e.inputs.map((m) => `${name(m.memoryRef.artifactId)}=${m.state}`).join(', ')}`,
  )

  const hits = await rt.search({ scopeId: scope, query: 'deploys owner approval' })
  console.log(`search finds: ${hits.hits.map((h) => name(h.memoryRef.artifactId)).join(', ')}`)

  const preview = await rt.restorePreview({ scopeId: scope, memoryId: B.artifactId })
  const refs = (list) => list.map((r) => `${name(r.memoryId)}@${r.version}`).join(', ')
  console.log(
    `preview restore B: restore [${refs(preview.plan.restore)}], retire [${refs(preview.plan.retire)}], leaving search [${refs(preview.plan.leavingSearch)}]`,
  )

  const restored = await rt.restore({
    scopeId: scope,
    memoryId: B.artifactId,
    previewToken: preview.previewToken,
    reason: 'the merge lost the Friday freeze nuance',
  })
  console.log(
    `restore B (${restored.status}): restored [${show(restored.restored)}], retired [${show(restored.retired)}]`,
  )

  const after = await rt.search({ scopeId: scope, query: 'deploys owner approval' })
  console.log(`search finds: ${after.hits.map((h) => name(h.memoryRef.artifactId)).join(', ')}`)

  const history = await rt.history({ scopeId: scope, memoryId: c.memory.memoryRef.artifactId })
  console.log(
    `history of C: state ${history.state}; merges ${history.merges.map((m) => `${m.state} ${name(m.resultId)}←${m.inputs.map((i) => name(i.artifactId)).join('+')}`).join('; ')}`,
  )
  console.log(`verify: ${(await rt.verify()).ok ? 'ok' : 'FAILED'}`)
} finally {
  await rt.close()
  rmSync(dataDir, { recursive: true, force: true })
}
