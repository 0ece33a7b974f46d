/*
 * MariaDB Galera cluster support. A Galera node applies the write sets other nodes
 * certified asynchronously, so without causal reads a client behind a load balancer may not read
 * its own writes on another node (observed: 81 of 300 reads right after a write on another node
 * missed it). Every session of a backend on a Galera node therefore waits for causality
 * (`wsrep_sync_wait = 1`: `BEGIN`/`START TRANSACTION`, `SELECT` and `SHOW` first wait until the
 * node has applied every write set committed anywhere before them), reads and writes alike (a
 * write's CAS must compare against the latest version, not a stale one).
 */
import type { SqlSession } from '../sql/session.js'

/** Statements run on every pooled connection of a backend on a Galera node. */
export const GALERA_SESSION_SETUP: readonly string[] = ['SET SESSION wsrep_sync_wait = 1']

/** What a Galera node says about itself and its cluster. */
export interface GaleraStatus {
  /** Nodes in this node's component (`wsrep_cluster_size`). */
  readonly size: number
  /** `Primary`, or `non-Primary`/`Disconnected` when this node lost the quorum. */
  readonly clusterStatus: string
  /** `Synced`, `Joining`, `Joined`, `Donor/Desynced`, … (`wsrep_local_state_comment`). */
  readonly nodeState: string
  /** `wsrep_ready`: the node accepts queries. */
  readonly ready: boolean
}

/** `SHOW STATUS` rows by lower-case name: uptime and, on a Galera node, its wsrep state. */
export async function statusRows(sql: SqlSession): Promise<Map<string, string>> {
  const rows = await sql.all<{ Variable_name: string; Value: unknown }>(
    `SHOW STATUS WHERE Variable_name IN ('Uptime', 'wsrep_cluster_size', 'wsrep_cluster_status',
       'wsrep_local_state_comment', 'wsrep_ready')`,
  )
  return new Map(rows.map((r) => [String(r.Variable_name).toLowerCase(), String(r.Value ?? '')]))
}

/** True when the server is a Galera node (`wsrep_on` is ON). */
export async function isGaleraNode(sql: SqlSession): Promise<boolean> {
  try {
    const row = await sql.get<{ Value?: unknown }>("SHOW VARIABLES LIKE 'wsrep_on'")
    return String(row?.Value ?? '').toUpperCase() === 'ON'
  } catch {
    return false
  }
}

/** The node's cluster status from {@link statusRows} (which answer on a node that is not ready). */
export function galeraStatusOf(s: ReadonlyMap<string, string>): GaleraStatus {
  return {
    size: Number(s.get('wsrep_cluster_size') ?? 0),
    clusterStatus: s.get('wsrep_cluster_status') ?? 'unknown',
    nodeState: s.get('wsrep_local_state_comment') ?? 'unknown',
    ready: (s.get('wsrep_ready') ?? '').toUpperCase() === 'ON',
  }
}

/**
 * Why this node must not get work, or null: it is not in the primary component, not `Synced`
 * (joining, receiving or donating a state transfer) or not ready for queries.
 */
export function galeraProblem(s: GaleraStatus): string | null {
  if (s.clusterStatus !== 'Primary') {
    return `this node is not in the primary component (${s.clusterStatus})`
  }
  if (s.nodeState !== 'Synced') return `this node is ${s.nodeState}, not Synced`
  if (!s.ready) return 'this node does not accept queries (wsrep_ready OFF)'
  return null
}

/** The readiness check of a Galera node: `ready` or `unavailable: <the problem>`. */
export function galeraCheck(s: GaleraStatus): string {
  const problem = galeraProblem(s)
  return problem === null ? 'ready' : `unavailable: ${problem}`
}
