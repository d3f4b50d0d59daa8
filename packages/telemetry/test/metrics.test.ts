import { afterEach, describe, expect, it } from 'vitest';
import { type MetricsServer, serveMetrics, startMetrics } from '../src/metrics.ts';

describe('metrics', () => {
  let server: MetricsServer | undefined;
  afterEach(() => server?.close());

  it('serves counters and histograms in Prometheus text format over real HTTP', async () => {
    const metrics = await startMetrics({ serviceName: 'hookstream-test' });
    const deliveries = metrics.meter.createCounter('hookstream_deliveries', {
      description: 'Delivery attempts',
    });
    const duration = metrics.meter.createHistogram('hookstream_attempt_duration', { unit: 'ms' });
    deliveries.add(3, { subscriber: 'billing', outcome: 'ack' });
    deliveries.add(1, { subscriber: 'billing', outcome: 'retry' });
    duration.record(12, { subscriber: 'billing' });

    server = await serveMetrics(metrics, '127.0.0.1', 0);
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/hookstream_deliveries(_total)?\{[^}]*outcome="ack"[^}]*\} 3/);
    expect(text).toMatch(/hookstream_deliveries(_total)?\{[^}]*outcome="retry"[^}]*\} 1/);
    expect(text).toMatch(
      /hookstream_attempt_duration(_milliseconds)?_count\{[^}]*subscriber="billing"[^}]*\} 1/,
    );
    expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
    await metrics.shutdown();
  });
});
