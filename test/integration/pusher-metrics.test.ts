import { retryTopicName } from '@hookstream/contracts';
import { SampleReceiver } from '@hookstream/receiver';
import { describe, expect, it } from 'vitest';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { freePort } from '../support/ports.ts';
import { sample, scrape } from '../support/prometheus.ts';
import { spawnPusherCli } from '../support/pusher-process.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
// "Down" as a hung endpoint: every attempt times out, so records stay unsettled in the pusher
// while new ones pile up on the events topic (a refused connection would move them to the
// retry tiers at once, and the events topic would look healthy).
const receiver = new SampleReceiver({ behaviour: { delayMs: 30_000 } });

describe('pusher /metrics while its endpoint is down, then recovers', () => {
  openForSuite(fx, factory, receiver);

  it('lag and oldest-unsettled age rise while down and fall back to 0 after recovery', async () => {
    const topic = await fx.topic(1);
    const name = uniqueName('metered');
    const tiers = [retryTopicName(name, 1), retryTopicName(name, 2)];
    const pusher = await spawnPusherCli(
      topic,
      {
        name,
        url: `${receiver.url}/hooks`,
        concurrency: 1,
        timeoutMs: 800,
        retry: { delaysMs: [300, 600], maxAttempts: 50, maxAgeMs: 3_600_000 },
      },
      { metricsPort: await freePort() },
    );
    const url = pusher.metricsUrl ?? '';
    const produced: TestEvent[] = [];
    const gauges = async () => {
      const text = await scrape(url);
      return {
        text,
        lag: sample(text, 'hookstream_pusher_consumer_lag', { subscriber: name, topic }),
        age: sample(text, 'hookstream_pusher_oldest_unsettled_age_seconds', { subscriber: name, topic }),
      };
    };
    // Publishing faster than a timing-out endpoint lets the pusher move records on.
    const publishing = setInterval(() => {
      const batch = [factory.event(), factory.event(), factory.event()];
      produced.push(...batch);
      void fx.produce(topic, factory, batch);
    }, 500);
    try {
      const early = await waitFor('lag and age above zero', async () => {
        const g = await gauges();
        return (g.lag ?? 0) >= 3 && (g.age ?? 0) > 0.5 ? g : undefined;
      });
      const later = await waitFor(
        'lag and age to keep rising',
        async () => {
          const g = await gauges();
          return (g.lag ?? 0) > (early.lag ?? 0) + 5 && (g.age ?? 0) > (early.age ?? 0) + 2 ? g : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(
        sample(later.text, 'hookstream_pusher_deliveries_total', {
          outcome_class: 'retryable',
          status_class: 'none',
        }),
      ).toBeGreaterThan(0);
      expect(
        sample(later.text, 'hookstream_pusher_retry_tier_depth', { subscriber: name, tier: 1 }),
      ).toBeDefined();
      // Ten timeouts in a row open the destination's breaker; the gauge says so.
      await waitFor(
        'the breaker gauge to say open',
        async () => {
          const text = await scrape(url);
          return sample(text, 'hookstream_pusher_breaker_state', { subscriber: name, state: 'open' }) === 1 &&
            sample(text, 'hookstream_pusher_breaker_state', { subscriber: name, state: 'closed' }) === 0
            ? true
            : undefined;
        },
        { timeoutMs: 30_000 },
      );
    } finally {
      clearInterval(publishing);
    }

    receiver.setBehaviour({ delayMs: 0 });
    const recovered = await waitFor(
      'every gauge back at 0',
      async () => {
        const text = await scrape(url);
        const zero = [topic, ...tiers].every(
          (t) =>
            sample(text, 'hookstream_pusher_consumer_lag', { subscriber: name, topic: t }) === 0 &&
            sample(text, 'hookstream_pusher_oldest_unsettled_age_seconds', { subscriber: name, topic: t }) ===
              0,
        );
        const depthsZero = [1, 2].every(
          (tier) => sample(text, 'hookstream_pusher_retry_tier_depth', { subscriber: name, tier }) === 0,
        );
        return zero && depthsZero ? text : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(receiver.stats().accepted).toBe(produced.length);
    expect(
      sample(recovered, 'hookstream_pusher_deliveries_total', {
        subscriber: name,
        outcome_class: 'ack',
        status_class: '2xx',
      }),
    ).toBe(produced.length);
    expect(sample(recovered, 'hookstream_pusher_dlq_depth', { subscriber: name })).toBe(0);
    expect(sample(recovered, 'hookstream_pusher_breaker_state', { subscriber: name, state: 'closed' })).toBe(
      1,
    );
    expect(
      sample(recovered, 'hookstream_pusher_attempt_duration_seconds_count', {
        subscriber: name,
        status_class: '2xx',
      }),
    ).toBe(produced.length);
    expect(
      sample(recovered, 'hookstream_pusher_limiter_wait_seconds_count', { subscriber: name }),
    ).toBeGreaterThan(produced.length);
    // The span export's own counts: nothing dropped (Jaeger may still be building: spans held).
    expect(recovered).toMatch(/^hookstream_tracing_spans_held(\{[^}]*\})? \d+/m);
    expect(recovered).toMatch(/^hookstream_tracing_spans_dropped_total(\{[^}]*\})? 0$/m);
    // Labels stay bounded: no event id anywhere in the exposition.
    for (const e of produced) expect(recovered).not.toContain(e.id);
    expect(await pusher.stop()).toBe(0);
  }, 180_000);
});
