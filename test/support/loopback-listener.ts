import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** An HTTP server a test starts on a free loopback port and closes with its open connections. */
export abstract class LoopbackListener {
  protected abstract readonly server: Server

  /** Listens on 127.0.0.1, port 0; resolves to the base URL. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
