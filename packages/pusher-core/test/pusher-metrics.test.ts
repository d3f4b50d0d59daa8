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

describe('hookstream_subscriber_info', () => {
  it('reports one series per subscriber of a tenant, naming it, and none for a subscriber without one; other series carry no tenant', async () => {
    const metrics = await startMetrics({ serviceName: 'pusher-metrics-test' });
    const server = await serveMetrics(metrics, '127.0.0.1', 0);
    try {
      const pusher = new PusherMetrics(metrics.meter);
      const topics = { events: 'events', tiers: () => [], dlq: 'x.dlq' };
      const sources = (tenant?: string) => ({
        lag: () => new Map<string, number>(),
        dlqDepth: () => 3,
        oldestUnsettled: () => new Map<string, number>(),
        tenant,
      });
      pusher.forSubscriber('acme-billing', topics, sources('acme')).ended('delivered');
      pusher.forSubscriber('ops', topics, sources()).ended('delivered');
      const text = await (await fetch(server.url)).text();
      const info = text.split('\n').filter((l) => l.startsWith('hookstream_subscriber_info{'));
      expect(info).toHaveLength(1);
      expect(info[0]).toMatch(/subscriber="acme-billing"/);
      expect(info[0]).toMatch(/tenant="acme"/);
      expect(info[0]?.split(' ').at(-1)).toBe('1');
      const others = text
        .split('\n')
        .filter((l) => l.startsWith('hookstream_') && !l.startsWith('hookstream_subscriber_info'));
      expect(others.some((l) => l.includes('acme-billing'))).toBe(true);
      expect(others.some((l) => l.includes('tenant='))).toBe(false);
    } finally {
      await server.close();
      await metrics.shutdown();
    }
  });
});

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
      const before = Date.now();
      oldest = new Map([
        ['events', before - 40_000],
        ['hookstream.sub.audit.retry.1', before - 5_000],
      ]);
      const text = await scrape();
      // The age is read during the scrape: bounded by clock readings either side of it, not by a
      // fixed 5 s that a stalled machine could exceed.
      const scrapedWithinS = (Date.now() - before) / 1000;
      const age = sample(text, 'audit') ?? 0;
      expect(age).toBeGreaterThanOrEqual(40);
      expect(age).toBeLessThanOrEqual(40 + scrapedWithinS + 1e-6);
      expect(sample(text, 'crm')).toBeUndefined();
    } finally {
      await server.close();
      await metrics.shutdown();
    }
  });
});

describe('hookstream_pusher_first_attempt_failures_total', () => {
  it('counts first attempts that failed by class, with the last traced one as the exemplar in OpenMetrics', async () => {
    const metrics = await startMetrics({ serviceName: 'pusher-metrics-test' });
    const server = await serveMetrics(metrics, '127.0.0.1', 0);
    try {
      const pusher = new PusherMetrics(metrics.meter);
      const sub = pusher.forSubscriber(
        'billing',
        { events: 'events', tiers: () => [], dlq: 'x.dlq' },
        { lag: () => new Map(), dlqDepth: () => null, oldestUnsettled: () => new Map() },
      );
      const ids = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
      sub.firstAttemptFailed('terminal', 400, ids);
      sub.firstAttemptFailed('terminal', 404, undefined);
      sub.firstAttemptFailed('retryable', null, undefined);
      const series = (text: string) =>
        text
          .split('\n')
          .filter((l) => l.startsWith('hookstream_pusher_first_attempt_failures_total{'))
          .sort();
      const plain = series(await (await fetch(server.url)).text());
      expect(plain).toEqual([
        expect.stringMatching(/outcome_class="retryable".*status_class="none".*\} 1$/),
        expect.stringMatching(/outcome_class="terminal".*status_class="4xx".*\} 2$/),
      ]);
      const om = await fetch(server.url, { headers: { accept: 'application/openmetrics-text' } });
      const text = await om.text();
      expect(text.endsWith('# EOF\n')).toBe(true);
      expect(text).toContain('# TYPE hookstream_pusher_first_attempt_failures counter\n');
      expect(series(text)).toEqual([
        plain[0],
        expect.stringMatching(
          new RegExp(
            `status_class="4xx".*\\} 2 # \\{trace_id="${ids.traceId}",span_id="${ids.spanId}"\\} 1 \\d+\\.\\d+$`,
          ),
        ),
      ]);
    } finally {
      await server.close();
      await metrics.shutdown();
    }
  });
});
