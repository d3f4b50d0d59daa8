import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../support/ingress.ts';
import { type IngressProcess, spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { endOffsetTotal } from '../support/topic.ts';

// Scenario: bad input at the real ingress process (`hookstream ingress`): a clear JSON error
// with its code, and nothing on the topic. ingress.test.ts holds the whole error table against
// an in-process ingress; this runs its three input cases through the command operators run.
const topic = uniqueName('scenario-rejects');
const shipment = { type: 'shipment.updated', data: { shipment: { id: 'shp-1', status: 'in_transit' } } };

const cases: [string, string | object, string, number, string][] = [
  ['malformed JSON', '{"type": "shipment.updated", "data": {', '/v1/events', 400, 'malformed_json'],
  [
    'schema-invalid data (status must be a string)',
    { ...shipment, data: { shipment: { id: 'shp-1', status: 42 } } },
    '/v1/events',
    400,
    'invalid_data',
  ],
  [
    'an oversize body (300 KiB over the 256 KiB limit)',
    { ...shipment, data: { shipment: { id: 'x'.repeat(300 * 1024), status: 's' } } },
    '/v1/events',
    413,
    'payload_too_large',
  ],
  [
    'a batch with one schema-invalid event',
    { events: [shipment, { ...shipment, data: { shipment: { id: 'shp-2' } } }] },
    '/v1/events/batch',
    400,
    'invalid_batch',
  ],
];

describe('scenario: malformed, schema-invalid and oversize input at the ingress process', () => {
  let ingress: IngressProcess;
  beforeAll(async () => {
    ingress = await spawnIngressCli(topic, { INGRESS_LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await ingress?.stop();
  });

  it.each(cases)('refuses %s with a clear error and writes nothing', async (_, body, path, status, code) => {
    const before = await endOffsetTotal(topic);
    const answer = await post(`${ingress.url}${path}`, body);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const error = (answer.body as { error: { code: string; message: string } }).error;
    expect(error.code).toBe(code);
    expect(error.message.length).toBeGreaterThan(0);
    expect(await endOffsetTotal(topic)).toBe(before);
  });

  it('still accepts good input afterwards, and that is what lands on the topic', async () => {
    // The control: the same measurement does see a write, so "nothing written" above means it.
    const before = await endOffsetTotal(topic);
    const answer = await post(`${ingress.url}/v1/events`, shipment);
    expect(answer.status).toBe(202);
    expect(await endOffsetTotal(topic)).toBe(before + 1);
    expect(before).toBe(0);
  });
});
