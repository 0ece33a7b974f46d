/*
 * What one client may take of the server (docs/server.md#connection-limits): connections per
 * address, a reserve of connections only health probes may use, and failed bearer-token attempts
 * per address and minute. Before, 210 slow connections from one address took every slot for up to
 * 30 s, health probes included.
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'

import { PowerContextError } from '../core/errors.js'
import type { ConnectionLimits } from './connection-limits.js'

/** A client's address as one key (`::ffff:127.0.0.1` and `127.0.0.1` are the same client). */
export function clientAddress(socket: Socket): string {
  return (socket.remoteAddress ?? '').replace(/^::ffff:/, '')
}

/** Counts open connections per address and marks those opened into the probe reserve. */
export class ConnectionGuard {
  readonly #limits: ConnectionLimits
  readonly #perAddress = new Map<string, number>()
  readonly #reserve = new WeakSet<Socket>()
  #open = 0

  constructor(limits: ConnectionLimits) {
    this.#limits = limits
  }

  /** Enforces the limits on every connection `server` accepts. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.#accept(socket))
  }

  #accept(socket: Socket): void {
    const { maxConnections, maxConnectionsPerClient, probeReserve } = this.#limits
    const address = clientAddress(socket)
    const mine = this.#perAddress.get(address) ?? 0
    if (
      (maxConnections > 0 && this.#open >= maxConnections) ||
      (maxConnectionsPerClient > 0 && mine >= maxConnectionsPerClient)
    ) {
      socket.destroy()
      return
    }
    if (maxConnections > 0 && this.#open >= maxConnections - probeReserve) this.#reserve.add(socket)
    this.#open += 1
    this.#perAddress.set(address, mine + 1)
    socket.once('close', () => {
      this.#open -= 1
      const left = (this.#perAddress.get(address) ?? 1) - 1
      if (left === 0) this.#perAddress.delete(address)
      else this.#perAddress.set(address, left)
    })
  }

  /**
   * Refuses anything but a health probe on a connection of the probe reserve.
   * @throws PowerContextError `runtime_not_ready` (503).
   */
  check(socket: Socket, healthProbe: boolean): void {
    if (healthProbe || !this.#reserve.has(socket)) return
    throw new PowerContextError(
      'runtime_not_ready',
      'the server is at its connection limit; its last connections are kept for health probes',
    )
  }
}

const MINUTE_MS = 60_000
/** Addresses remembered at most (the oldest windows are forgotten first). */
const MAX_ADDRESSES = 10_000

/** Failed bearer-token attempts per address in the current minute. */
export class FailedAuthLimiter {
  readonly #max: number
  readonly #windows = new Map<string, { start: number; failures: number }>()

  constructor(maxPerMinute: number) {
    this.#max = maxPerMinute
  }

  /**
   * Refuses an address that has used up its failed attempts this minute.
   * @throws PowerContextError `unauthorized` with `details.retry_after_seconds` (429).
   */
  check(address: string, now = Date.now()): void {
    const w = this.#windows.get(address)
    if (this.#max === 0 || w === undefined || now - w.start >= MINUTE_MS || w.failures < this.#max)
      return
    const retry = Math.ceil((w.start + MINUTE_MS - now) / 1000)
    throw Object.assign(
      new PowerContextError(
        'unauthorized',
        `too many failed bearer-token attempts from this address; try again in ${retry} s`,
        { retry_after_seconds: retry },
      ),
      { statusCode: 429 },
    )
  }

  /** Records one failed attempt of `address`. */
  failed(address: string, now = Date.now()): void {
    if (this.#max === 0) return
    const w = this.#windows.get(address)
    if (w === undefined || now - w.start >= MINUTE_MS) {
      this.#windows.delete(address)
      if (this.#windows.size >= MAX_ADDRESSES) {
        const oldest = this.#windows.keys().next()
        if (oldest.done !== true) this.#windows.delete(oldest.value)
      }
      this.#windows.set(address, { start: now, failures: 1 })
    } else w.failures += 1
  }
}
