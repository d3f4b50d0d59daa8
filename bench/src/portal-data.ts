import type { AttemptLogEntry } from '@hookstream/contracts';

/** A seeded generator (mulberry32): the same run fills the same store. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const TYPES = [
  'order.created',
  'order.updated',
  'order.cancelled',
  'invoice.paid',
  'invoice.failed',
  'shipment.sent',
  'shipment.delivered',
  'customer.updated',
];
const DAY_MS = 86_400_000;

/** One step of one endpoint, and how long after the message's first it came. */
type StepFields = Omit<AttemptLogEntry, 'eventId' | 'subscriber' | 'tenant' | 'type' | 'source' | 'at'> & {
  readonly afterMs: number;
};
const RETENTION_MS = 7 * DAY_MS;

/**
 * A week of a platform's attempt log: tenants of Zipf-like sizes (the k-th largest has 1/k of
 * the largest's messages), each with 1–5 endpoints, each message going to 1–3 of them. Per
 * endpoint: most delivered at once, some after one or two retries, some dead-lettered after
 * retries, a few still waiting for a retry.
 */
export class PortalWorkload {
  readonly tenants: number;
  readonly messages: number;
  /** The tenant of each message (by index), and each tenant's message count. */
  readonly tenantOf: Uint16Array;
  readonly sizes: Uint32Array;
  readonly startMs: number;
  readonly #random: () => number;
  /** Cumulative tenant weights, for sampling a tenant by its size. */
  readonly #cumulative: Float64Array;

  constructor(tenants: number, messages: number, seed = 44) {
    this.tenants = tenants;
    this.messages = messages;
    this.#random = seededRandom(seed);
    this.#cumulative = new Float64Array(tenants);
    let sum = 0;
    for (let k = 0; k < tenants; k++) {
      sum += 1 / (k + 1);
      this.#cumulative[k] = sum;
    }
    for (let k = 0; k < tenants; k++) this.#cumulative[k] = (this.#cumulative[k] ?? 0) / sum;
    this.tenantOf = new Uint16Array(messages);
    this.sizes = new Uint32Array(tenants);
    for (let i = 0; i < messages; i++) {
      const t = this.weightedTenant();
      this.tenantOf[i] = t;
      this.sizes[t] = (this.sizes[t] ?? 0) + 1;
    }
    this.startMs = Date.parse('2026-12-01T00:00:00.000Z');
  }

  /** A tenant drawn by its share of the messages: big tenants are asked about more. */
  weightedTenant(): number {
    const r = this.#random();
    let low = 0;
    let high = this.tenants - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.#cumulative[mid] ?? 1) < r) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  random(): number {
    return this.#random();
  }

  tenantName(t: number): string {
    return `tenant-${String(t).padStart(4, '0')}`;
  }

  endpointCount(t: number): number {
    return 1 + (t % 5);
  }

  endpointName(t: number, e: number): string {
    return `t${String(t).padStart(4, '0')}-endpoint-${e}`;
  }

  eventId(i: number): string {
    return `msg_${i.toString(36).padStart(8, '0')}${((i * 2654435761) >>> 0).toString(36)}`;
  }

  typeOf(i: number): string {
    // Skewed: the first types are the common ones.
    return TYPES[Math.floor(TYPES.length * ((i * 0.618033988749895) % 1) ** 2)] ?? 'order.created';
  }

  /** The entries of message i, in the order the pusher writes them. */
  entriesOf(i: number): AttemptLogEntry[] {
    const t = this.tenantOf[i] ?? 0;
    const tenant = this.tenantName(t);
    const type = this.typeOf(i);
    const eventId = this.eventId(i);
    const bornMs = this.startMs + Math.floor((i / this.messages) * RETENTION_MS);
    const endpoints = Math.min(this.endpointCount(t), 1 + Math.floor(this.#random() * 3));
    const first = Math.floor(this.#random() * this.endpointCount(t));
    const out: AttemptLogEntry[] = [];
    for (let n = 0; n < endpoints; n++) {
      const subscriber = this.endpointName(t, (first + n) % this.endpointCount(t));
      // Every step names the events-topic record it began from, as a pusher's entries do.
      const origin = { topic: 'hookstream.events', partition: i % 12, offset: String(i) };
      const base = { eventId, subscriber, tenant, type, source: origin, origin };
      for (const { afterMs, ...step } of this.#steps())
        out.push({ ...base, ...step, at: new Date(bornMs + afterMs).toISOString() });
    }
    return out;
  }

  #steps(): StepFields[] {
    const r = this.#random();
    const ok = (attempt: number, afterMs: number) => ({
      step: 'delivered' as const,
      attempt,
      status: 200,
      durationMs: 20 + Math.floor(this.#random() * 200),
      excerpt: '{"received":true}',
      afterMs,
    });
    const retry = (attempt: number, afterMs: number) => ({
      step: 'retry-scheduled' as const,
      attempt,
      status: 503,
      durationMs: 30 + Math.floor(this.#random() * 2000),
      excerpt:
        '<html><head><title>503 Service Temporarily Unavailable</title></head><body>upstream busy</body></html>',
      tier: attempt,
      afterMs,
    });
    if (r < 0.9) return [ok(1, 40)];
    if (r < 0.95) return [retry(1, 40), ok(2, 60_040)];
    if (r < 0.98) return [retry(1, 40), retry(2, 60_040), ok(3, 360_040)];
    const dead = {
      ...retry(3, 360_040),
      step: 'dead-lettered' as const,
      deadLetterReason: 'exhausted' as const,
    };
    if (r < 0.995) return [retry(1, 40), retry(2, 60_040), dead];
    return [retry(1, 40)];
  }
}
