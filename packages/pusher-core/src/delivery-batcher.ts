import { BATCH_ENVELOPE_BYTES } from '@hookstream/delivery';

/** A definition's `batch`, as the batcher needs it. */
export interface BatchLimits {
  readonly maxEvents: number;
  readonly maxBytes: number;
  readonly maxWaitMs: number;
}

/** One event waiting in a batch for the request that carries it. */
export interface BatchMember<T, R> {
  readonly item: T;
  /** Its body's bytes. */
  readonly bytes: number;
  readonly signal: AbortSignal;
  /** The request's outcome; null when the member left before the request went out. */
  readonly resolve: (result: R | null) => void;
  /** The request could not be made (a fault in the pusher, not an answer). */
  readonly reject: (error: unknown) => void;
}

/**
 * Members bound for one request. A member whose signal aborts leaves (resolved null) until the
 * request takes them; once taken they ride it to its end, as a single event's attempt does.
 * `signal` aborts when the last member has left: the request then never goes out.
 */
export class PendingBatch<T, R> {
  readonly #members: BatchMember<T, R>[] = [];
  readonly #controller = new AbortController();
  readonly #leaving = new Map<BatchMember<T, R>, () => void>();
  #bytes = BATCH_ENVELOPE_BYTES;
  #taken = false;
  /** Called when the last member leaves a batch nobody took. */
  onEmpty: () => void = () => undefined;

  /** Members given here that already left make an empty batch, whose signal is aborted. */
  constructor(members: readonly BatchMember<T, R>[] = []) {
    for (const member of members) this.add(member);
    if (members.length > 0 && this.#members.length === 0) this.#controller.abort();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The members so far (before take: some may still leave). */
  get members(): readonly BatchMember<T, R>[] {
    return this.#members;
  }

  get size(): number {
    return this.#members.length;
  }

  /** The request body's bytes with these members (the envelope and commas included). */
  get bytes(): number {
    return this.#bytes;
  }

  /** What the body would weigh with one more member of `bytes`. */
  bytesWith(bytes: number): number {
    return this.#bytes + bytes + (this.#members.length > 0 ? 1 : 0);
  }

  add(member: BatchMember<T, R>): void {
    if (member.signal.aborted) {
      member.resolve(null);
      return;
    }
    this.#bytes = this.bytesWith(member.bytes);
    this.#members.push(member);
    const leave = () => this.#leave(member);
    member.signal.addEventListener('abort', leave, { once: true });
    this.#leaving.set(member, leave);
  }

  /** The members, fixed from now on. */
  take(): readonly BatchMember<T, R>[] {
    this.#taken = true;
    for (const [member, leave] of this.#leaving) member.signal.removeEventListener('abort', leave);
    this.#leaving.clear();
    return this.#members;
  }

  #leave(member: BatchMember<T, R>): void {
    if (this.#taken) return;
    const at = this.#members.indexOf(member);
    if (at < 0) return;
    this.#members.splice(at, 1);
    this.#leaving.delete(member);
    this.#bytes -= member.bytes + (this.#members.length > 0 ? 1 : 0);
    member.resolve(null);
    if (this.#members.length === 0) {
      this.#controller.abort();
      this.onEmpty();
    }
  }
}

interface OpenBatch<T, R> {
  readonly batch: PendingBatch<T, R>;
  readonly timer: NodeJS.Timeout;
}

/**
 * Gathers events into batches, one open batch per group (a batch never mixes two groups), and
 * hands a batch to `send` when it holds `maxEvents`, when one more event would take its body past
 * `maxBytes`, or `maxWaitMs` after its first event joined. An event larger than `maxBytes` alone
 * goes alone. `send` takes the batch's members when the request goes out and resolves each.
 */
export class DeliveryBatcher<T, R> {
  readonly #limits: BatchLimits;
  readonly #send: (batch: PendingBatch<T, R>) => void;
  readonly #open = new Map<string, OpenBatch<T, R>>();

  constructor(limits: BatchLimits, send: (batch: PendingBatch<T, R>) => void) {
    this.#limits = limits;
    this.#send = send;
  }

  /** Batches open (filling), for tests and metrics. */
  get openBatches(): number {
    return this.#open.size;
  }

  /** Resolves with the outcome of the request that carried the item; null if it left first. */
  add(group: string, item: T, bytes: number, signal: AbortSignal): Promise<R | null> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return resolve(null);
      const { maxEvents, maxBytes } = this.#limits;
      const current = this.#open.get(group);
      if (current !== undefined && current.batch.bytesWith(bytes) > maxBytes) this.#flush(group);
      const open = this.#open.get(group) ?? this.#opened(group);
      open.batch.add({ item, bytes, signal, resolve, reject });
      if (open.batch.size >= maxEvents || open.batch.bytes >= maxBytes) this.#flush(group);
    });
  }

  #opened(group: string): OpenBatch<T, R> {
    const batch = new PendingBatch<T, R>();
    const timer = setTimeout(() => this.#flush(group), this.#limits.maxWaitMs);
    const open = { batch, timer };
    batch.onEmpty = () => {
      clearTimeout(timer);
      if (this.#open.get(group) === open) this.#open.delete(group);
    };
    this.#open.set(group, open);
    return open;
  }

  #flush(group: string): void {
    const open = this.#open.get(group);
    if (open === undefined) return;
    this.#open.delete(group);
    clearTimeout(open.timer);
    open.batch.onEmpty = () => undefined;
    this.#send(open.batch);
  }
}
