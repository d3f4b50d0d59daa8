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
const EVENTS = 200;

/** Per event id, the `attempt` of every request that arrived for it, in arrival order. */
function attemptsByEvent(arrivals: readonly { eventId: string | null; body?: Record<string, unknown> }[]) {
  const byEvent = new Map<string, number[]>();
  for (const a of arrivals) {
    if (a.eventId === null) continue;
    const list = byEvent.get(a.eventId) ?? [];
    list.push(Number(a.body?.attempt));
    byEvent.set(a.eventId, list);
  }
  return byEvent;
}

describe('attempts count up within one delivery chain', () => {
  openForSuite(fx, factory, receivers);

  it(`${EVENTS} events answered 500 on their first request: attempt numbers strictly increase per event, none sent twice as attempt 1`, async () => {
    const endpoint = await receivers.start({ behaviour: { failTimes: 1, failStatus: 500 } });
    const topic = await fx.topic(3);
    const events = Array.from({ length: EVENTS }, () => factory.event());
    await fx.produce(topic, factory, events);
    const name = uniqueName('countup');
    // A brand-new subscriber: its tiers do not exist yet, so the first failure creates them.
    const { logs } = await fx.startPusher(topic, {
      name,
      url: endpoint.url,
      concurrency: 16,
      rate: { perSecond: 10_000, burst: 0 },
      retry: { delaysMs: [300, 600], maxAttempts: 5, maxAgeMs: 3_600_000, jitter: 0 },
      // The default breaker: ten failures in a row open it, so records that made their first
      // attempt are held in place, and the first failure's tier creation rejoins the group.
    });
    await waitFor(
      'every event accepted',
      async () => (events.every((e) => endpoint.hasAccepted(name, e.id)) ? true : undefined),
      { timeoutMs: 90_000 },
    );
    await fx.settledEverything(name, topic);

    const byEvent = attemptsByEvent(endpoint.arrivals);
    const forked = [...byEvent].filter(([, attempts]) =>
      attempts.some((a, i) => i > 0 && a <= (attempts[i - 1] ?? 0)),
    );
    expect(
      forked,
      JSON.stringify({
        forked: forked.slice(0, 5),
        log: logs.filter((l) => l.level !== 'debug').map((l) => l.message),
      }),
    ).toEqual([]);
    for (const e of events) expect(byEvent.get(e.id)?.[0]).toBe(1);
    // The run went through what used to send attempt 1 twice: the breaker held records after
    // their attempt, and the group rejoined with its new tiers.
    const said = logs.map((l) => l.message);
    expect(said).toContain('breaker open');
    expect(said).toContain('rejoined the group with the retry tiers');
    expect(logs.filter((l) => l.level === 'fatal')).toEqual([]);
  }, 180_000);
});
