/*
 * Private MariaDB servers for tests and benchmarks that must kill or restart a database (never the machine's
 * server on 3306): each one has its own data directory in a temp dir owned by `mysql` (rsync state
 * transfer cannot write a root-owned one), its own port, socket and pid file, and runs as a child
 * process of the test. `PrivateGalera` starts three of them as a Galera cluster on loopback.
 * Everything started here is killed and its directory removed by `stop()`.
 */
import type { ChildProcess } from 'node:child_process'
import { execFileSync, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import mysql from 'mysql2/promise'

const MARIADBD = '/usr/sbin/mariadbd'
const INSTALL_DB = '/usr/bin/mariadb-install-db'
/** Debian's galera-4 provider. */
export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'

/** Why a private MariaDB cannot run here, or null when it can. */
export function privateMariadbUnavailable(): string | null {
  if (!existsSync(MARIADBD) || !existsSync(INSTALL_DB)) return 'mariadb-server is not installed'
  if (process.getuid?.() !== 0) return 'starting mariadbd as the mysql user needs root'
  try {
    execFileSync('id', ['mysql'], { stdio: 'ignore' })
  } catch {
    return 'there is no mysql user'
  }
  return null
}

/** Why a Galera cluster cannot run here, or null when it can. */
export function galeraUnavailable(): string | null {
  const base = privateMariadbUnavailable()
  if (base !== null) return base
  if (!existsSync(GALERA_PROVIDER)) return `galera-4 is not installed (${GALERA_PROVIDER})`
  if (!existsSync('/usr/bin/rsync')) return 'rsync is not installed (Galera state transfer)'
  return null
}

/** A free TCP port on loopback (another process may take it before it is used; rare). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(),
      )
    })
  })
}

function mysqlOwned(path: string): void {
  const uid = Number(execFileSync('id', ['-u', 'mysql']).toString().trim())
  const gid = Number(execFileSync('id', ['-g', 'mysql']).toString().trim())
  chownSync(path, uid, gid)
}

/** How one node joins a Galera cluster. */
export interface GaleraNodeSettings {
  readonly clusterName: string
  /** Every node's group-communication port (this one's included). */
  readonly gcommPorts: readonly number[]
  readonly gcommPort: number
  readonly istPort: number
  readonly sstPort: number
}

/** One mariadbd child on its own port and data directory. */
export class PrivateMariadb {
  readonly port: number
  readonly dir: string
  readonly #galera: GaleraNodeSettings | undefined
  #proc: ChildProcess | undefined
  #log = ''

  private constructor(dir: string, port: number, galera: GaleraNodeSettings | undefined) {
    this.dir = dir
    this.port = port
    this.#galera = galera
  }

  /** Creates the data directory (`mariadb-install-db`); not started yet. */
  static async create(
    options: { galera?: GaleraNodeSettings; parent?: string } = {},
  ): Promise<PrivateMariadb> {
    const parent = options.parent ?? tmpdir()
    const dir = mkdtempSync(join(parent, 'pc-mariadb-'))
    mkdirSync(join(dir, 'data'))
    for (const path of [dir, join(dir, 'data')]) mysqlOwned(path)
    execFileSync(
      INSTALL_DB,
      [
        '--no-defaults',
        '--user=mysql',
        `--datadir=${join(dir, 'data')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { stdio: 'ignore' },
    )
    return new PrivateMariadb(dir, await freePort(), options.galera)
  }

  /** A URL of this server (root, no password). */
  url(database = 'mysql'): string {
    return `mysql://root@127.0.0.1:${this.port}/${database}`
  }

  /** What mariadbd wrote to stderr (its error log), for failure messages. */
  get log(): string {
    return this.#log
  }

  get running(): boolean {
    return (
      this.#proc !== undefined && this.#proc.exitCode === null && this.#proc.signalCode === null
    )
  }

  #args(newCluster: boolean): string[] {
    const args = [
      '--no-defaults',
      '--user=mysql',
      `--datadir=${join(this.dir, 'data')}`,
      `--port=${this.port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(this.dir, 'mysqld.sock')}`,
      `--pid-file=${join(this.dir, 'mysqld.pid')}`,
      '--skip-name-resolve',
      '--innodb-buffer-pool-size=64M',
      '--innodb-log-file-size=32M',
      '--max-connections=200',
      '--performance-schema=OFF',
    ]
    const g = this.#galera
    if (g === undefined) return args
    const peers = g.gcommPorts.map((p) => `127.0.0.1:${p}`).join(',')
    return [
      ...args,
      '--wsrep-on=ON',
      `--wsrep-provider=${GALERA_PROVIDER}`,
      `--wsrep-cluster-name=${g.clusterName}`,
      `--wsrep-cluster-address=gcomm://${peers}`,
      `--wsrep-node-address=127.0.0.1:${g.gcommPort}`,
      `--wsrep-node-name=node${g.gcommPort}`,
      `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${g.gcommPort};ist.recv_addr=127.0.0.1:${g.istPort};gcache.size=64M;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S;evs.install_timeout=PT6S`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${g.sstPort}`,
      '--binlog-format=ROW',
      '--innodb-autoinc-lock-mode=2',
      '--wsrep-slave-threads=2',
      ...(newCluster ? ['--wsrep-new-cluster'] : []),
    ]
  }

  /** Starts mariadbd (the first Galera node with `newCluster`) without waiting for it. */
  spawn(newCluster = false): void {
    if (this.running) throw new Error('already running')
    this.#log = ''
    const proc = spawn(MARIADBD, this.#args(newCluster), { stdio: ['ignore', 'ignore', 'pipe'] })
    proc.stderr!.setEncoding('utf8')
    proc.stderr!.on('data', (chunk: string) => {
      this.#log = (this.#log + chunk).slice(-20_000)
    })
    this.#proc = proc
  }

  /** Waits until the server answers a query (and, on Galera, is Synced). */
  async waitReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (!this.running) throw new Error(`mariadbd on ${this.port} exited:\n${this.#log}`)
      try {
        const conn = await mysql.createConnection({
          host: '127.0.0.1',
          port: this.port,
          user: 'root',
        })
        try {
          if (this.#galera === undefined) return
          const [rows] = await conn.query("SHOW STATUS LIKE 'wsrep_local_state_comment'")
          if ((rows as { Value: string }[])[0]?.Value === 'Synced') return
        } finally {
          await conn.end()
        }
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) {
        throw new Error(`mariadbd on ${this.port} not ready in ${timeoutMs} ms:\n${this.#log}`)
      }
      await sleep(250)
    }
  }

  /** Starts and waits until ready. */
  async start(newCluster = false, timeoutMs = 60_000): Promise<void> {
    this.spawn(newCluster)
    await this.waitReady(timeoutMs)
  }

  /** Sends `signal` (SIGKILL: a crash) and waits for the process to be gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const proc = this.#proc
    if (proc === undefined || !this.running) return
    const gone = new Promise((resolve) => proc.once('exit', resolve))
    proc.kill(signal)
    await gone
  }

  /** Runs SQL on a fresh connection to this server. */
  async query<T = unknown>(sql: string, params: unknown[] = []): Promise<T> {
    const conn = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root' })
    try {
      const [rows] = await conn.query(sql, params)
      return rows as T
    } finally {
      await conn.end()
    }
  }

  /** Kills the server (if running) and removes its directory. */
  async stop(): Promise<void> {
    await this.kill('SIGKILL')
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** A Galera cluster of private MariaDB nodes on loopback. */
export class PrivateGalera {
  readonly nodes: readonly PrivateMariadb[]
  readonly dir: string

  private constructor(dir: string, nodes: readonly PrivateMariadb[]) {
    this.dir = dir
    this.nodes = nodes
  }

  /** Creates `size` nodes and starts them (the first bootstraps the cluster); ≈ 20 s for three. */
  static async start(size = 3): Promise<PrivateGalera> {
    const dir = mkdtempSync(join(tmpdir(), 'pc-galera-'))
    mysqlOwned(dir)
    const gcommPorts: number[] = []
    for (let i = 0; i < size; i += 1) gcommPorts.push(await freePort())
    const nodes: PrivateMariadb[] = []
    const cluster = new PrivateGalera(dir, nodes)
    try {
      for (const gcommPort of gcommPorts) {
        const galera = {
          clusterName: `pc_test_${gcommPorts[0]}`,
          gcommPorts,
          gcommPort,
          istPort: await freePort(),
          sstPort: await freePort(),
        }
        nodes.push(await PrivateMariadb.create({ galera, parent: dir }))
      }
      await nodes[0]!.start(true)
      for (const node of nodes.slice(1)) {
        node.spawn()
        await node.waitReady(120_000)
      }
      return cluster
    } catch (err) {
      await cluster.stop()
      throw err
    }
  }

  /** The cluster size one node reports (0 when it does not answer). */
  async clusterSize(node = 0): Promise<number> {
    try {
      const rows = await this.nodes[node]!.query<{ Value: string }[]>(
        "SHOW STATUS LIKE 'wsrep_cluster_size'",
      )
      return Number(rows[0]?.Value ?? 0)
    } catch {
      return 0
    }
  }

  /**
   * Waits until every node has applied the `CREATE DATABASE` of `name` run on one of them (a node
   * applies replicated DDL shortly after it was ordered; a server connecting there before gets
   * `Unknown database`).
   */
  async waitForDatabase(name: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (const node of this.nodes) {
      while ((await node.query<unknown[]>('SHOW DATABASES LIKE ?', [name])).length === 0) {
        if (Date.now() > deadline) throw new Error(`database ${name} not on node ${node.port}`)
        await sleep(50)
      }
    }
  }

  /** Kills every node and removes the cluster's directory. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill('SIGKILL')))
    if (existsSync(this.dir) && statSync(this.dir).isDirectory()) {
      rmSync(this.dir, { recursive: true, force: true })
    }
  }
}
