// One JSON diagnostic line per hook run, on stderr, only when a step did not succeed. It holds
// closed-set outcome codes, HTTP statuses, counts and times — never memory, prompt, transcript or
// server text, and no scope id.

/** A failed step: a stable outcome code and, for an HTTP answer, its status. */
export class HookFailure extends Error {
  /**
   * @param {string} outcome e.g. `server_unavailable`, `timeout`, `authentication_failed` (401),
   *   `version_mismatch` (404), `http_error`, `redirect_refused`, `response_too_large`,
   *   `invalid_response`, `invalid_settings`, `invalid_payload`
   * @param {number} [httpStatus]
   */
  constructor(outcome, httpStatus) {
    super(outcome)
    this.name = 'HookFailure'
    this.outcome = outcome
    this.httpStatus = httpStatus
  }
}

/** Outcomes of steps that are not failures (nothing is reported for a run made only of these). */
const FINE = new Set(['ok', 'ready', 'empty', 'captured', 'repeat', 'off', 'nothing'])

/** Collects each step's outcome of one run and writes at most one line. */
export class Diagnostics {
  /** @type {Record<string, string>} */
  #steps = {}
  /** @type {number | undefined} */
  #status = undefined
  /** @type {Record<string, number>} */
  #counts = {}
  #written = false

  /**
   * @param {{component: string, event: string, started: number}} run
   */
  constructor(run) {
    this.run = run
  }

  /**
   * Records a step's outcome (`ok`, `ready`, `empty`, `captured`, … or a failure code).
   * @param {string} name
   * @param {string} outcome
   * @param {number} [httpStatus]
   */
  step(name, outcome, httpStatus) {
    this.#steps[name] = outcome
    if (httpStatus !== undefined && this.#status === undefined) this.#status = httpStatus
  }

  /**
   * Records a failed step from any error: a HookFailure's code, else `internal_error`.
   * @param {string} name
   * @param {unknown} err
   */
  fail(name, err) {
    if (err instanceof HookFailure) this.step(name, err.outcome, err.httpStatus)
    else this.step(name, 'internal_error')
  }

  /**
   * Adds a count (numbers only, e.g. withheld messages).
   * @param {string} name
   * @param {number} n
   */
  count(name, n) {
    this.#counts[name] = n
  }

  /** The run's line, or undefined when every step was fine. */
  line(now = Date.now()) {
    const first = Object.values(this.#steps).find((o) => !FINE.has(o))
    if (first === undefined) return undefined
    return JSON.stringify({
      component: this.run.component,
      event: this.run.event,
      outcome: first,
      steps: this.#steps,
      ...(this.#status === undefined ? {} : { http_status: this.#status }),
      ...this.#counts,
      elapsed_ms: Math.max(0, Math.round(now - this.run.started)),
    })
  }

  /** Writes the line once (later calls do nothing). */
  flush(stderr = process.stderr) {
    if (this.#written) return
    this.#written = true
    const text = this.line()
    if (text !== undefined) stderr.write(`${text}\n`)
  }
}
