import { classify, type DeliveryTrail, POLICY_VERSION } from '@hookstream/delivery';
import type { NoticePublisher } from '@hookstream/subscribers';
import { deliveryTracer, ProcessSpan } from '@hookstream/telemetry';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type DeadLetterFact, DeadLetterNotices, deadLetterFact } from '../src/dead-letter-notices.ts';
import type { DeliveryOutcome, RecordContext } from '../src/delivery-outcome.ts';
import { eventRecord } from './fakes.ts';

interface Published {
  readonly id: string;
  readonly tenant: string | undefined;
  readonly data: { readonly event: { readonly id?: string | null }; readonly suppressed: number };
}

function harness(options: { tenant?: string; fail?: boolean } = {}) {
  const published: Published[] = [];
  const logged: string[] = [];
  const publisher: NoticePublisher = {
    publish: async (type, data, { id, tenant }) => {
      if (options.fail) throw new Error('notices topic away');
      expect(type).toBe('subscriber.dead_lettered');
      published.push({ id, tenant, data: data as Published['data'] });
    },
  };
  const notices = new DeadLetterNotices({
    subscriber: 'billing',
    tenant: options.tenant,
    eventsTopic: 'events',
    notices: async () => publisher,
    log: (level, message) => logged.push(`${level}: ${message}`),
    perWindow: 3,
    windowMs: 60_000,
  });
  return { notices, published, logged };
}

function fact(n: number): DeadLetterFact {
  return {
    id: `subscriber.dead_lettered:billing:${n}`,
    eventId: `evt_${n}`,
    type: 'shipment.updated',
    reason: 'exhausted',
    attempts: 3,
    status: 503,
    outcome: 'server-error',
    atMs: Date.now(),
  };
}

/** Lets the publishes started so far reach the fake publisher. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('DeadLetterNotices: at most perWindow a window, then one carrying the count', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-12-10T10:00:00.000Z') }));
  afterEach(() => vi.useRealTimers());

  it("sends the first ones of a window each, with the subscriber's tenant", async () => {
    const h = harness({ tenant: 'acme' });
    for (const n of [1, 2, 3]) h.notices.deadLettered(fact(n));
    await settle();
    expect(h.published.map((p) => [p.data.event.id, p.data.suppressed, p.tenant])).toEqual([
      ['evt_1', 0, 'acme'],
      ['evt_2', 0, 'acme'],
      ['evt_3', 0, 'acme'],
    ]);
  });

  it('past the bound, one notice when the window ends names the last and counts the others', async () => {
    const h = harness();
    for (let n = 1; n <= 1000; n++) h.notices.deadLettered(fact(n));
    await settle();
    expect(h.published).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(h.published).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.published).toHaveLength(4);
    // 3 named one by one, 1 named by the window's last notice, 996 counted in it: 1000 in all.
    expect(h.published[3]).toMatchObject({
      id: 'subscriber.dead_lettered:billing:1000',
      data: { suppressed: 996 },
    });
    expect(h.published[3]?.tenant).toBeUndefined();
  });

  it('a new window opens at the next dead letter after one ended', async () => {
    const h = harness();
    for (let n = 1; n <= 5; n++) h.notices.deadLettered(fact(n));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.published.map((p) => p.data.suppressed)).toEqual([0, 0, 0, 1]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    for (let n = 6; n <= 9; n++) h.notices.deadLettered(fact(n));
    await settle();
    expect(h.published.map((p) => p.data.event.id).slice(4)).toEqual(['evt_6', 'evt_7', 'evt_8']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.published.at(-1)).toMatchObject({ data: { event: { id: 'evt_9' }, suppressed: 0 } });
  });

  it('a window with none past the bound ends without a notice', async () => {
    const h = harness();
    h.notices.deadLettered(fact(1));
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(h.published).toHaveLength(1);
  });

  it("stop sends the open window's count at once", async () => {
    const h = harness();
    for (let n = 1; n <= 7; n++) h.notices.deadLettered(fact(n));
    await h.notices.stop();
    expect(h.published.map((p) => p.data.suppressed)).toEqual([0, 0, 0, 3]);
  });

  it('a notice that cannot be published is logged; nothing throws', async () => {
    const h = harness({ fail: true });
    h.notices.deadLettered(fact(1));
    await h.notices.stop();
    expect(h.logged).toEqual([
      'warn: could not publish subscriber.dead_lettered; the dead letter is in the DLQ all the same',
    ]);
  });
});

const trail: DeliveryTrail = {
  eventId: 'evt_1',
  subscriber: 'billing',
  attempts: 3,
  firstAttemptAtMs: 1,
  lastAttemptAtMs: 2,
  classification: classify({ kind: 'response', status: 503 }, 0),
  excerpt: '',
  policyVersion: POLICY_VERSION,
  origin: { topic: 'events', partition: 0, offset: '1' },
  source: { topic: 'events', partition: 0, offset: '1' },
};

function context(topic: string, type: string | undefined): RecordContext {
  const record = { ...eventRecord(), topic };
  const here = { topic, partition: 0, offset: '7' };
  return {
    record,
    signal: new AbortController().signal,
    span: new ProcessSpan(deliveryTracer(), record, {
      consumerGroup: 'g',
      subscriber: 'billing',
      eventId: 'evt_1',
      eventType: type,
      tier: undefined,
    }),
    here,
    eventId: 'evt_1',
    type,
    tenant: undefined,
    origin: here,
  };
}

describe('deadLetterFact', () => {
  const dead: DeliveryOutcome = { kind: 'dead-lettered', reason: 'exhausted', trail };

  it('tells the event, its reason, its attempts and the last answer', () => {
    expect(deadLetterFact('billing', context('events', 'shipment.updated'), dead, 5)).toMatchObject({
      eventId: 'evt_1',
      type: 'shipment.updated',
      reason: 'exhausted',
      attempts: 3,
      status: 503,
      outcome: 'server-error',
      atMs: 5,
    });
  });

  it('gives one id per record dead-lettered, short whatever the topic name', () => {
    const a = deadLetterFact('billing', context('events', 'shipment.updated'), dead, 5);
    const b = deadLetterFact(
      'billing',
      context(`hookstream.retry.${'x'.repeat(200)}`, 'shipment.updated'),
      dead,
      5,
    );
    expect(a?.id).toBe(deadLetterFact('billing', context('events', 'shipment.updated'), dead, 9)?.id);
    expect(a?.id).not.toBe(b?.id);
    expect(b?.id.length).toBeLessThanOrEqual(200);
  });

  it('is null for a notice, read from the notices topic or typed as one, and for other steps', () => {
    expect(
      deadLetterFact('billing', context('hookstream.notices.events', 'subscriber.disabled'), dead, 5),
    ).toBeNull();
    expect(deadLetterFact('billing', context('hookstream.notices.events', undefined), dead, 5)).toBeNull();
    expect(deadLetterFact('billing', context('events', 'subscriber.dead_lettered'), dead, 5)).toBeNull();
    expect(
      deadLetterFact('billing', context('events', 'shipment.updated'), { kind: 'filtered' }, 5),
    ).toBeNull();
  });
});
