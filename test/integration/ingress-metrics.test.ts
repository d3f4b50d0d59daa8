import { randomUUID } from 'node:crypto';
import type { RunningIngress } from '@hookstream/ingress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startTestIngress, TOKENS } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';

/** The value of one sample line (`name{labels} value`), or 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string | number> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split('}')[0] ?? '';
    if (wanted.every((w) => labelText.includes(w))) return Number(line.split(' ').at(-1));
  }
  return 0;
}

describe('ingress GET /metrics over real HTTP', () => {
  const topic = uniqueName('ingress-metrics');
  let ingress: RunningIngress;

  beforeAll(async () => {
    ingress = await startTestIngress(topic, { INGRESS_METRICS_PORT: '0' });
  });
  afterAll(() => ingress.close());

  async function scrape(): Promise<string> {
    const res = await fetch(ingress.metricsUrl as string);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  }

  it('counts accepted events by type, duplicates, rejections by code and status, produce latency and batch sizes', async () => {
    const id = `evt_${randomUUID()}`;
    const event = { id, type: 'key.revoked', data: { tenant_id: 'tenant-secret-value', key_id: 'k' } };
    expect((await post(`${ingress.url}/v1/events`, event)).status).toBe(202);
    expect((await post(`${ingress.url}/v1/events`, event)).status).toBe(200);
    const batch = {
      events: [1, 2, 3].map((n) => ({ type: 'key.revoked', data: { tenant_id: 't', key_id: `k${n}` } })),
    };
    expect((await post(`${ingress.url}/v1/events/batch`, batch)).status).toBe(202);
    expect(
      (await post(`${ingress.url}/v1/events`, event, { token: 'not-a-valid-token-000000' })).status,
    ).toBe(401);
    expect((await post(`${ingress.url}/v1/events`, '{"type":')).status).toBe(400);
    const shipment = { type: 'shipment.updated', data: { shipment: { id: 's', status: 'x' } } };
    expect((await post(`${ingress.url}/v1/events`, shipment, { token: TOKENS.keysOnly })).status).toBe(403);

    const text = await scrape();
    expect(
      sample(text, 'hookstream_ingress_events_accepted_total', { hookstream_event_type: 'key.revoked' }),
    ).toBe(4);
    expect(
      sample(text, 'hookstream_ingress_events_duplicate_total', { hookstream_event_type: 'key.revoked' }),
    ).toBe(1);
    expect(
      sample(text, 'hookstream_ingress_requests_rejected_total', {
        error_type: 'unauthorized',
        http_response_status_code: 401,
      }),
    ).toBe(1);
    expect(sample(text, 'hookstream_ingress_requests_rejected_total', { error_type: 'malformed_json' })).toBe(
      1,
    );
    expect(sample(text, 'hookstream_ingress_requests_rejected_total', { error_type: 'forbidden_type' })).toBe(
      1,
    );
    // Latency: every successful publish request (2 single + 1 batch + the duplicate) observed once.
    expect(
      sample(text, 'hookstream_ingress_produce_duration_seconds_count', { http_route: '/v1/events' }),
    ).toBe(2);
    expect(
      sample(text, 'hookstream_ingress_produce_duration_seconds_count', { http_route: '/v1/events/batch' }),
    ).toBe(1);
    // Two writes reached Kafka: the single event, then the batch of 3 (the duplicate wrote nothing).
    expect(sample(text, 'hookstream_producer_batch_records_count')).toBe(2);
    expect(sample(text, 'hookstream_producer_batch_records_sum')).toBe(4);
    // Bounded labels: ids and data values never become label values.
    expect(text).not.toContain(id);
    expect(text).not.toContain('tenant-secret-value');
  });

  it('serves /metrics only on its own listener, never on the public port', async () => {
    expect(ingress.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(ingress.metricsUrl as string).port).not.toBe(new URL(ingress.url).port);
    expect((await fetch(`${ingress.url}/metrics`)).status).toBe(404);
    expect((await fetch(ingress.metricsUrl as string, { method: 'POST' })).status).toBe(404);
  });

  it('serves no metrics listener unless INGRESS_METRICS_PORT is set', async () => {
    const plain = await startTestIngress(uniqueName('ingress-no-metrics'));
    try {
      expect(plain.metricsUrl).toBeUndefined();
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
