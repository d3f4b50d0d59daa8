import {
  CE_HEADER,
  type DeadLetterReason,
  HS_HEADER,
  type SubscriberDefinition,
} from '@hookstream/contracts';
import type { AttemptReport, DeliveryTrail } from '@hookstream/delivery';
import type { ConsumedRecord } from '@hookstream/kafka';
import type { DeliveryObserver } from '../src/delivery-observer.ts';
import type { DeliveryOutcome, RecordContext } from '../src/delivery-outcome.ts';
import type { DecodeResult, EventDecoder } from '../src/event-decoder.ts';
import type { OutcomeRouter, RetryDecision } from '../src/outcome-router.ts';
import type { AttemptLimiter, DeliveryClient } from '../src/subscriber-delivery.ts';
import { SubscriberTopology } from '../src/subscriber-topology.ts';

export const EVENTS = 'events-unit';

export function topology(overrides: Partial<SubscriberDefinition> = {}): SubscriberTopology {
  return new SubscriberTopology(
    {
      name: 'billing',
      url: 'https://hooks.example/in',
      eventTypes: ['*'],
      rate: { perSecond: 50, burst: 0 },
      concurrency: 2,
      timeoutMs: 1000,
      retry: { delaysMs: [1000, 10_000], maxAttempts: 3, maxAgeMs: 3_600_000, jitter: 0 },
      start: 'latest',
      ordering: 'none',
      headers: {},
      allowPrivateNetwork: false,
      ...overrides,
    },
    EVENTS,
  );
}

let offset = 0;

/** An events-topic record of a fresh event, with the CloudEvents headers the ingress writes. */
export function eventRecord(headers: Record<string, string> = {}, topic = EVENTS): ConsumedRecord {
  offset++;
  return {
    topic,
    partition: 0,
    offset: String(offset),
    key: 'k1',
    value: Buffer.from([0, 0, 0, 0, 1]),
    headers: {
      [CE_HEADER.id]: `evt_${offset}`,
      [CE_HEADER.type]: 'shipment.updated',
      [CE_HEADER.time]: new Date().toISOString(),
      ...headers,
    },
    timestampMs: Date.now(),
  };
}

/** A retry-tier record that already went through `attempts` attempts. */
export function tierRecord(attempts: number, topic = 'hookstream.sub.billing.retry.1'): ConsumedRecord {
  const base = eventRecord({}, topic);
  const eventId = base.headers[CE_HEADER.id] ?? '';
  return {
    ...base,
    headers: {
      ...base.headers,
      [HS_HEADER.eventId]: eventId,
      [HS_HEADER.subscriber]: 'billing',
      [HS_HEADER.attempts]: String(attempts),
      [HS_HEADER.firstAttemptAt]: new Date(Date.now() - 5000).toISOString(),
      [HS_HEADER.dueAt]: new Date().toISOString(),
      [HS_HEADER.originTopic]: EVENTS,
      [HS_HEADER.originPartition]: '2',
      [HS_HEADER.originOffset]: '77',
    },
  };
}

export class FakeDecoder implements EventDecoder {
  results: DecodeResult[] = [];
  calls = 0;

  async decode(): Promise<DecodeResult> {
    this.calls++;
    return this.results.shift() ?? { kind: 'ok', data: { shipment: { id: 'shp_1' } } };
  }
}

/** Answers each request with the next report (a 204 when none is left) and keeps the requests. */
export class FakeClient implements DeliveryClient {
  readonly sent: { eventId: string; body: string; traceparent?: string | undefined }[] = [];
  readonly reports: AttemptReport[] = [];

  async send(delivery: { eventId: string; body: string; traceparent?: string | undefined }) {
    this.sent.push(delivery);
    return this.reports.shift() ?? response(204);
  }
}

export function response(status: number, retryAfter?: string): AttemptReport {
  return {
    kind: 'response',
    status,
    retryAfter: retryAfter ?? null,
    durationMs: 3,
    excerpt: `body ${status}`,
  };
}

export class FakeLimiter implements AttemptLimiter {
  /** Set to make the next schedule return null, as when the signal aborts while waiting. */
  refuse = false;
  readonly pauses: number[] = [];

  async schedule<T>(job: () => Promise<T>): Promise<T | null> {
    if (this.refuse) return null;
    return job();
  }

  pauseFor(ms: number): void {
    this.pauses.push(ms);
  }
}

export class FakeRouter implements OutcomeRouter {
  answer: 'settled' | 'abandoned' = 'settled';
  readonly retries: {
    record: ConsumedRecord;
    trail: DeliveryTrail;
    decision: RetryDecision;
    dueAtMs: number;
  }[] = [];
  readonly deadLetters: { record: ConsumedRecord; trail: DeliveryTrail; reason: DeadLetterReason }[] = [];

  async retry(record: ConsumedRecord, trail: DeliveryTrail, decision: RetryDecision, dueAtMs: number) {
    this.retries.push({ record, trail, decision, dueAtMs });
    return this.answer;
  }

  async deadLetter(record: ConsumedRecord, trail: DeliveryTrail, reason: DeadLetterReason) {
    this.deadLetters.push({ record, trail, reason });
    return this.answer;
  }
}

export class FakeObserver implements DeliveryObserver {
  readonly steps: { ctx: RecordContext; step: DeliveryOutcome }[] = [];
  readonly attempts: { outcomeClass: string; status: number | null }[] = [];
  waits = 0;
  readonly decodeWaits: { detail: string; waitMs: number }[] = [];

  decodeWaiting(_ctx: RecordContext, detail: string, waitMs: number): void {
    this.decodeWaits.push({ detail, waitMs });
  }

  limiterWaited(): void {
    this.waits++;
  }

  attempted(_ctx: RecordContext, outcomeClass: string, status: number | null): void {
    this.attempts.push({ outcomeClass, status });
  }

  recorded(ctx: RecordContext, step: DeliveryOutcome): void {
    this.steps.push({ ctx, step });
  }
}
