/**
 * Readiness as /readyz reports it: one probe at a time, its answer reused for ttlMs. Each probe
 * opens a Kafka client and calls the registry, so without this every caller (a load balancer,
 * or anyone able to reach the port) would multiply that work.
 */
export class ReadinessCache {
  readonly #probe: () => Promise<Readonly<Record<string, boolean>>>;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #answer: { readonly checks: Readonly<Record<string, boolean>>; readonly at: number } | undefined;
  #running: Promise<Readonly<Record<string, boolean>>> | undefined;

  constructor(
    probe: () => Promise<Readonly<Record<string, boolean>>>,
    ttlMs = 1000,
    now: () => number = () => performance.now(),
  ) {
    this.#probe = probe;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  check(): Promise<Readonly<Record<string, boolean>>> {
    if (this.#answer !== undefined && this.#now() - this.#answer.at < this.#ttlMs) {
      return Promise.resolve(this.#answer.checks);
    }
    this.#running ??= this.#probe()
      .catch(() => ({ probe: false }))
      .then((checks) => {
        this.#answer = { checks, at: this.#now() };
        return checks;
      })
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }
}
