import {
  CE_HEADER,
  formatLocation,
  type RecordLocation,
  readRetryState,
  tenantOf,
} from '@hookstream/contracts';
import type { ConsumedRecord } from '@hookstream/kafka';
import type { DeliveryObserver } from './delivery-observer.ts';
import type { RecordContext } from './delivery-outcome.ts';
import type { EventDecoder } from './event-decoder.ts';
import { RecentIds } from './recent-ids.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

/** The delivery so far, from the tier record's headers (a fresh delivery has none). */
export interface Progress {
  readonly attempts: number;
  readonly firstAttemptAtMs: number | null;
  readonly origin: RecordLocation;
}

/** A record that passed the filters and decoded: what its delivery needs. */
export interface Deliverable {
  readonly eventId: string;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly occurredAt: string;
  readonly occurredAtMs: number;
  /** undefined: the event has no tenant, and its body names none. */
  readonly tenant: string | undefined;
  readonly progress: Progress;
}

/** What a consumed record is to the subscriber before anything is sent. */
export type Admission =
  /** `by`: the part of the subscriber's filter that refused it (absent: its type or tenant). */
  | { readonly kind: 'filtered'; readonly by?: string }
  /** Undecodable or with headers that cannot be trusted: dead-lettered at once. */
  | { readonly kind: 'poison'; readonly detail: string }
  /** Stopped while the registry was unreachable: consumed again later. */
  | { readonly kind: 'stopped' }
  | { readonly kind: 'event'; readonly event: Deliverable };

export interface EventAdmissionDeps {
  readonly topology: SubscriberTopology;
  readonly decoder: EventDecoder;
  readonly observer: Pick<DeliveryObserver, 'decodeWaiting'>;
}

/** Waits between decodes while the registry is unavailable; the last one repeats. */
const REGISTRY_BACKOFF_MS = [1000, 2000, 5000, 10_000, 30_000] as const;
/**
 * Notice ids remembered, to pass over the copies other replicas published: they follow the first
 * within moments on the notices topic's one partition, so far fewer than this lie between.
 */
const NOTICE_IDS_KEPT = 10_000;

/**
 * The steps every consumed record takes before it is delivered, whether pushed or leased: its
 * retry state, the subscriber's tenant and types, a notice's first copy only, the filter on
 * attributes (before decoding) and on data (after), the decode itself. Sets `ctx.origin`.
 */
export class EventAdmission {
  readonly #topology: SubscriberTopology;
  readonly #decoder: EventDecoder;
  readonly #observer: Pick<DeliveryObserver, 'decodeWaiting'>;
  readonly #notices = new RecentIds(NOTICE_IDS_KEPT);

  constructor(deps: EventAdmissionDeps) {
    this.#topology = deps.topology;
    this.#decoder = deps.decoder;
    this.#observer = deps.observer;
  }

  /**
   * `headerProblem`: why the record's CloudEvents headers cannot be trusted (see readEventHeaders);
   * `tenant`: its `ce_tenant`, read with them.
   */
  async admit(
    ctx: RecordContext,
    headerProblem: string | null,
    tenant: string | undefined,
  ): Promise<Admission> {
    const progress = this.#progress(ctx.record);
    if (progress === null) return { kind: 'poison', detail: 'unreadable retry headers' };
    ctx.origin = progress.origin;
    const topology = this.#topology;
    // Another tenant's record, or another subscriber's type, is none of this one's business,
    // whatever else is wrong with it; so is a notice type anywhere but on the notices topic (a forgery).
    if (!topology.takesTenant(tenantOf(ctx.record.headers))) return { kind: 'filtered' };
    if (ctx.type !== undefined && !topology.takes(ctx.type, progress.origin.topic, ctx.record.key))
      return { kind: 'filtered' };
    const { eventId, type, record } = ctx;
    if (headerProblem !== null || eventId === undefined || type === undefined)
      return { kind: 'poison', detail: headerProblem ?? 'unreadable CloudEvents headers' };
    // Several replicas may publish one notice (one id): its first copy is delivered, the others
    // are passed over. They share the notices topic's one partition, so one member sees them all.
    if (topology.isNoticesTopic(record.topic) && !this.#notices.owns(eventId, formatLocation(ctx.here)))
      return { kind: 'filtered' };
    // A filter on attributes only is judged before the event is decoded.
    if (topology.filter !== null && !topology.filterNeedsData) {
      const verdict = topology.admits({ headers: record.headers });
      if (!verdict.pass) return { kind: 'filtered', by: verdict.refusedBy };
    }
    const decoded = await this.#decode(ctx, type);
    if (decoded === null) return { kind: 'stopped' };
    if (decoded.kind === 'poison') return { kind: 'poison', detail: decoded.detail };
    if (topology.filterNeedsData) {
      const verdict = topology.admits({ headers: record.headers, data: decoded.data });
      if (!verdict.pass) return { kind: 'filtered', by: verdict.refusedBy };
    }
    const occurredAt = record.headers[CE_HEADER.time] ?? new Date(record.timestampMs).toISOString();
    const parsed = Date.parse(occurredAt);
    const occurredAtMs = Number.isNaN(parsed) ? record.timestampMs : parsed;
    return {
      kind: 'event',
      event: { eventId, type, data: decoded.data, occurredAt, occurredAtMs, tenant, progress },
    };
  }

  /** Null when a tier record's headers cannot be read: the record is then poison. */
  #progress(record: ConsumedRecord): Progress | null {
    if (this.#topology.isSourceTopic(record.topic))
      return { attempts: 0, firstAttemptAtMs: null, origin: locationOf(record) };
    const state = readRetryState(record.headers);
    if (state === null) return null;
    const { attempts, firstAttemptAt, origin } = state;
    return {
      attempts,
      firstAttemptAtMs: firstAttemptAt === undefined ? null : Date.parse(firstAttemptAt),
      origin: origin ?? locationOf(record),
    };
  }

  /**
   * Null when stopped while the registry was unreachable. An outage is not the record's fault,
   * so it waits (backing off, each wait reported to the observer) instead of being dead-lettered.
   */
  async #decode(ctx: RecordContext, type: string) {
    for (let waits = 0; ; waits++) {
      const result = await this.#decoder.decode(ctx.record.value, type);
      if (result.kind !== 'unavailable') return result;
      const waitMs = REGISTRY_BACKOFF_MS[Math.min(waits, REGISTRY_BACKOFF_MS.length - 1)] ?? 30_000;
      this.#observer.decodeWaiting(ctx, result.detail, waitMs);
      if (!(await waitFor(waitMs, ctx.signal))) return null;
    }
  }
}

/** False when the signal aborted first. The global timer, so a test's fake clock can drive it. */
export function waitFor(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function locationOf(record: ConsumedRecord): RecordLocation {
  return { topic: record.topic, partition: record.partition, offset: record.offset };
}
