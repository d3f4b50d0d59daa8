import { loadEventCatalog } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { cloudEventHeaders } from '../src/cloud-event-headers.ts';
import { prepareEvent } from '../src/prepare-event.ts';

const catalog = loadEventCatalog();
const now = () => new Date('2026-11-30T10:00:00.000Z');
const shipment = {
  type: 'shipment.updated',
  id: 'e1',
  data: { shipment: { id: 's1', status: 'in_transit' } },
};
const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('cloudEventHeaders', () => {
  it('writes ce_tenant for an event with a tenant', () => {
    const headers = cloudEventHeaders(
      prepareEvent(catalog, { ...shipment, tenant: 'acme' }, now),
      '/x',
      traceparent,
    );
    expect(headers.ce_tenant).toBe('acme');
  });

  it('writes the headers it wrote before tenants for an event without one', () => {
    expect(cloudEventHeaders(prepareEvent(catalog, shipment, now), '/x', traceparent)).toEqual({
      ce_id: 'e1',
      ce_type: 'shipment.updated',
      ce_source: '/x',
      ce_time: '2026-11-30T10:00:00.000Z',
      ce_specversion: '1.0',
      'content-type': 'application/avro',
      traceparent,
    });
  });
});
