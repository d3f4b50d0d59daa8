import { dlqTopicName } from '@hookstream/contracts';
import { maxInWindow, type SampleReceiver } from '@hookstream/receiver';
import { placements, readInstanceStatuses } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture, type LogLine } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { redisUrl } from '../support/stack.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const PROBE_MS = 1000;
const EVENTS = 30;
/**
 * The endpoint stays down until it has refused this many probes while open: the scenario's
 * input as a count, not a time (the 60 s outage is sixty of them; eight show the cadence).
 */
const PROBES = 8;

/** Arrival times of the subscriber's requests at the endpoint. */
const times = (endpoint: SampleReceiver, name: string, from: number, to = Number.POSITIVE_INFINITY) =>
  endpoint.arrivals
    .filter((a) => a.subscriptionId === name && a.atMs >= from && a.atMs < to)
    .map((a) => a.atMs);

describe(`an endpoint down for ${PROBES} probes behind an open breaker, shared by two instances through Redis`, () => {
  openForSuite(fx, factory, receivers);

  it('gets at most one request per probe interval while open; after it recovers every event arrives once, none dead-lettered', async () => {
    const topic = await fx.topic(2);
    const name = uniqueName('breaker');
    const endpoint = await receivers.start({ behaviour: { fixedStatus: 503 } });
    const definition = {
      name,
      url: endpoint.url,
      concurrency: 4,
      breaker: {
        enabled: true,
        consecutiveFailures: 3,
        failureRatio: 0.5,
        windowMs: 60_000,
        minAttempts: 20,
        probeIntervalMs: PROBE_MS,
      },
    };
    // Two instances of the one subscriber: they share its limits and its breaker through Redis.
    const one = await fx.startPusher(topic, definition, undefined, redisUrl);
    const two = await fx.startPusher(topic, definition, undefined, redisUrl);
    const events = Array.from({ length: EVENTS }, () => factory.event());
    await fx.produce(topic, factory, events);

    const opened = (logs: LogLine[]) => logs.some((l) => l.message === 'breaker open');
    await waitFor('both instances to see the breaker open', async () =>
      opened(one.logs) && opened(two.logs) ? true : undefined,
    );
    // Requests admitted before an instance's opening may still be on their way on a loaded
    // machine: the window starts at the answer of a probe sent after both opened.
    const refused = () =>
      [...one.logs, ...two.logs].filter(
        (l) => l.message === 'breaker open' && l.fields.cause === 'probe-failed',
      ).length;
    const refusedBefore = refused();
    await waitFor('a probe refused', async () => (refused() > refusedBefore ? true : undefined));
    const windowStart = Date.now();
    await waitFor('subscribers list to learn the breaker is open (hookstream.instances)', async () =>
      placements(await readInstanceStatuses(fx.kafka)).get(name)?.breaker === 'open' ? true : undefined,
    );
    await waitFor(
      `${PROBES} probes while open`,
      async () => (times(endpoint, name, windowStart).length >= PROBES ? true : undefined),
      { timeoutMs: (PROBES + 10) * PROBE_MS },
    );
    const recoveredAt = Date.now();
    endpoint.setBehaviour({ fixedStatus: null });
    const whileOpen = times(endpoint, name, windowStart, recoveredAt);
    // One per interval, whichever instance sends it: the next probe waits an interval from the
    // last one's answer, so no latency can bring two closer (10 ms for the clocks' granularity).
    expect(maxInWindow(whileOpen, PROBE_MS - 10)).toBe(1);
    expect(whileOpen.length).toBeLessThanOrEqual(Math.ceil((recoveredAt - windowStart) / PROBE_MS) + 1);

    const accepted = () => endpoint.arrivals.filter((a) => a.subscriptionId === name && a.status === 204);
    await waitFor('every event delivered after the recovery', async () =>
      new Set(accepted().map((a) => a.eventId)).size === EVENTS ? true : undefined,
    );
    const firstAfter = Math.min(...accepted().map((a) => a.atMs));
    expect(firstAfter - recoveredAt).toBeLessThanOrEqual(2 * PROBE_MS + 500);
    await fx.settledEverything(name, topic);
    // An event accepted twice names its requests: when, which attempt, what answer.
    const ids = accepted().map((a) => a.eventId);
    const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
    const requestsOf = endpoint.arrivals
      .filter((a) => a.subscriptionId === name && twice.includes(a.eventId))
      .map((a) => ({ id: a.eventId, atMs: a.atMs, status: a.status, attempt: a.body?.attempt }));
    expect(twice, JSON.stringify(requestsOf)).toEqual([]);
    // Exactly once: no event acknowledged twice, none dead-lettered.
    expect(
      accepted()
        .map((a) => a.eventId)
        .sort(),
    ).toEqual(events.map((e) => e.id).sort());
    const dlq = dlqTopicName(name);
    if ((await fx.admin.listTopics()).includes(dlq)) expect(await fx.admin.topicDepth(dlq)).toBe(0);
    for (const logs of [one.logs, two.logs])
      expect(logs.some((l) => l.message === 'breaker closed')).toBe(true);
    expect([...one.logs, ...two.logs].filter((l) => l.message === 'dead-lettered')).toEqual([]);
  }, 150_000);
});
