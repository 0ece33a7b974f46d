/** Latency statistics, CPU time and number formatting shared by the benchmark scripts. */
import { performance } from 'node:perf_hooks'

export interface Stats {
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly mean: number
}

/** Nearest-rank percentile of an ascending list (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!
}

/** p50, p95, p99 and mean of a list of samples. */
export function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    mean: sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length),
  }
}

export const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '–')
export const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '–')
export const int = (x: number): string =>
  Number.isFinite(x) ? Math.round(x).toLocaleString('en') : '–'

/** CPU time of this process so far, ms. */
export function ownCpuMs(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

export interface Timing {
  readonly ms: number[]
  readonly cpu: number[]
}

/** Runs `f`; when `keep`, adds its wall time and this process's CPU time to `into`. */
export async function timed<T>(into: Timing, keep: boolean, f: () => Promise<T>): Promise<T> {
  const [started, cpu] = [performance.now(), ownCpuMs()]
  const result = await f()
  if (keep) {
    into.ms.push(performance.now() - started)
    into.cpu.push(ownCpuMs() - cpu)
  }
  return result
}
