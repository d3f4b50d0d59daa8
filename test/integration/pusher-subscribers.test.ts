import type { SampleReceiver } from '@hookstream/receiver';
import { describe, expect, it } from 'vitest';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();

const accepted = (r: SampleReceiver, n: number) => async () => (r.stats().accepted >= n ? true : undefined);

describe('subscribers on one topic', () => {
  openForSuite(fx, factory, receivers);

  it('advance independently: one endpoint down does not hold the other two back, and it catches up', async () => {
    const [a, b, c] = [await receivers.start(), await receivers.start(), await receivers.start()];
    await b.close(); // b's endpoint refuses connections until it comes back
    const topic = await fx.topic(3);
    const events = Array.from({ length: 60 }, () => factory.event());
    await fx.produce(topic, factory, events);
    const names = { a: uniqueName('sub-a'), b: uniqueName('sub-b'), c: uniqueName('sub-c') };
    const retry = { delaysMs: [100, 300, 1000], maxAttempts: 1000, maxAgeMs: 3_600_000, jitter: 0.1 };
    await fx.startPusher(topic, { name: names.a, url: a.url });
    const { pusher: pb } = await fx.startPusher(topic, { name: names.b, url: b.url, retry });
    await fx.startPusher(topic, { name: names.c, url: c.url });

    await waitFor('a and c to get all 60', async () =>
      (await accepted(a, 60)()) && (await accepted(c, 60)()) ? true : undefined,
    );
    const end = await fx.end(topic);
    await waitFor('a and c ledgers at the end', async () =>
      (await fx.ledger(names.a, topic)) === end && (await fx.ledger(names.c, topic)) === end
        ? true
        : undefined,
    );
    // Meanwhile b has been failing to connect: nothing acknowledged, every event handed to its
    // retry tiers (durably, so its events-topic ledger moved on without delivering anything).
    expect(pb.counts.retries).toBeGreaterThan(0);
    expect(pb.counts.acknowledged).toBe(0);
    expect(b.arrivals).toHaveLength(0);

    await b.listen(b.port);
    await waitFor('b to catch up', accepted(b, 60), { timeoutMs: 30_000 });
    await waitFor('b ledger at the end', async () =>
      (await fx.ledger(names.b, topic)) === end ? true : undefined,
    );
    for (const r of [a, b, c])
      expect(new Set(r.arrivals.map((x) => x.eventId))).toEqual(new Set(events.map((e) => e.id)));
  });

  it('a subscriber added later starts where its start setting says', async () => {
    const topic = await fx.topic(2);
    const early = Array.from({ length: 5 }, () => factory.event());
    await fx.produce(topic, factory, early);
    // Kafka timestamps are the producer's clock at the send, in milliseconds: the cut must be a
    // millisecond after the send was acknowledged, not only after the events were made, or the
    // last early record can carry the cut's own timestamp.
    const sentAt = Date.now();
    const cut = await waitFor('a new millisecond', async () => {
      const now = Date.now();
      return now > sentAt ? now : undefined;
    });
    const late = Array.from({ length: 5 }, () => factory.event());
    await fx.produce(topic, factory, late);

    const [fromEarliest, fromTime, fromLatest] = [
      await receivers.start(),
      await receivers.start(),
      await receivers.start(),
    ];
    await fx.startPusher(topic, { name: uniqueName('earliest'), url: fromEarliest.url, start: 'earliest' });
    await fx.startPusher(topic, {
      name: uniqueName('at-time'),
      url: fromTime.url,
      start: new Date(cut).toISOString(),
    });
    const latestName = uniqueName('latest');
    await fx.startPusher(topic, { name: latestName, url: fromLatest.url, start: 'latest' });
    const after = Array.from({ length: 3 }, () => factory.event());
    await fx.produce(topic, factory, after);

    await waitFor('earliest gets all 13', accepted(fromEarliest, 13));
    await waitFor('timestamp start gets the late 5 and the last 3', accepted(fromTime, 8));
    await waitFor('latest gets the last 3', accepted(fromLatest, 3));
    const end = await fx.end(topic);
    await waitFor('latest ledger at the end', async () =>
      (await fx.ledger(latestName, topic)) === end ? true : undefined,
    );
    const ids = (r: SampleReceiver) => new Set(r.arrivals.map((x) => x.eventId));
    expect(ids(fromEarliest)).toEqual(new Set([...early, ...late, ...after].map((e) => e.id)));
    expect(ids(fromTime)).toEqual(new Set([...late, ...after].map((e) => e.id)));
    expect(ids(fromLatest)).toEqual(new Set(after.map((e) => e.id)));
  });

  it('an existing group resumes from its ledger, whatever start says', async () => {
    const topic = await fx.topic(1);
    const r = await receivers.start();
    const name = uniqueName('resume');
    await fx.produce(topic, factory, [factory.event(), factory.event()]);
    const { pusher } = await fx.startPusher(topic, { name, url: r.url, start: 'earliest' });
    await waitFor('first two', accepted(r, 2));
    const end = await fx.end(topic);
    await waitFor('ledger', async () => ((await fx.ledger(name, topic)) === end ? true : undefined));
    await pusher.stop();
    const next = factory.event();
    await fx.produce(topic, factory, [next]);
    const { pusher: again } = await fx.startPusher(topic, { name, url: r.url, start: 'earliest' });
    await waitFor('the third', accepted(r, 3));
    expect(r.arrivals.map((a) => a.eventId).at(-1)).toBe(next.id);
    expect(r.stats().duplicates).toBe(0);
    // The receiver counts the event before its answer reaches the pusher, which counts it then.
    await waitFor('the pusher to count its one delivery', async () =>
      again.counts.acknowledged > 0 ? true : undefined,
    );
    expect(again.counts.acknowledged).toBe(1);
  });
});
