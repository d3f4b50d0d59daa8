import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CE_HEADER } from '@hookstream/contracts';
import { maxInWindow, type SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from '../support/child.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { waitFor } from '../support/wait.ts';

// Issue 26 item 6, seed 003's case on the real stack: one subscriber takes enrollments for every
// school, its destination limited to 50/s. School A publishes 500, then school B 5. With fairness
// "tenant" B's 5 arrive within 3 s, where in arrival order they would wait behind A's 500 (ten
// seconds). The pusher is a process of its own, as in production; the endpoint is in this one.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const RATE = 50;
const A_EVENTS = 500;
const B_EVENTS = 5;
const DRAIN_MS = ((A_EVENTS + B_EVENTS) / RATE) * 1000;

let endpoint: SampleReceiver;
let topic = '';

async function publish(school: string, count: number): Promise<TestEvent[]> {
  const events = Array.from({ length: count }, (_, i) =>
    factory.event('student.enrolled', `${school}/student-${i}`),
  );
  const messages = await Promise.all(
    events.map(async (e) => {
      const message = await factory.message(e);
      message.headers[CE_HEADER.tenant] = school;
      return message;
    }),
  );
  await fx.producer.send({ topic, acks: -1, messages });
  return events;
}

describe(`fairness "tenant": one school's burst of ${A_EVENTS} does not hold another's ${B_EVENTS} (limit ${RATE}/s)`, () => {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    topic = await fx.topic(2);
    endpoint = await receivers.start();
  });

  afterAll(async () => {
    await fx.close();
    await receivers.closeAll();
  });

  it("B's events arrive within 3 s while A's burst drains; each event once; never more than the limit in a second", async () => {
    const name = uniqueName('fair-enrollments');
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-fair-'));
    const config = join(dir, 'subscriber.json');
    await writeFile(
      config,
      JSON.stringify({
        name,
        url: endpoint.url,
        eventTypes: ['student.enrolled'],
        fairness: 'tenant',
        rate: { perSecond: RATE, burst: 0 },
        // A second's worth of requests, as 5 were at 5/s.
        concurrency: RATE,
        start: 'earliest',
        allowPrivateNetwork: true,
      }),
    );
    const pusher = spawnCli(['push', '--config', config, '--topic', topic]);
    try {
      await waitFor(
        'the pusher to start',
        async () => (pusher.output().includes('"pusher started"') ? true : undefined),
        { timeoutMs: 60_000 },
      );
      const a = await publish('school-a', A_EVENTS);
      // A's burst is under way: the destination's limit is now what holds events back.
      await waitFor('A to be delivering', async () => (endpoint.arrivals.length >= 3 ? true : undefined));
      const bPublishedAt = Date.now();
      const b = await publish('school-b', B_EVENTS);
      const bIds = new Set(b.map((e) => e.id));
      const bArrivals = await waitFor(
        "B's events",
        async () => {
          const arrived = endpoint.arrivals.filter((x) => bIds.has(x.eventId ?? ''));
          return arrived.length >= B_EVENTS ? arrived : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const bLastAt = Math.max(...bArrivals.map((x) => x.atMs));
      const aSoFar = endpoint.arrivals.filter((x) => x.body?.tenant === 'school-a').length;
      process.stdout.write(
        `B's ${B_EVENTS} arrived ${bLastAt - bPublishedAt} ms after B published, with ${aSoFar} of A's ${A_EVENTS} delivered\n`,
      );
      expect(bLastAt - bPublishedAt).toBeLessThanOrEqual(3000);
      expect(aSoFar).toBeLessThan(A_EVENTS / 2);
      expect(bArrivals.every((x) => x.body?.tenant === 'school-b')).toBe(true);

      // The rest of A's burst drains at the limit; every event arrives exactly once.
      await waitFor(
        'every event',
        async () => (endpoint.arrivals.length >= A_EVENTS + B_EVENTS ? true : undefined),
        { timeoutMs: 2 * DRAIN_MS + 30_000, intervalMs: 500 },
      );
      await fx.settledEverything(name, topic);
      const ids = endpoint.arrivals.map((x) => x.eventId ?? '');
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual([...a, ...b].map((e) => e.id).sort());
      expect(endpoint.arrivals.every((x) => x.status >= 200 && x.status < 300)).toBe(true);
      expect(
        maxInWindow(
          endpoint.arrivals.map((x) => x.atMs),
          1000,
        ),
      ).toBeLessThanOrEqual(RATE);
    } finally {
      pusher.kill('SIGTERM');
      await exited(pusher);
    }
  }, 120_000);
});
