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
// requests hang, loses its partitions, and its late answers arrive after the second instance
// redelivered the same records: the receiver deduplicates them, nothing is lost. Where the
// rebalance gives a hung record's partition back to the first instance, its new lane waits for
// the hung request and passes over the record once answered: that record arrives once.
// Both instances use the shortest session the broker allows (group.min.session.timeout.ms), so
// the hang that outlasts it is seconds, not the default's 30.
const SESSION_TIMEOUT_MS = 6000;
const SLOW_MS = SESSION_TIMEOUT_MS + 2000;
const EVENTS = 40;

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

  it('no loss; a hung record is sent again only by the other instance, and deduplicated', async () => {
    const topic = await fx.topic(4);
    const events = Array.from({ length: EVENTS }, () => factory.event());
    await fx.produce(topic, factory, events);
    const name = uniqueName('slow');
    const definition = {
      name,
      url: gateUrl,
      concurrency: 4,
      // Longer than the hang: the slow answers are answers, not timeouts.
      timeoutMs: SLOW_MS + 20_000,
    };
    const settings = { sessionTimeoutMs: SESSION_TIMEOUT_MS };
    const { pusher: first } = await fx.startPusher(topic, definition, undefined, undefined, settings);
    await waitFor('requests hanging at the endpoint', async () => (gate.pending >= 4 ? true : undefined));
    const hung = gate.held.map((h) => h.eventId);
    // From here the endpoint is fast again; only the requests already hanging stay slow.
    gate.setDelay(0);
    const joinedAt = Date.now();
    const { pusher: second } = await fx.startPusher(topic, definition, undefined, undefined, settings);

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
    // The second instance took over records, among them the hung ones.
    expect(second.counts.acknowledged).toBeGreaterThan(0);
    const stats = receiver.stats();
    const answers = okAnswersByEvent(receiver.arrivals, name);
    expect(stats.accepted).toBe(EVENTS);
    expect([...answers.keys()].sort()).toEqual(events.map((e) => e.id).sort());
    expect(stats.received).toBe(EVENTS + stats.duplicates);
    // Duplicates only where a record was in flight at the rebalance, each deduplicated once
    // (none when every hung record's partition went back to the first instance).
    const doubled = [...answers].filter(([, n]) => n > 1).map(([id]) => id);
    expect(doubled.length).toBe(stats.duplicates);
    for (const id of doubled) {
      expect(hung).toContain(id);
      expect(answers.get(id)).toBe(2);
    }
    process.stdout.write(
      `slow-response scenario: ${hung.length} requests hung ${SLOW_MS} ms; first instance acknowledged ${first.counts.acknowledged}, second ${second.counts.acknowledged}; ${stats.duplicates} deduplicated\n`,
    );
  }, 150_000);
});
