import type { FastifyReply, FastifyRequest } from 'fastify'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

import type { PrepareObservation } from '../runtime/receipt-recorder.js'
import { FLUSH_OUTCOMES } from '../runtime/runtime-counters.js'
import type { RuntimeSlot } from '../wire/surface-call.js'
import { routeLabel } from './request-log.js'

/** What `GET /metrics` adds beyond the server's own metrics (AppOptions `metrics`). */
export interface MetricsOptions {
  /**
   * Also export prom-client's default Node.js process metrics (CPU, memory, event loop lag,
   * GC; standard `process_*` and `nodejs_*` names). Default false.
   */
  readonly processMetrics?: boolean | undefined
}

/** Request latency buckets in seconds: ~1 ms reads up to model-backed flushes. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const SEARCH_MODES_USED = ['fts', 'vector', 'hybrid'] as const
/** Prepared-context size buckets in UTF-8 bytes, up to the largest budget (32,768). */
const INJECTED_BYTES_BUCKETS = [0, 256, 512, 1024, 2048, 4096, 8192, 16_384, 32_768]
/** Items per injection: 0 to the 8 a prepare shows at most. */
const ITEMS_BUCKETS = [0, 1, 2, 3, 4, 5, 6, 7, 8]

/**
 * The metrics of one app, in a registry of its own (several apps in one process never collide).
 * Request metrics are observed as responses finish; the runtime's counts (searches by mode,
 * flushes by outcome) and the reindex backlog are read from the bound runtime at scrape time, so
 * they cover every surface (HTTP, MCP, the flush scheduler).
 */
export class AppMetrics {
  readonly registry = new Registry()
  readonly #requests: Counter<'method' | 'route' | 'status'>
  readonly #latency: Histogram<'method' | 'route' | 'status'>
  readonly #slot: RuntimeSlot
  readonly #prepare: (o: PrepareObservation) => void
  /** The runtime whose prepares are observed, and how to stop. */
  #observed: { runtime: RuntimeSlot['current']; stop: () => void } | undefined

  constructor(slot: RuntimeSlot, options: MetricsOptions = {}) {
    const registers = [this.registry]
    const labelNames = ['method', 'route', 'status'] as const
    this.#requests = new Counter({
      name: 'powercontext_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames,
      registers,
    })
    this.#latency = new Histogram({
      name: 'powercontext_http_request_duration_seconds',
      help: 'HTTP request duration in seconds (arrival to response sent), by method, route pattern and status.',
      labelNames,
      buckets: LATENCY_BUCKETS,
      registers,
    })
    this.#prepare = this.#prepareMetrics(registers)
    this.#slot = slot
    this.#follow()
    const stats = () => slot.current?.stats()
    new Counter({
      name: 'powercontext_searches_total',
      help: 'Searches answered since the runtime opened, by the mode actually used.',
      labelNames: ['mode'],
      registers,
      collect() {
        const searches = stats()?.searches
        this.reset()
        for (const mode of SEARCH_MODES_USED) this.inc({ mode }, searches?.[mode] ?? 0)
      },
    })
    new Counter({
      name: 'powercontext_flushes_total',
      help: 'Flushes (explicit and scheduled) since the runtime opened, by outcome: processed, idle, failed.',
      labelNames: ['outcome'],
      registers,
      collect() {
        const flushes = stats()?.flushes
        this.reset()
        for (const outcome of FLUSH_OUTCOMES) this.inc({ outcome }, flushes?.[outcome] ?? 0)
      },
    })
    new Counter({
      name: 'powercontext_extraction_calls_total',
      help: 'Generation provider calls (requests or CLI runs, failed ones included) since the runtime opened.',
      registers,
      collect() {
        this.reset()
        this.inc(stats()?.extraction?.calls ?? 0)
      },
    })
    new Counter({
      name: 'powercontext_extraction_tokens_total',
      help: 'Tokens the generation provider reported since the runtime opened, by direction: input, output.',
      labelNames: ['direction'],
      registers,
      collect() {
        const e = stats()?.extraction
        this.reset()
        this.inc({ direction: 'input' }, e?.inputTokens ?? 0)
        this.inc({ direction: 'output' }, e?.outputTokens ?? 0)
      },
    })
    new Counter({
      name: 'powercontext_extraction_seconds_total',
      help: 'Wall time spent waiting for the generation provider since the runtime opened, in seconds.',
      registers,
      collect() {
        this.reset()
        this.inc((stats()?.extraction?.wallMs ?? 0) / 1000)
      },
    })
    new Gauge({
      name: 'powercontext_reindex_backlog',
      help: '1 while some active memory may lack its vector (vectors ready; unknown at open counts), else 0.',
      registers,
      collect() {
        this.set(stats()?.reindex.backlog === true ? 1 : 0)
      },
    })
    new Gauge({
      name: 'powercontext_reindex_remaining',
      help: 'Memories without a valid vector after the background reindex last ran (0 before its first pass).',
      registers,
      collect() {
        this.set(stats()?.reindex.remaining ?? 0)
      },
    })
    if (options.processMetrics === true) collectDefaultMetrics({ register: this.registry })
  }

  /**
   * The prepared-context histograms by hook event (`session_start`, `user_prompt_submit`, …;
   * `api` without a receipt): injected bytes, items per injection, prepare latency.
   */
  #prepareMetrics(registers: Registry[]): (o: PrepareObservation) => void {
    const labelNames = ['event'] as const
    const bytes = new Histogram({
      name: 'powercontext_prepare_injected_bytes',
      help: 'UTF-8 bytes of prepared context answered, by hook event (0 when empty).',
      labelNames,
      buckets: INJECTED_BYTES_BUCKETS,
      registers,
    })
    const items = new Histogram({
      name: 'powercontext_prepare_items',
      help: 'Memory items per prepared context answered, by hook event.',
      labelNames,
      buckets: ITEMS_BUCKETS,
      registers,
    })
    const seconds = new Histogram({
      name: 'powercontext_prepare_duration_seconds',
      help: 'Server time spent preparing context, in seconds, by hook event.',
      labelNames,
      buckets: LATENCY_BUCKETS,
      registers,
    })
    return (o) => {
      bytes.observe({ event: o.event }, o.bytes)
      items.observe({ event: o.event }, o.items)
      seconds.observe({ event: o.event }, o.seconds)
    }
  }

  /** Observes the prepares of the runtime in the slot (again after it changed). */
  #follow(): void {
    const runtime = this.#slot.current
    if (this.#observed?.runtime === runtime) return
    this.#observed?.stop()
    // A runtime without receipts (a stand-in of a test) has no prepares to observe.
    const stop = runtime?.receipts?.onPrepared(this.#prepare) ?? (() => undefined)
    this.#observed = { runtime, stop }
  }

  /** Counts a finished request under its route pattern (`unmatched` when no route matched). */
  observe(req: FastifyRequest, reply: FastifyReply): void {
    this.#follow()
    const labels = {
      method: req.method,
      route: routeLabel(req),
      status: String(reply.statusCode),
    }
    this.#requests.inc(labels)
    this.#latency.observe(labels, reply.elapsedTime / 1000)
  }

  /** The `GET /metrics` answer: every metric in the Prometheus text format. */
  async send(reply: FastifyReply): Promise<FastifyReply> {
    const text = await this.registry.metrics()
    return reply.type(this.registry.contentType).send(text)
  }
}
