import type { LogFn } from '@hookstream/contracts';

/** Each partition's end offset, by topic (KafkaAdmin.partitionEnds). */
export type PartitionEnds = (topics: readonly string[]) => Promise<Map<string, Map<number, number>>>;

interface Waiter {
  readonly topic: string;
  readonly partition: number;
  readonly above: number;
  readonly wake: () => void;
}

/**
 * Tells a lane when a partition it does not fetch has records past an offset: one look for every
 * waiting partition of the process each period, where a fetch per partition would keep every
 * group member's fetch loop running. A subscriber's retry tiers are made at its start, and most
 * never hold a record; their lanes sleep here until one arrives (SubscriberConsumer).
 */
export class EndOffsetWatch {
  readonly #ends: PartitionEnds;
  readonly #everyMs: number;
  readonly #log: LogFn;
  readonly #waiting = new Set<Waiter>();
  #timer: NodeJS.Timeout | undefined;
  #looking = false;

  constructor(options: { ends: PartitionEnds; everyMs: number; log: LogFn }) {
    this.#ends = options.ends;
    this.#everyMs = options.everyMs;
    this.#log = options.log;
  }

  /** Calls `wake` once, when the partition's end is past `above`; the returned function cancels. */
  whenPast(topic: string, partition: number, above: number, wake: () => void): () => void {
    const waiter: Waiter = { topic, partition, above, wake };
    this.#waiting.add(waiter);
    this.#schedule();
    return () => {
      this.#waiting.delete(waiter);
    };
  }

  /** Partitions waiting now (for tests and metrics). */
  get waiting(): number {
    return this.#waiting.size;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting.clear();
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#looking || this.#waiting.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#look();
    }, this.#everyMs);
    this.#timer.unref();
  }

  async #look(): Promise<void> {
    this.#looking = true;
    try {
      const topics = [...new Set([...this.#waiting].map((w) => w.topic))];
      const ends = await this.#ends(topics);
      for (const w of [...this.#waiting]) {
        const end = ends.get(w.topic)?.get(w.partition);
        if (end === undefined || end <= w.above) continue;
        this.#waiting.delete(w);
        w.wake();
      }
    } catch (err) {
      // Kafka away, or a topic deleted meanwhile: the next look asks again.
      this.#log('debug', 'could not read the end offsets of the waiting partitions', {
        error: err instanceof Error ? err.message : String(err),
      });
    } finally {
      this.#looking = false;
      this.#schedule();
    }
  }
}
