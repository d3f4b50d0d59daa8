import { setTimeout as sleep } from 'node:timers/promises';
import { type ConsumedRecord, createKafka, createRawProducer } from '@hookstream/kafka';
import { EventsTap, type HandlerOutcome, SubscriberConsumer } from '@hookstream/pusher-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { plainSubscription } from '../support/subscription.ts';
import { waitFor } from '../support/wait.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'events-tap-test', quiet: true });
const admin = kafka.admin();
const producer = createRawProducer(kafka);
const quiet = () => undefined;

async function newTopic(partitions: number): Promise<string> {
  const topic = uniqueName('tap-test');
  await admin.ensureTopics([{ topic, partitions, replicationFactor: 1 }]);
  return topic;
}

async function produce(topic: string, types: readonly string[], from = 0): Promise<void> {
  await producer.send({
    topic,
    acks: -1,
    messages: types.map((type, i) => ({
      key: `k${from + i}`,
      value: String(from + i),
      headers: { ce_type: type },
    })),
  });
}

async function committedTotal(groupId: string, topic: string): Promise<number> {
  return (await admin.committedOffsets(groupId, topic)).reduce((n, p) => n + Number(p.offset ?? 0), 0);
}

function subscriber(
  topic: string,
  tap: EventsTap | null,
  eventTypes: readonly string[],
  handle: (r: ConsumedRecord, s: AbortSignal) => Promise<HandlerOutcome>,
  groupId: string,
) {
  return new SubscriberConsumer({
    subscription: plainSubscription({ groupId, topic, eventTypes }),
    process: { kafka, maxWaitTimeInMs: 100, tap },
    start: 'earliest',
    handle,
    log: quiet,
    onFatal: (e) => {
      throw e;
    },
  });
}

function values(records: readonly ConsumedRecord[]): number[] {
  return records.map((r) => Number(r.value?.toString())).sort((a, b) => a - b);
}

describe('one shared fetch of the events topic (EventsTap) against the real broker', () => {
  beforeAll(async () => {
    await admin.connect();
    await producer.connect();
  });
  afterAll(async () => {
    await producer.disconnect();
    await admin.disconnect();
  });

  it('hands each subscriber only its types while its own fetch stays paused, and commits each ledger', async () => {
    const topic = await newTopic(3);
    const tap = new EventsTap({ kafka, topic, log: quiet, tag: 'test' });
    await tap.start();
    const got = { a: [] as ConsumedRecord[], b: [] as ConsumedRecord[] };
    const groups = { a: uniqueName('tap-test-a'), b: uniqueName('tap-test-b') };
    const a = subscriber(
      topic,
      tap,
      ['a.happened'],
      async (r) => {
        got.a.push(r);
        return 'settled';
      },
      groups.a,
    );
    const b = subscriber(
      topic,
      tap,
      ['b.happened', 'c.happened'],
      async (r) => {
        got.b.push(r);
        return 'settled';
      },
      groups.b,
    );
    try {
      await Promise.all([a.start(), b.start()]);
      expect([...a.laneModes().values()]).toEqual(['riding', 'riding', 'riding']);
      const types = Array.from(
        { length: 60 },
        (_, i) => ['a.happened', 'b.happened', 'c.happened', 'd.happened'][i % 4] ?? '',
      );
      await produce(topic, types);
      await waitFor('both delivered', async () =>
        got.a.length === 15 && got.b.length === 30 ? true : undefined,
      );
      expect(values(got.a)).toEqual(types.flatMap((t, i) => (t === 'a.happened' ? [i] : [])));
      expect(values(got.b)).toEqual(
        types.flatMap((t, i) => (t === 'b.happened' || t === 'c.happened' ? [i] : [])),
      );
      // Still riding: nothing of this was fetched by the subscribers' own group members.
      expect([...b.laneModes().values()]).toEqual(['riding', 'riding', 'riding']);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await tap.stop();
    }
    // A clean stop commits past the records of other types too: the ledgers reach the end.
    expect(await committedTotal(groups.a, topic)).toBe(60);
    expect(await committedTotal(groups.b, topic)).toBe(60);
  });

  it('a subscriber far behind reads on by itself, then rides the tap with nothing lost or repeated', async () => {
    const topic = await newTopic(1);
    await produce(
      topic,
      Array.from({ length: 300 }, () => 'a.happened'),
    );
    // The tap starts at the end and keeps only 50 recent records: the backlog is not in it.
    const tap = new EventsTap({ kafka, topic, log: quiet, tag: 'test', recentRecords: 50 });
    await tap.start();
    const got: ConsumedRecord[] = [];
    const groupId = uniqueName('tap-test-behind');
    const c = subscriber(
      topic,
      tap,
      ['*'],
      async (r) => {
        await sleep(1);
        got.push(r);
        return 'settled';
      },
      groupId,
    );
    try {
      await c.start();
      await produce(
        topic,
        Array.from({ length: 100 }, () => 'a.happened'),
        300,
      );
      await waitFor('all 400', async () => (got.length >= 400 ? true : undefined));
      await waitFor('riding again', async () => (c.laneModes().get(0) === 'riding' ? true : undefined));
      await produce(topic, ['a.happened'], 400);
      await waitFor('the last one', async () => (got.length >= 401 ? true : undefined));
      expect(values(got)).toEqual(Array.from({ length: 401 }, (_, i) => i));
    } finally {
      await c.stop();
      await tap.stop();
    }
    expect(await committedTotal(groupId, topic)).toBe(401);
  });

  it('subscribers behind the tap read through one catch-up reader, each from its own ledger, nothing lost or repeated', async () => {
    const topic = await newTopic(2);
    const types = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 'a.happened' : 'b.happened'));
    await produce(topic, types);
    const tap = new EventsTap({ kafka, topic, log: quiet, tag: 'test', recentRecords: 20 });
    await tap.start();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const got = { all: [] as ConsumedRecord[], a: [] as ConsumedRecord[] };
    const take = (into: ConsumedRecord[]) => async (r: ConsumedRecord) => {
      await gate;
      into.push(r);
      return 'settled' as const;
    };
    const all = subscriber(topic, tap, ['*'], take(got.all), uniqueName('tap-test-catch-all'));
    const a = subscriber(topic, tap, ['a.happened'], take(got.a), uniqueName('tap-test-catch-a'));
    try {
      await Promise.all([all.start(), a.start()]);
      open();
      await waitFor('both caught up', async () =>
        got.all.length >= 400 && got.a.length >= 200 ? true : undefined,
      );
      await waitFor('both riding', async () =>
        [...all.laneModes().values(), ...a.laneModes().values()].every((m) => m === 'riding')
          ? true
          : undefined,
      );
      // Their ledgers were at the start and the tap began at the end: every record but the
      // few the tap kept came to both lanes of each partition through the catch-up reader.
      expect(tap.catchUpStats().handed).toBeGreaterThanOrEqual(2 * (400 - 2 * 20));
      expect(tap.catchUpStats().riders).toBe(0);
      await produce(topic, ['a.happened', 'b.happened'], 400);
      await waitFor('the last two', async () => (got.all.length >= 402 ? true : undefined));
      expect(values(got.all)).toEqual(Array.from({ length: 402 }, (_, i) => i));
      expect(values(got.a)).toEqual(Array.from({ length: 201 }, (_, i) => i * 2));
    } finally {
      open();
      await Promise.all([all.stop(), a.stop()]);
      await tap.stop();
    }
  });

  it('a record produced while an earlier one is still being delivered is not held behind it', async () => {
    for (const shared of [false, true]) {
      const topic = await newTopic(1);
      const tap = shared ? new EventsTap({ kafka, topic, log: quiet, tag: 'test' }) : null;
      await tap?.start();
      let releaseSlow: () => void = () => undefined;
      const slowEnded = new Promise<void>((resolve) => {
        releaseSlow = resolve;
      });
      const delivered: number[] = [];
      let slowStarted: () => void = () => undefined;
      const slowBegun = new Promise<void>((resolve) => {
        slowStarted = resolve;
      });
      const groupId = uniqueName('tap-test-slow');
      const c = subscriber(
        topic,
        tap,
        ['*'],
        async (r) => {
          const value = Number(r.value?.toString());
          if (value === 0) {
            slowStarted();
            await slowEnded;
          }
          delivered.push(value);
          return 'settled';
        },
        groupId,
      );
      try {
        await c.start();
        await produce(topic, ['a.happened']);
        // The second record is produced only once the first one's delivery is under way.
        await slowBegun;
        await produce(topic, ['a.happened'], 1);
        await waitFor(`the second record (${shared ? 'shared' : 'own'} fetch)`, async () =>
          delivered.includes(1) ? true : undefined,
        );
        expect(delivered).toEqual([1]);
        // The ledger waits for the slow one.
        await sleep(1500);
        expect(await committedTotal(groupId, topic)).toBe(0);
        releaseSlow();
        await waitFor('the ledger past both', async () =>
          (await committedTotal(groupId, topic)) === 2 ? true : undefined,
        );
      } finally {
        releaseSlow();
        await c.stop();
        await tap?.stop();
      }
    }
  });
});
