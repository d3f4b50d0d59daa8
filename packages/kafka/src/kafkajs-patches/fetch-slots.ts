import { createRequire } from 'node:module';
import { Semaphore } from '@hookstream/concurrency';

/**
 * Fetch requests of this process's consumers in flight at once. Each answer is decoded whole
 * (every record and header an object) before its member hands it on, a few MiB for a full
 * 256 KiB answer of small records.
 */
export const FETCH_SLOTS = 32;
/**
 * Longest a fetch waits for a slot before it goes ahead without one: a member sends its
 * heartbeats from the same loop, so a wait must stay well within any session timeout.
 */
export const FETCH_SLOT_WAIT_MS = 2000;

interface BrokerProto {
  fetch(this: unknown, ...args: unknown[]): Promise<unknown>;
  hookstreamFetchSlots?: FetchSlots;
}

/** Runs at most `size` calls at once; a call waits `maxWaitMs` at most, then runs anyway. */
export class FetchSlots {
  readonly #slots: Semaphore;
  readonly #maxWaitMs: number;

  constructor(size: number, maxWaitMs: number) {
    this.#slots = new Semaphore(size);
    this.#maxWaitMs = maxWaitMs;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const held = await this.#take();
    try {
      return await fn();
    } finally {
      if (held) this.#slots.release();
    }
  }

  /** True once a slot is held; false when the wait ran out (a slot freed later is passed on at once). */
  async #take(): Promise<boolean> {
    const waiting = this.#slots.acquire();
    if (waiting === undefined) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#maxWaitMs);
    });
    const held = await Promise.race([waiting.then(() => true as const), late]);
    clearTimeout(timer);
    if (!held) void waiting.then(() => this.#slots.release());
    return held;
  }
}

/**
 * When a fleet's groups rebalance together (an instance killed, a thousand groups at once),
 * every member resumes from its committed offset, behind the tap, and fetches on its own at the
 * same moment: kafkajs 2.2.4 sends all those fetches at once, and a survivor held a thousand
 * decoded answers and ran out of heap under a 768 MiB pod limit. Fetches now take one of
 * FETCH_SLOTS slots for the request and its decoding; the others queue, each for at most
 * FETCH_SLOT_WAIT_MS. A single pusher (one member) never waits.
 */
export function patchKafkajsFetchSlots(): true {
  const require = createRequire(import.meta.url);
  // Deep path: the class is not exported. Checked by this package's tests against the installed
  // kafkajs, so an upgrade that moves or changes it fails there rather than silently.
  const Broker = require('kafkajs/src/broker/index.js') as { prototype: BrokerProto };
  const proto = Broker.prototype;
  if (proto.hookstreamFetchSlots) return true;
  const slots = new FetchSlots(FETCH_SLOTS, FETCH_SLOT_WAIT_MS);
  const { fetch } = proto;
  proto.fetch = function slottedFetch(this: unknown, ...args: unknown[]): Promise<unknown> {
    return slots.run(() => fetch.apply(this, args));
  };
  proto.hookstreamFetchSlots = slots;
  return true;
}
