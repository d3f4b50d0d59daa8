import { CE_HEADER, retryTopicName } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { EventFactory, newSecret, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

// Issue 28 item 3 on the real stack: `batch` sends several events in one signed request, never
// mixing two tenants; a failing batch sends each event on its own retry path with its own
// attempt count, and retries are batched again; a 413 splits a batch before it counts.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const TENANTS = ['school-a', 'school-b', 'school-c'] as const;

/** Events of the tenants in turn, each record with its `ce_tenant`. */
async function publish(topic: string, count: number): Promise<TestEvent[]> {
  const events = Array.from({ length: count }, (_, i) => factory.event('student.enrolled', `student-${i}`));
  const messages = await Promise.all(
    events.map(async (e, i) => {
      const message = await factory.message(e);
      message.headers[CE_HEADER.tenant] = TENANTS[i % TENANTS.length] ?? 'school-a';
      return message;
    }),
  );
  for (let i = 0; i < messages.length; i += 500)
    await fx.producer.send({ topic, acks: -1, messages: messages.slice(i, i + 500) });
  return events;
}

describe('batch', () => {
  openForSuite(fx, factory, receivers);

  it('300 events over three tenants: no batch mixes tenants, every event arrives, retries keep per-event attempts', async () => {
    const topic = await fx.topic(3);
    const name = uniqueName('batch');
    const secret = newSecret();
    const events = await publish(topic, 300);
    const failing = events.filter((_, i) => i % 50 === 7).map((e) => e.id);
    const endpoint = await receivers.start({
      secret,
      behaviour: { failTimes: 2, failStatus: 503, failEventIds: failing },
    });
    await fx.startPusher(
      topic,
      {
        name,
        url: endpoint.url,
        batch: { maxEvents: 100, maxBytes: 256 * 1024, maxWaitMs: 200, groupBy: 'tenant' },
      },
      secret,
    );
    // Retries go through the tiers: the ledger passes them first, so wait for the receiver.
    await waitFor(
      'all 300 events accepted',
      async () => (endpoint.stats().accepted >= 300 ? true : undefined),
      { timeoutMs: 90_000 },
    );

    const mine = endpoint.arrivals.filter((a) => a.subscriptionId === name);
    // Every arrival came in a signed batch request (the receiver verified each signature).
    expect(mine.every((a) => a.batchId?.startsWith('batch_'))).toBe(true);
    const batches = new Map<string, Set<unknown>>();
    for (const a of mine)
      batches.set(a.batchId ?? '', (batches.get(a.batchId ?? '') ?? new Set()).add(a.body?.tenant));
    for (const tenants of batches.values()) expect(tenants.size).toBe(1);
    // Batched indeed: far fewer requests than events.
    expect(batches.size).toBeLessThan(60);
    // Every event accepted, each once.
    const accepted = mine.filter((a) => a.status === 204).map((a) => a.eventId);
    expect(new Set(accepted).size).toBe(300);
    expect(accepted).toHaveLength(300);
    // Each event's attempts count up from 1 by one, its own, however many batches it rode.
    for (const e of events) {
      const attempts = mine.filter((a) => a.eventId === e.id).map((a) => a.body?.attempt);
      expect(attempts).toEqual(attempts.map((_, i) => i + 1));
    }
    // The failing events were answered 503 twice, then accepted on their third attempt.
    for (const id of failing)
      expect(mine.filter((a) => a.eventId === id).map((a) => [a.status, a.body?.attempt])).toEqual([
        [503, 1],
        [503, 2],
        [204, 3],
      ]);
    // Retries were batched again: some retry request carried more than one event.
    const retryBatches = new Map<string, number>();
    for (const a of mine)
      if (a.body?.attempt === 2)
        retryBatches.set(a.batchId ?? '', (retryBatches.get(a.batchId ?? '') ?? 0) + 1);
    expect(Math.max(...retryBatches.values())).toBeGreaterThan(1);
  }, 120_000);

  it('a 413 splits the batch in halves until the parts fit, and no event counts it as a failure', async () => {
    const topic = await fx.topic(1);
    const name = uniqueName('batch413');
    const events = await publish(topic, 40);
    // Each event's body is about 300 bytes: a batch of 40 is far past what this endpoint takes.
    const endpoint = await receivers.start({ maxBodyBytes: 2048 });
    await fx.startPusher(topic, {
      name,
      url: endpoint.url,
      batch: { maxEvents: 100, maxBytes: 64 * 1024, maxWaitMs: 500, groupBy: 'tenant' },
    });
    await fx.settledEverything(name, topic);
    const mine = endpoint.arrivals.filter((a) => a.subscriptionId === name);
    expect(mine.map((a) => a.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    expect(mine.every((a) => a.status === 204 && a.body?.attempt === 1)).toBe(true);
    expect(mine.some((a) => (a.batchSize ?? 0) > 1)).toBe(true);
    // Nothing went to a retry tier: every event was accepted on its first attempt.
    const tier = await fx.admin.topicOffsets(retryTopicName(name, 1));
    expect((tier ?? []).reduce((n, p) => n + Number(p.high), 0)).toBe(0);
  }, 120_000);
});
