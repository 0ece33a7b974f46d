/**
 * Start of `powercontext mcp` for `bench/mcp.ts`: spawn → `initialize` answered, for the stdio
 * proxy and the embedded form, beside `node -e 0`; and the `/proc` readings the benchmark uses.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { initializeRequest } from '../harness/mcp-messages.js'
import { type Stats, stats } from './bench-stats.js'

/** The built command line the benchmark starts (`npm run build` first). */
export const BIN = fileURLToPath(new URL('../bin/powercontext.js', import.meta.url))

/** Resident set size of a process, MB (Linux `/proc`). */
export function rssMbOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m === null ? Number.NaN : Number(m[1]) / 1024
}

/** CPU time (user + system) a process has used so far, ms, from `/proc` (10 ms clock ticks). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** Spawn → first line on stdout after writing `input` (or exit, for `node -e 0`); then RSS. */
function timeStart(args: readonly string[], input: string | undefined) {
  return new Promise<{ ms: number; rssMb: number; cpuMs: number }>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] })
    let ms = Number.NaN
    let rssMb = Number.NaN
    let cpuMs = Number.NaN
    child.on('error', reject)
    child.stdout.once('data', () => {
      ms = performance.now() - started
      rssMb = rssMbOf(child.pid)
      cpuMs = cpuMsOf(child.pid!)
      child.stdin.end()
    })
    child.on('close', () =>
      resolve({ ms: input === undefined ? performance.now() - started : ms, rssMb, cpuMs }),
    )
    child.stdin.on('error', () => undefined)
    if (input === undefined) child.stdin.end()
    else child.stdin.write(input)
  })
}

export interface StartFigures {
  readonly ms: Stats
  readonly rssMb: Stats
  readonly cpuMs: Stats
}

/**
 * Start of the stdio proxy and of the embedded form (spawn → `initialize` answered) beside
 * `node -e 0`, in rotating order; two rounds of warm-up.
 */
export async function stdioStarts(serverUrl: URL, dataDir: string, rounds: number) {
  const initialize = `${JSON.stringify(initializeRequest('bench-mcp'))}\n`
  const kinds = [
    { args: [BIN, 'mcp', '--server-url', serverUrl.href], input: initialize },
    { args: [BIN, 'mcp', '--data-dir', dataDir], input: initialize },
    { args: ['-e', '0'], input: undefined },
  ]
  const samples = kinds.map(() => ({
    ms: [] as number[],
    rss: [] as number[],
    cpu: [] as number[],
  }))
  for (let i = 0; i < rounds + 2; i++) {
    for (let k = 0; k < kinds.length; k++) {
      const n = (i + k) % kinds.length
      const r = await timeStart(kinds[n]!.args, kinds[n]!.input)
      if (i < 2) continue
      samples[n]!.ms.push(r.ms)
      samples[n]!.rss.push(r.rssMb)
      samples[n]!.cpu.push(r.cpuMs)
    }
  }
  const figures = samples.map((s): StartFigures => ({
    ms: stats(s.ms),
    rssMb: stats(s.rss),
    cpuMs: stats(s.cpu),
  }))
  return { proxy: figures[0]!, embedded: figures[1]!, floor: figures[2]!.ms }
}
