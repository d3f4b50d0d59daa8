import { serveMetrics, startMetrics } from '@hookstream/telemetry';
import { describe, expect, it } from 'vitest';
import { PusherMetrics } from '../src/pusher-metrics.ts';

const NAME = 'hookstream_required_oldest_pending_seconds';

/** The value of `name{subscriber="<s>"}` in a Prometheus scrape, or undefined when absent. */
function sample(text: string, subscriber: string): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${NAME}{`) && l.includes(`subscriber="${subscriber}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('hookstream_required_oldest_pending_seconds', () => {
  it('reports the oldest unsettled record of a required subscriber, 0 when none, and nothing for others', async () => {
    const metrics = await startMetrics({ serviceName: 'pusher-metrics-test' });
    const server = await serveMetrics(metrics, '127.0.0.1', 0);
    try {
      const pusher = new PusherMetrics(metrics.meter);
      let oldest = new Map<string, number>();
      const topics = { events: 'events', tiers: () => ['hookstream.sub.audit.retry.1'], dlq: 'x.dlq' };
      const sources = (required: boolean) => ({
        lag: () => new Map<string, number>(),
        dlqDepth: () => null,
        oldestUnsettled: () => oldest,
        required,
      });
      pusher.forSubscriber('audit', topics, sources(true));
      pusher.forSubscriber('crm', { ...topics, tiers: () => [] }, sources(false));
      const scrape = async () => (await fetch(server.url)).text();

      expect(sample(await scrape(), 'audit')).toBe(0);
      oldest = new Map([
        ['events', Date.now() - 40_000],
        ['hookstream.sub.audit.retry.1', Date.now() - 5_000],
      ]);
      const text = await scrape();
      const age = sample(text, 'audit') ?? 0;
      expect(age).toBeGreaterThanOrEqual(40);
      expect(age).toBeLessThan(45);
      expect(sample(text, 'crm')).toBeUndefined();
    } finally {
      await server.close();
      await metrics.shutdown();
    }
  });
});
