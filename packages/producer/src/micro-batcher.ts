export interface MicroBatcherOptions<T, R> {
  /** Writes one batch; resolves with one result per item, in order. */
  readonly flush: (items: T[]) => Promise<R[]>;
  /** How many bytes an item weighs, to keep a batch under a size the broker accepts. */
  readonly sizeOf: (item: T) => number;
  readonly maxBatchItems?: number;
  readonly maxBatchBytes?: number;
  /** Batches written at the same time; more waiting callers then share the next batch. */
  readonly maxInFlight?: number;
}

interface Pending<T, R> {
  readonly items: T[];
  readonly bytes: number;
  readonly resolve: (results: R[]) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Groups concurrent submissions into few large writes (kafkajs has no linger). A submission
 * waits at most until the current turn of the event loop ends when a write slot is free, and
 * otherwise until a write finishes: under load batches grow by themselves, when idle nothing
 * waits on a timer. A submission is never split across writes, and each caller's promise
 * settles only with the outcome of the write that carried its items.
 */
export class MicroBatcher<T, R> {
  readonly #flush: (items: T[]) => Promise<R[]>;
  readonly #sizeOf: (item: T) => number;
  readonly #maxItems: number;
  readonly #maxBytes: number;
  readonly #maxInFlight: number;
  #queue: Pending<T, R>[] = [];
  #inFlight = 0;
  #scheduled = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: MicroBatcherOptions<T, R>) {
    this.#flush = options.flush;
    this.#sizeOf = options.sizeOf;
    this.#maxItems = options.maxBatchItems ?? 1000;
    this.#maxBytes = options.maxBatchBytes ?? 512 * 1024;
    this.#maxInFlight = options.maxInFlight ?? 2;
  }

  submit(items: T[]): Promise<R[]> {
    if (items.length === 0) return Promise.resolve([]);
    const bytes = items.reduce((sum, item) => sum + this.#sizeOf(item), 0);
    return new Promise<R[]>((resolve, reject) => {
      this.#queue.push({ items, bytes, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once nothing is queued or being written (for graceful shutdown). */
  idle(): Promise<void> {
    if (this.#queue.length === 0 && this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || this.#queue.length === 0) return;
    this.#scheduled = true;
    // setImmediate: requests parsed in the same I/O turn join this batch.
    setImmediate(() => {
      this.#scheduled = false;
      this.#drain();
    });
  }

  #drain(): void {
    while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
      const batch = this.#take();
      this.#inFlight += 1;
      void this.#write(batch).finally(() => {
        this.#inFlight -= 1;
        if (this.#queue.length > 0) this.#drain();
        else if (this.#inFlight === 0) for (const done of this.#idleWaiters.splice(0)) done();
      });
    }
  }

  #take(): Pending<T, R>[] {
    const batch: Pending<T, R>[] = [];
    let items = 0;
    let bytes = 0;
    while (this.#queue.length > 0) {
      const next = this.#queue[0] as Pending<T, R>;
      const fits = items + next.items.length <= this.#maxItems && bytes + next.bytes <= this.#maxBytes;
      if (batch.length > 0 && !fits) break;
      batch.push(next);
      this.#queue.shift();
      items += next.items.length;
      bytes += next.bytes;
    }
    return batch;
  }

  async #write(batch: Pending<T, R>[]): Promise<void> {
    try {
      const results = await this.#flush(batch.flatMap((p) => p.items));
      let at = 0;
      for (const p of batch) {
        p.resolve(results.slice(at, at + p.items.length));
        at += p.items.length;
      }
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
