/**
 * A bench client that reads answers into one fixed buffer per connection (`net` `onread`): no
 * allocation per chunk, no HTTP parser objects, so reading a few hundred megabytes takes little
 * of the cores the measured server runs on. Only what a bench needs of HTTP/1.1: `POST` with a
 * JSON body on one kept-alive connection, answers framed by `Content-Length` (the server sends
 * it on every answer), the status code, and the body's last `tailBytes` kept for the caller.
 * Written by hand because no client library reads into a caller's buffer.
 */
import net from 'node:net'

/** One answer: status, body length, and the body's last bytes (all of a short one). */
export interface TailAnswer {
  readonly status: number
  readonly bytes: number
  readonly tail: Buffer
}

const HEAD_END = Buffer.from('\r\n\r\n')

/** One kept-alive connection that posts and reads answers one at a time. */
export class FixedBufferReader {
  readonly #socket: net.Socket
  readonly #host: string
  readonly #tail: Buffer
  readonly #head: Buffer = Buffer.allocUnsafe(16 * 1024)
  #headBytes = 0
  #status = 0
  #length = -1
  #read = 0
  #tailStart = 0
  #pending: { resolve: (a: TailAnswer) => void; reject: (e: Error) => void } | undefined

  /** Connects to `url` (http://host:port); keeps the last `tailBytes` of every body. */
  constructor(url: string, tailBytes: number) {
    const { hostname, port, host } = new URL(url)
    this.#host = host
    this.#tail = Buffer.allocUnsafe(tailBytes)
    this.#socket = net.connect({
      host: hostname,
      port: Number(port),
      onread: {
        buffer: Buffer.allocUnsafe(1024 * 1024),
        callback: (n: number, buf: Uint8Array) => {
          this.#take(Buffer.from(buf.buffer, buf.byteOffset, n))
          return true
        },
      },
    })
    this.#socket.setNoDelay(true)
    this.#socket.on('error', (err) => this.#fail(err))
    this.#socket.on('close', () => this.#fail(new Error('connection closed')))
  }

  /** Posts `body` (JSON) to `path`; resolves when the whole answer was read. */
  post(path: string, body: unknown): Promise<TailAnswer> {
    if (this.#pending !== undefined) throw new Error('one request at a time')
    const data = Buffer.from(JSON.stringify(body))
    this.#headBytes = 0
    this.#length = -1
    this.#read = 0
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject }
      const head =
        `POST ${path} HTTP/1.1\r\nHost: ${this.#host}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${data.length}\r\n\r\n`
      this.#socket.write(Buffer.concat([Buffer.from(head, 'latin1'), data]))
    })
  }

  close(): void {
    this.#socket.destroy()
  }

  #take(chunk: Buffer): void {
    let body = chunk
    if (this.#length < 0) {
      // Still in the head: gather it, then parse status and length.
      const room = this.#head.length - this.#headBytes
      const copied = chunk.copy(this.#head, this.#headBytes, 0, Math.min(room, chunk.length))
      const head = this.#head.subarray(0, this.#headBytes + copied)
      const end = head.indexOf(HEAD_END)
      if (end < 0) {
        this.#headBytes += copied
        if (this.#headBytes === this.#head.length) this.#fail(new Error('answer head too large'))
        return
      }
      const text = head.subarray(0, end).toString('latin1')
      this.#status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1]
      if (length === undefined) return this.#fail(new Error('answer without Content-Length'))
      this.#length = Number(length)
      this.#tailStart = Math.max(0, this.#length - this.#tail.length)
      body = chunk.subarray(end + HEAD_END.length - this.#headBytes)
    }
    // Copy only what falls within the body's last `tail.length` bytes.
    const from = Math.max(0, this.#tailStart - this.#read)
    if (from < body.length) body.copy(this.#tail, this.#read + from - this.#tailStart, from)
    this.#read += body.length
    if (this.#read < this.#length) return
    const pending = this.#pending
    this.#pending = undefined
    const kept = this.#length - this.#tailStart
    pending?.resolve({
      status: this.#status,
      bytes: this.#length,
      tail: Buffer.from(this.#tail.subarray(0, kept)),
    })
  }

  #fail(err: Error): void {
    const pending = this.#pending
    this.#pending = undefined
    pending?.reject(err)
  }
}
