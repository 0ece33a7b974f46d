import { Graph, layout } from '@dagrejs/dagre'
import { useMemo } from 'preact/hooks'

import type { HistoryResponse, MergeRelation } from '../client/index.js'
import { useConsole } from './context.js'
import { useLoad } from './hooks.js'
import { go, href } from './routes.js'
import { ErrorBox, Section, shortId } from './ui.js'

/** Memories the walk reads at most (each is one `history` call). */
const MAX_NODES = 40
const NODE_W = 210
const NODE_H = 58

interface GraphNode {
  readonly id: string
  readonly state: string
  readonly kind: string
  readonly revision: number
  readonly text: string
}

interface Walk {
  readonly nodes: ReadonlyMap<string, GraphNode>
  readonly merges: readonly MergeRelation[]
  readonly truncated: boolean
}

/**
 * Walks the merge relations around a memory through `history`: every merge it took part in, as
 * input or result, then the same for each memory reached, across cascades (A,B→C; C,D→E).
 */
async function walkMerges(
  read: (memoryId: string) => Promise<HistoryResponse>,
  root: HistoryResponse,
): Promise<Walk> {
  const nodes = new Map<string, GraphNode>()
  const merges = new Map<string, MergeRelation>()
  const queue: string[] = []
  let truncated = false
  const visit = (h: HistoryResponse) => {
    const current = h.versions.find((v) => v.memory_ref.revision === h.current_revision)
    nodes.set(h.memory_id, {
      id: h.memory_id,
      state: h.state,
      kind: current?.kind ?? '',
      revision: h.current_revision,
      text: current?.text ?? '',
    })
    for (const m of h.merges) {
      merges.set(m.merge_id, m)
      for (const id of [m.result_id, ...m.inputs.map((i) => i.artifact_id)])
        if (!nodes.has(id) && !queue.includes(id)) queue.push(id)
    }
  }
  visit(root)
  while (queue.length > 0) {
    if (nodes.size >= MAX_NODES) {
      truncated = true
      break
    }
    visit(await read(queue.shift()!))
  }
  const known = [...merges.values()].filter(
    (m) => nodes.has(m.result_id) && m.inputs.every((i) => nodes.has(i.artifact_id)),
  )
  return { nodes, merges: known, truncated }
}

interface Laid {
  readonly width: number
  readonly height: number
  readonly nodes: readonly (GraphNode & { x: number; y: number })[]
  readonly edges: readonly {
    key: string
    state: string
    from: string
    to: string
    points: { x: number; y: number }[]
  }[]
}

/** Layered layout (dagre): inputs above the results they were merged into. */
function layOut(walk: Walk): Laid {
  const g = new Graph({ multigraph: true })
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 56, marginx: 8, marginy: 8 })
  g.setDefaultEdgeLabel(() => ({}))
  for (const n of walk.nodes.values()) g.setNode(n.id, { width: NODE_W, height: NODE_H })
  for (const m of walk.merges)
    for (const i of m.inputs) g.setEdge(i.artifact_id, m.result_id, {}, m.merge_id)
  layout(g)
  const size = g.graph()
  return {
    width: Math.max(NODE_W, size.width ?? NODE_W),
    height: Math.max(NODE_H, size.height ?? NODE_H),
    nodes: [...walk.nodes.values()].map((n) => ({ ...n, x: g.node(n.id).x, y: g.node(n.id).y })),
    edges: walk.merges.flatMap((m) =>
      m.inputs.map((i) => ({
        key: `${m.merge_id} ${i.artifact_id}`,
        state: m.state,
        from: i.artifact_id,
        to: m.result_id,
        points: g.edge({ v: i.artifact_id, w: m.result_id, name: m.merge_id }).points ?? [],
      })),
    ),
  }
}

/**
 * Arrow keys move between the graph's nodes: Up to an input of the focused memory, Down to the
 * result it was merged into, Left/Right to the neighbour in the same row; Enter opens it.
 */
function graphKeys(laid: Laid, scope: string) {
  return (event: KeyboardEvent) => {
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.['node']
    const at = laid.nodes.find((n) => n.id === focused)
    if (at === undefined) return
    let next: string | undefined
    if (event.key === 'ArrowUp') next = laid.edges.find((e) => e.to === at.id)?.from
    else if (event.key === 'ArrowDown') next = laid.edges.find((e) => e.from === at.id)?.to
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      const sign = event.key === 'ArrowLeft' ? -1 : 1
      next = laid.nodes
        .filter((n) => Math.abs(n.y - at.y) < 1 && (n.x - at.x) * sign > 0)
        .sort((a, b) => Math.abs(a.x - at.x) - Math.abs(b.x - at.x))[0]?.id
    } else if (event.key === 'Enter') {
      event.preventDefault()
      go({ view: 'memory', scope, memoryId: at.id })
      return
    } else return
    event.preventDefault()
    if (next !== undefined)
      (event.currentTarget as Element)
        .querySelector<SVGElement>(`[data-node="${CSS.escape(next)}"]`)
        ?.focus()
  }
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

/** The merge graph around a memory, drawn with every state visible; each node opens its memory. */
export function MergeGraph({ scope, root }: { scope: string; root: HistoryResponse }) {
  const { client } = useConsole()
  const walk = useLoad(
    () => walkMerges((id) => client.history({ scope_id: scope, memory_id: id }), root),
    [scope, root],
  )
  const laid = useMemo(
    () =>
      walk.data === undefined || walk.data.merges.length === 0 ? undefined : layOut(walk.data),
    [walk.data],
  )
  return (
    <Section title="Merge graph">
      <ErrorBox error={walk.error} />
      {walk.data !== undefined && walk.data.merges.length === 0 && (
        <p class="muted">This memory took part in no merge.</p>
      )}
      {laid !== undefined && walk.data !== undefined && (
        <>
          <p class="muted">
            Arrows point from inputs to the memory they were merged into. Tab to a memory, then use
            the arrow keys to move along the graph and Enter to open it.
            {walk.data.truncated && ` Only the ${MAX_NODES} nearest memories are drawn.`}
          </p>
          <div class="graph-wrap">
            <svg
              class="graph"
              role="group"
              aria-label="Merge graph"
              width={laid.width}
              height={laid.height}
              viewBox={`0 0 ${laid.width} ${laid.height}`}
              onKeyDown={graphKeys(laid, scope)}
            >
              <defs>
                <marker
                  id="arrow"
                  viewBox="0 0 10 10"
                  refX="10"
                  refY="5"
                  markerWidth="8"
                  markerHeight="8"
                  orient="auto-start-reverse"
                >
                  <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
                </marker>
              </defs>
              {laid.edges.map((e) => (
                <polyline
                  key={e.key}
                  class={`edge edge-${e.state}`}
                  points={e.points.map((p) => `${p.x},${p.y}`).join(' ')}
                  marker-end="url(#arrow)"
                />
              ))}
              {laid.nodes.map((n) => (
                <a
                  key={n.id}
                  href={href({ view: 'memory', scope, memoryId: n.id })}
                  data-node={n.id}
                  aria-label={`${n.id}, ${n.state}, ${n.kind}: ${n.text}`}
                  aria-current={n.id === root.memory_id ? 'page' : undefined}
                  class={`node state-${n.state}${n.id === root.memory_id ? ' root' : ''}`}
                >
                  <rect
                    x={n.x - NODE_W / 2}
                    y={n.y - NODE_H / 2}
                    width={NODE_W}
                    height={NODE_H}
                    rx={6}
                  />
                  <text x={n.x - NODE_W / 2 + 8} y={n.y - NODE_H / 2 + 18} class="node-id">
                    {shortId(n.id)}@{n.revision} · {n.state}
                  </text>
                  <text x={n.x - NODE_W / 2 + 8} y={n.y - NODE_H / 2 + 36} class="node-text">
                    {clip(n.text, 30)}
                  </text>
                  <text x={n.x - NODE_W / 2 + 8} y={n.y - NODE_H / 2 + 51} class="node-kind">
                    {n.kind}
                  </text>
                </a>
              ))}
            </svg>
          </div>
          <ul class="legend" aria-label="Legend">
            {['active', 'forgotten', 'merged', 'retired'].map((s) => (
              <li key={s}>
                <span class={`swatch state-${s}`} aria-hidden="true" /> {s}
              </li>
            ))}
            <li>
              <span class="line effective" aria-hidden="true" /> effective merge
            </li>
            <li>
              <span class="line undone" aria-hidden="true" /> undone merge
            </li>
          </ul>
          <ul class="plain merges" aria-label="Merges as text">
            {walk.data.merges.map((m) => (
              <li key={m.merge_id}>
                <code>{shortId(m.result_id)}</code> ←{' '}
                {m.inputs.map((i) => `${shortId(i.artifact_id)}@${i.revision}`).join(' + ')} ·{' '}
                {m.state}
              </li>
            ))}
          </ul>
        </>
      )}
    </Section>
  )
}
