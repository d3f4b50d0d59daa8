import type { LogFn } from '@hookstream/contracts';
import type { KafkaAdmin } from '@hookstream/kafka';

/**
 * Asks the broker every few seconds how far the subscriber's ledger is behind on each of its
 * topics, and how deep its DLQ is. The committed offsets are the ledger, so lag measured against
 * them is what an operator means by it; the gauges read the last answer at scrape time.
 */
export class LagPoller {
  readonly #admin: KafkaAdmin;
  readonly #groupId: string;
  readonly #topics: () => readonly string[];
  readonly #dlq: () => string | null;
  readonly #log: LogFn;
  readonly #everyMs: number;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | null = null;
  #failing = false;
  lag: ReadonlyMap<string, number> = new Map();
  dlqDepth: number | null = null;

  constructor(
    admin: KafkaAdmin,
    groupId: string,
    /** The topics to measure, asked each round (a tier the schedule dropped leaves once drained). */
    topics: () => readonly string[],
    /** Its DLQ, or null while it does not exist. */
    dlq: () => string | null,
    log: LogFn,
    everyMs: number,
  ) {
    this.#admin = admin;
    this.#groupId = groupId;
    this.#topics = topics;
    this.#dlq = dlq;
    this.#log = log;
    this.#everyMs = everyMs;
  }

  /** Polls now and then every few seconds; the admin is the process's, connected and shared. */
  async start(): Promise<void> {
    await this.poll();
    this.#timer = setInterval(() => void this.poll(), this.#everyMs);
    this.#timer.unref();
  }

  /** One round; a failure keeps the last figures and is logged once until polls succeed again. */
  poll(): Promise<void> {
    this.#polling ??= (async () => {
      try {
        const dlqTopic = this.#dlq();
        const [lags, dlq] = await Promise.all([
          this.#admin.groupLag(this.#groupId, this.#topics()),
          dlqTopic === null ? null : this.#admin.topicDepth(dlqTopic),
        ]);
        this.lag = new Map(lags.map((l) => [l.topic, l.lag]));
        this.dlqDepth = dlq;
        this.#failing = false;
      } catch (err) {
        if (!this.#failing)
          this.#log('warn', 'cannot read consumer lag; the lag gauges keep their last values', {
            error: err instanceof Error ? err.message : String(err),
          });
        this.#failing = true;
      } finally {
        this.#polling = null;
      }
    })();
    return this.#polling;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#polling;
  }
}
