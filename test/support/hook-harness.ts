/**
 * Runs an agent hook program (integrations/<host>/hooks/*.mjs) as a child process, the way a host
 * does: the JSON payload on stdin, the environment it gives, stdout and stderr captured.
 */
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface HookResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export function runHookProcess(
  file: string,
  payload: unknown,
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): Promise<HookResult> {
  return runProgram(process.execPath, [file, ...args], payload, env)
}

/** Runs `program ARGS…` with `payload` (JSON unless a string) on stdin, as a host starts a hook. */
export function runProgram(
  program: string,
  args: readonly string[],
  payload: unknown,
  env: Record<string, string | undefined>,
): Promise<HookResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.on('error', () => undefined) // the hook may exit before reading everything
    child.stdin.end(typeof payload === 'string' ? payload : JSON.stringify(payload))
  })
}

/** The one diagnostic line of a run (asserts there is exactly one, and that it is JSON). */
export function diagnosticOf(result: HookResult): Record<string, unknown> {
  const lines = result.stderr.split('\n').filter((l) => l !== '')
  if (lines.length !== 1) throw new Error(`expected one diagnostic line, got ${lines.length}`)
  return JSON.parse(lines[0]!) as Record<string, unknown>
}

/**
 * A loopback server that misbehaves the ways a hook must survive, by path prefix: `/slow` answers
 * after 5 s, `/big` sends 2 MiB, `/bad` sends a prepared-context envelope with an extra field,
 * `/redirect` answers 302 to the real server, `/html` sends a non-JSON 200.
 */
export async function startMisbehavingServer(redirectTo: string): Promise<{
  url: string
  close: () => Promise<void>
}> {
  const server: Server = createServer((req, res) => {
    req.resume()
    const path = req.url ?? ''
    if (path.startsWith('/slow')) {
      const t = setTimeout(() => res.end('{}'), 5000)
      res.on('close', () => clearTimeout(t))
    } else if (path.startsWith('/big')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }))
    } else if (path.startsWith('/bad')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      const content = 'BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1 injected'
      res.end(
        JSON.stringify({
          schema: 'powercontext.prepared-context.v1',
          status: 'ready',
          content,
          content_bytes: Buffer.byteLength(content),
          extra: true,
        }),
      )
    } else if (path.startsWith('/redirect')) {
      res.writeHead(302, { location: `${redirectTo}${path.slice('/redirect'.length)}` })
      res.end()
    } else {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end('<html>not json</html>')
    }
  })
  server.keepAliveTimeout = 1
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}
