/*
 * Live health of the database a MySQL-family backend runs on, for readiness: a Galera
 * node's membership and sync state, and whether the server restarted since the last look (then
 * the FULLTEXT index is checked again, see mysql-fts-repair.ts). Each check uses its own short
 * connection with default session settings: no causal wait, so it answers on a node that is not
 * Synced, and a broken pool cannot make it hang.
 */
import type { ConnectionOptions, PoolConnection } from 'mysql2/promise'
import mysql from 'mysql2/promise'

import type { ClusterStatus } from '../spi/memory-backend.js'
import type { GaleraStatus } from './mysql-galera.js'
import { galeraStatusOf, statusRows } from './mysql-galera.js'
import { MysqlSession } from './mysql-session.js'

/** How long a health check waits for a connection. */
const HEALTH_CONNECT_MS = 3000
/** A server start time that moved by more than this means the server restarted. */
const RESTART_SLACK_MS = 5000

/** One health check's answer. */
export interface NodeHealth {
  /** The Galera state, or null when the server is not a Galera node. */
  readonly galera: GaleraStatus | null
  /** True when the server started again since the previous look (check, new connection, open). */
  readonly restarted: boolean
}

/** The cluster status in SPI form. */
export function clusterStatusOf(g: GaleraStatus): ClusterStatus {
  return {
    kind: 'galera',
    size: g.size,
    nodeState: g.nodeState,
    primary: g.clusterStatus === 'Primary',
  }
}

/** Health checks of one backend's server. */
export class MysqlHealthProbe {
  readonly #config: ConnectionOptions
  readonly #galera: boolean
  #startedAt: number | undefined

  /** `galera`: the server was a Galera node at open. */
  constructor(config: ConnectionOptions, galera: boolean) {
    this.#config = config
    this.#galera = galera
  }

  /**
   * Records the server's start time from status rows ({@link statusRows}: at open, on every new
   * pooled connection, by each check); true when it moved since the last rows (the server
   * restarted). Rows without `Uptime` tell nothing.
   */
  sawStart(rows: ReadonlyMap<string, string>): boolean {
    const uptime = Number(rows.get('uptime'))
    if (!Number.isFinite(uptime) || rows.get('uptime') === '') return false
    const startedAt = Date.now() - uptime * 1000
    const restarted =
      this.#startedAt !== undefined && Math.abs(startedAt - this.#startedAt) > RESTART_SLACK_MS
    this.#startedAt = startedAt
    return restarted
  }

  /**
   * Reads the server's status on a fresh connection.
   * @throws Error when the server does not answer.
   */
  async check(): Promise<NodeHealth> {
    const conn = await mysql.createConnection({
      ...this.#config,
      connectTimeout: HEALTH_CONNECT_MS,
    })
    try {
      const rows = await statusRows(new MysqlSession(conn as unknown as PoolConnection))
      const restarted = this.sawStart(rows)
      return { galera: this.#galera ? galeraStatusOf(rows) : null, restarted }
    } finally {
      conn.destroy()
    }
  }
}
