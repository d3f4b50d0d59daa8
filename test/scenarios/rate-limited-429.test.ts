import { dlqTopicName } from '@hookstream/contracts';
import { SampleReceiver } from '@hookstream/receiver';
import { describe, expect, it } from 'vitest';
import { okAnswersByEvent } from '../support/arrivals.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { openForSuite } from '../support/suite.ts';
import { endOffsetTotal } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Scenario: an endpoint that allows fewer requests per second than the subscriber's rate answers
// 429 with Retry-After. The pusher must hold the whole destination back for Retry-After after
// each 429, and every event must still arrive once (through the retry tiers), none dead-lettered.
// The pacing of a 600-event backlog at 5/s is pusher-rate.test.ts; this one is about the 429s.
const EVENTS = 40;
const RATE = 10;
const ENDPOINT_LIMIT = 5;
const RETRY_AFTER_S = 1;

const fx = new KafkaFixture();
const factory = new EventFactory();
const receiver = new SampleReceiver({
  record: true,
  behaviour: { rateLimitPerSecond: ENDPOINT_LIMIT, retryAfterSeconds: RETRY_AFTER_S },
});

describe('scenario: 429 with Retry-After from an endpoint below the subscriber rate', () => {
  openForSuite(fx, factory, receiver);

  it('backs the whole destination off for Retry-After after every 429; nothing lost', async () => {
    const topic = await fx.topic(3);
    const events = Array.from({ length: EVENTS }, () => factory.event());
    await fx.produce(topic, factory, events);
    const name = uniqueName('rate429');
    const { pusher } = await fx.startPusher(topic, {
      name,
      url: receiver.url,
      rate: { perSecond: RATE, burst: 0 },
      concurrency: 4,
      retry: { delaysMs: [300, 600], maxAttempts: 50, maxAgeMs: 3_600_000, jitter: 0 },
    });
    await waitFor(
      'every event accepted',
      async () => (receiver.stats().accepted === EVENTS ? true : undefined),
      {
        timeoutMs: 45_000,
      },
    );
    const end = await fx.end(topic);
    await waitFor('the ledger at the end', async () =>
      (await fx.ledger(name, topic)) === end ? true : undefined,
    );

    const arrivals = [...receiver.arrivals].sort((a, b) => a.atMs - b.atMs);
    const limited = arrivals.filter((a) => a.status === 429);
    // The endpoint really pushed back, and the pusher saw it as retryable, not terminal.
    expect(limited.length).toBeGreaterThanOrEqual(3);
    expect(pusher.counts.retries).toBe(limited.length);
    expect(pusher.counts.deadLettered).toBe(0);
    // Honoured: after a 429 at t, nothing reaches the destination before t + Retry-After. A
    // request already on the wire when the 429 came back may land just after it (100 ms, well
    // under the 1 request per 100 ms pacing).
    const pauseMs = RETRY_AFTER_S * 1000;
    for (const r of limited) {
      const early = arrivals.filter((a) => a.atMs > r.atMs + 100 && a.atMs < r.atMs + pauseMs - 50);
      expect(
        early.map((a) => Math.round(a.atMs - r.atMs)),
        `arrivals after the 429 at ${r.atMs}`,
      ).toEqual([]);
    }
    // Each rate-limited event came back through a tier no earlier than its Retry-After.
    for (const r of limited) {
      const later = arrivals.find((a) => a.eventId === r.eventId && a.atMs > r.atMs);
      expect(later, `retry of ${r.eventId}`).toBeDefined();
      expect((later?.atMs ?? 0) - r.atMs).toBeGreaterThanOrEqual(pauseMs - 50);
    }
    // Nothing lost or doubled: every event once, nothing in the DLQ.
    const answers = okAnswersByEvent(arrivals, name);
    expect([...answers.keys()].sort()).toEqual(events.map((e) => e.id).sort());
    expect([...answers.values()].every((n) => n === 1)).toBe(true);
    expect(receiver.stats().received).toBe(EVENTS + limited.length);
    expect(await endOffsetTotal(dlqTopicName(name))).toBe(0);
    process.stdout.write(
      `429 scenario: ${EVENTS} events, ${limited.length} answered 429 and retried, max ${receiver.stats().maxPerSecond} requests in any second\n`,
    );
  });
});
