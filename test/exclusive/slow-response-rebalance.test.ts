import { keyPartitioner } from '@hookstream/kafka';
import { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { okAnswersByEvent } from '../support/arrivals.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { SlowGate } from '../support/slow-gate.ts';
import { waitFor } from '../support/wait.ts';

// Scenario: responses slower than the consumer's session timeout while a second instance joins
// the subscriber's group. The first instance cannot take part in the rebalance while its
// requests hang, and its late answers arrive after the second instance redelivered the records
// of the partitions it took: the receiver deduplicates them, nothing is lost. Where the rebalance
// gives a hung record's partition back to the first instance, its new lane waits for the hung
// request and passes over the record once answered: that record arrives once. One record hangs
// on each partition, so the second instance always takes at least one of them.
// Both instances use the shortest session the broker allows (group.min.session.timeout.ms), so
// the hang that outlasts it is seconds, not the default's 30.
const SESSION_TIMEOUT_MS = 6000;
const SLOW_MS = SESSION_TIMEOUT_MS + 2000;
const EVENTS = 40;
const PARTITIONS = 4;

const fx = new KafkaFixture();
const factory = new EventFactory();
const receiver = new SampleReceiver({ record: true });

describe('scenario: a response slower than the session timeout during a rebalance', () => {
  let gate: SlowGate;
  let gateUrl: string;
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    await receiver.listen();
    gate = new SlowGate(receiver.url, SLOW_MS);
    gateUrl = await gate.listen();
  });
  afterAll(async () => {
    await fx.close();
    await gate?.close();
    await receiver.close();
  });

  it('no loss; a hung record is sent again exactly when the other instance took its partition, and deduplicated', async () => {
    const topic = await fx.topic(PARTITIONS);
    // The first record of each partition is all there is when the first instance starts: with a
    // concurrency of PARTITIONS, those are the requests that hang, one per partition.
    const partitionOf = keyPartitioner(PARTITIONS);
    const keys = new Map<number, string>();
    for (let i = 0; keys.size < PARTITIONS; i++) {
      const key = `slow-${i}`;
      if (!keys.has(partitionOf(key))) keys.set(partitionOf(key), key);
    }
    const firstOfEach = [...keys.values()].map((key) => factory.event('shipment.updated', key));
    const rest = Array.from({ length: EVENTS - PARTITIONS }, () => factory.event());
    const events = [...firstOfEach, ...rest];
    const partitionOfEvent = new Map(events.map((e) => [e.id, partitionOf(e.key)]));
    await fx.produce(topic, factory, firstOfEach);
    const name = uniqueName('slow');
    const definition = {
      name,
      url: gateUrl,
      concurrency: PARTITIONS,
      // Longer than the hang: the slow answers are answers, not timeouts.
      timeoutMs: SLOW_MS + 20_000,
    };
    const settings = { sessionTimeoutMs: SESSION_TIMEOUT_MS };
    const { pusher: first } = await fx.startPusher(topic, definition, undefined, undefined, settings);
    await waitFor('requests hanging at the endpoint', async () =>
      gate.pending >= PARTITIONS ? true : undefined,
    );
    const hung = gate.held.flatMap((h) => (h.eventId === null ? [] : [h.eventId]));
    expect([...hung].sort()).toEqual(firstOfEach.map((e) => e.id).sort());
    // From here the endpoint is fast again; only the requests already hanging stay slow.
    gate.setDelay(0);
    await fx.produce(topic, factory, rest);
    const joinedAt = Date.now();
    const { pusher: second, logs: secondLogs } = await fx.startPusher(
      topic,
      definition,
      undefined,
      undefined,
      settings,
    );

    await waitFor(
      'every event accepted',
      async () => (receiver.stats().accepted === EVENTS ? true : undefined),
      {
        timeoutMs: 90_000,
      },
    );
    const end = await fx.end(topic);
    await waitFor('the hung requests to be answered', async () => (gate.pending === 0 ? true : undefined), {
      timeoutMs: SLOW_MS + 10_000,
    });
    await waitFor(
      'the ledger at the end',
      async () => ((await fx.ledger(name, topic)) === end ? true : undefined),
      {
        timeoutMs: 30_000,
      },
    );

    // The hang outlasted the session and spanned the second instance's join.
    for (const h of gate.held.slice(0, hung.length)) {
      expect(h.receivedAt).toBeLessThan(joinedAt);
      expect((h.answeredAt ?? 0) - h.receivedAt).toBeGreaterThan(SESSION_TIMEOUT_MS);
    }
    // What the second instance's first join gave it: with two members, some of the partitions.
    const joined = secondLogs.find((l) => l.message === 'joined group');
    const taken = ((joined?.fields.assignment as Record<string, number[]> | undefined)?.[topic] ?? []).sort();
    expect(taken.length).toBeGreaterThan(0);
    expect(second.counts.acknowledged).toBeGreaterThan(0);
    const stats = receiver.stats();
    const answers = okAnswersByEvent(receiver.arrivals, name);
    expect(stats.accepted).toBe(EVENTS);
    expect([...answers.keys()].sort()).toEqual(events.map((e) => e.id).sort());
    expect(stats.received).toBe(EVENTS + stats.duplicates);
    // A hung record arrives twice where the second instance took its partition (once from each
    // instance), once where the partition went back to the first; every other record once.
    const expected = new Map(
      events.map((e) => [
        e.id,
        hung.includes(e.id) && taken.includes(partitionOfEvent.get(e.id) ?? -1) ? 2 : 1,
      ]),
    );
    const counted = new Map(events.map((e) => [e.id, answers.get(e.id) ?? 0]));
    expect(
      Object.fromEntries(counted),
      `answers per event; the second instance took partitions ${taken.join(', ')}`,
    ).toEqual(Object.fromEntries(expected));
    expect(stats.duplicates).toBe(hung.filter((id) => taken.includes(partitionOfEvent.get(id) ?? -1)).length);
    expect(stats.duplicates).toBeGreaterThan(0);
    process.stdout.write(
      `slow-response scenario: ${hung.length} requests hung ${SLOW_MS} ms, one per partition; the second instance took partitions ${taken.join(', ')}; first instance acknowledged ${first.counts.acknowledged}, second ${second.counts.acknowledged}; ${stats.duplicates} deduplicated\n`,
    );
  }, 150_000);
});
