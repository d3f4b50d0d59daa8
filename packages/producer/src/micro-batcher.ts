import { PublishError } from './errors.ts';

export interface MicroBatcherOptions<T, R> {
  /** Writes one batch; resolves with one result per item, in order. */
  readonly flush: (items: T[]) => Promise<R[]>;
  /** How many bytes an item weighs, to keep a batch under a size the broker accepts. */
  readonly sizeOf: (item: T) => number;
  readonly maxBatchItems?: number;
  readonly maxBatchBytes?: number;
  /** Batches written at the same time; more waiting callers then share the next batch. */
  readonly maxInFlight?: number;
  /**
   * Items and bytes held at once, queued or being written (default 10000 and 64 MiB): beyond
   * them a submission is refused with QUEUE_FULL instead of the queue growing while Kafka is
   * slow. A submission arriving when nothing is held always goes, whatever its size.
   */
  readonly maxQueuedItems?: number;
  readonly maxQueuedBytes?: number;
}

/** A submission that can still be withdrawn while it waits for a write. */
export interface Submission<R> {
  readonly result: Promise<R[]>;
  /** Withdraws it if no write has taken it yet (it then rejects with `reason`); true if so. */
  cancel(reason: unknown): boolean;
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
  readonly #maxQueuedItems: number;
  readonly #maxQueuedBytes: number;
  #queue: Pending<T, R>[] = [];
  #heldItems = 0;
  #heldBytes = 0;
  #inFlight = 0;
  #scheduled = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: MicroBatcherOptions<T, R>) {
    this.#flush = options.flush;
    this.#sizeOf = options.sizeOf;
    this.#maxItems = options.maxBatchItems ?? 1000;
    this.#maxBytes = options.maxBatchBytes ?? 512 * 1024;
    this.#maxInFlight = options.maxInFlight ?? 2;
    this.#maxQueuedItems = options.maxQueuedItems ?? 10_000;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1024 * 1024;
  }

  submit(items: T[]): Promise<R[]> {
    return this.submitCancellable(items).result;
  }

  submitCancellable(items: T[]): Submission<R> {
    if (items.length === 0) return { result: Promise.resolve([]), cancel: () => false };
    const bytes = items.reduce((sum, item) => sum + this.#sizeOf(item), 0);
    const over =
      this.#heldItems + items.length > this.#maxQueuedItems || this.#heldBytes + bytes > this.#maxQueuedBytes;
    if (this.#heldItems > 0 && over) {
      const full = new PublishError(
        'QUEUE_FULL',
        `the producer holds ${this.#heldItems} records (${this.#heldBytes} bytes) not yet acknowledged; try again shortly`,
      );
      return { result: Promise.reject(full), cancel: () => false };
    }
    this.#heldItems += items.length;
    this.#heldBytes += bytes;
    const { promise, resolve, reject } = Promise.withResolvers<R[]>();
    const pending: Pending<T, R> = { items, bytes, resolve, reject };
    this.#queue.push(pending);
    this.#schedule();
    return {
      result: promise,
      cancel: (reason) => {
        const at = this.#queue.indexOf(pending);
        if (at < 0) return false;
        this.#queue.splice(at, 1);
        this.#release(pending);
        reject(reason);
        if (this.#queue.length === 0 && this.#inFlight === 0) this.#notifyIdle();
        return true;
      },
    };
  }

  /** Items and bytes queued or being written. */
  get held(): { readonly items: number; readonly bytes: number } {
    return { items: this.#heldItems, bytes: this.#heldBytes };
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
        else if (this.#inFlight === 0) this.#notifyIdle();
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

  #notifyIdle(): void {
    for (const done of this.#idleWaiters.splice(0)) done();
  }

  #release(p: Pending<T, R>): void {
    this.#heldItems -= p.items.length;
    this.#heldBytes -= p.bytes;
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
    } finally {
      for (const p of batch) this.#release(p);
    }
  }
}
