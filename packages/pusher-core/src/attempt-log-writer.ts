import { ATTEMPT_LOG_TOPIC, type AttemptLogEntry, type LogFn } from '@hookstream/contracts';
import type { OutgoingRecord, RecordSender } from '@hookstream/kafka';

const FLUSH_EVERY_MS = 100;
const MAX_QUEUED = 20_000;

/**
 * Writes the attempt log (one record per attempt step, keyed by event id) off the delivery hot
 * path: entries queue in memory and go out in batches. The log answers `hookstream ledger`
 * quickly; it is not the ledger of record (the committed offsets are), so when Kafka cannot take
 * it or the queue is full, entries are dropped and counted rather than slowing deliveries down.
 */
export class AttemptLogWriter {
  readonly #sender: RecordSender;
  readonly #log: LogFn;
  readonly #timer: NodeJS.Timeout;
  #queue: OutgoingRecord[] = [];
  #flushing: Promise<void> | null = null;
  dropped = 0;

  constructor(sender: RecordSender, log: LogFn) {
    this.#sender = sender;
    this.#log = log;
    this.#timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  write(entry: AttemptLogEntry): void {
    if (this.#queue.length >= MAX_QUEUED) {
      this.dropped++;
      return;
    }
    // Typed by construction; no parse here, it runs once per delivery.
    const value = Buffer.from(JSON.stringify(entry));
    this.#queue.push({ key: entry.eventId, value, headers: {} });
  }

  /** Writes what is queued; resolves when that write ended (failures are logged, not thrown). */
  flush(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    if (this.#queue.length === 0) return Promise.resolve();
    const batch = this.#queue;
    this.#queue = [];
    this.#flushing = this.#sender
      .send(ATTEMPT_LOG_TOPIC, batch)
      .then(
        () => undefined,
        (err: unknown) => {
          this.dropped += batch.length;
          this.#log('warn', 'attempt log write failed; entries dropped (the ledger is unaffected)', {
            entries: batch.length,
            error: err instanceof Error ? err.message : String(err),
          });
        },
      )
      .finally(() => {
        this.#flushing = null;
      });
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    await this.flush();
  }
}
