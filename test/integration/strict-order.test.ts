import { retryTopicName } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';

// Issue 28 item 4 on the real stack: with `ordering: "strict"`, an event whose endpoint fails it
// three times is retried in place and holds back only the later events of its key, which then
// arrive in order; another key's events flow meanwhile; nothing goes through a retry tier.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();

describe('ordering "strict"', () => {
  openForSuite(fx, factory, receivers);

  it('keeps a failing key in order, retried in place, while another key flows', async () => {
    // One partition: both keys share it, so only the per-key hold can let one pass the other.
    const topic = await fx.topic(1);
    const name = uniqueName('strict');
    const held = [0, 1, 2].map(() => factory.event('shipment.updated', 'held-key'));
    const other = [0, 1, 2].map(() => factory.event('shipment.updated', 'other-key'));
    const [first] = held;
    if (first === undefined) throw new Error('three events');
    const endpoint = await receivers.start({
      behaviour: { failTimes: 3, failStatus: 503, failEventIds: [first.id] },
    });
    await fx.startPusher(topic, {
      name,
      url: endpoint.url,
      ordering: 'strict',
      // Long enough that the other key's events are surely through while the first one waits.
      retry: { delaysMs: [1000], maxAttempts: 6, maxAgeMs: 3_600_000, jitter: 0 },
    });
    // Interleaved: held-1, other-1, held-2, other-2, held-3, other-3.
    await fx.produce(
      topic,
      factory,
      held.flatMap((h, i) => [h, other[i] ?? h]),
    );
    await fx.settledEverything(name, topic);

    const mine = endpoint.arrivals.filter((a) => a.subscriptionId === name);
    const acceptedAt = (id: string) => mine.find((a) => a.eventId === id && a.status === 204)?.atMs;
    // The failing event: three 503s, then accepted, on the fourth attempt.
    expect(mine.filter((a) => a.eventId === first.id).map((a) => [a.status, a.body?.attempt])).toEqual([
      [503, 1],
      [503, 2],
      [503, 3],
      [204, 4],
    ]);
    // Its key in order, each event once.
    const heldAccepted = mine.filter((a) => a.status === 204 && held.some((h) => h.id === a.eventId));
    expect(heldAccepted.map((a) => a.eventId)).toEqual(held.map((h) => h.id));
    // The other key did not wait for it: all of it was accepted before the held event was.
    const firstAcceptedAt = acceptedAt(first.id) ?? 0;
    for (const o of other) expect(acceptedAt(o.id)).toBeLessThan(firstAcceptedAt);
    // Retried in place: nothing was written to a retry tier.
    const tiers = await fx.admin.topicOffsets(retryTopicName(name, 1));
    expect((tiers ?? []).reduce((n, p) => n + Number(p.high), 0)).toBe(0);
  }, 90_000);
});
