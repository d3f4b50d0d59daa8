import { describe, expect, it } from 'vitest';
import { buildBody, deliveryIdOf } from '../src/payload.ts';

describe('request body', () => {
  const meta = {
    eventId: 'evt-1',
    subscriptionId: 'billing',
    deliveryId: deliveryIdOf('billing', 'evt-1'),
    attempt: 2,
    type: 'shipment.updated',
    occurredAt: '2026-11-30T12:00:00Z',
  };

  it('is the flat event data plus the contract fields', () => {
    expect(JSON.parse(buildBody({ shipment_id: 's-1', status: 'out' }, meta))).toEqual({
      shipment_id: 's-1',
      status: 'out',
      event_id: 'evt-1',
      subscription_id: 'billing',
      delivery_id: meta.deliveryId,
      attempt: 2,
      type: 'shipment.updated',
      occurred_at: '2026-11-30T12:00:00Z',
    });
  });

  it('lets the contract fields win over data that uses their names', () => {
    expect(JSON.parse(buildBody({ event_id: 'forged' }, meta)).event_id).toBe('evt-1');
    expect(JSON.parse(buildBody({ tenant: 'forged' }, { ...meta, tenant: 'acme' })).tenant).toBe('acme');
  });

  it("adds the event's tenant last, and nothing for an event without one (the body as before tenants)", () => {
    const data = { shipment_id: 's-1' };
    expect(buildBody(data, meta)).toBe(
      `{"shipment_id":"s-1","event_id":"evt-1","subscription_id":"billing","delivery_id":"${meta.deliveryId}","attempt":2,"type":"shipment.updated","occurred_at":"2026-11-30T12:00:00Z"}`,
    );
    expect(buildBody(data, { ...meta, tenant: undefined })).toBe(buildBody(data, meta));
    expect(buildBody(data, { ...meta, tenant: 'acme' })).toBe(
      `${buildBody(data, meta).slice(0, -1)},"tenant":"acme"}`,
    );
  });

  it('derives a delivery id stable per (subscriber, event) and distinct across both', () => {
    expect(deliveryIdOf('billing', 'evt-1')).toBe(deliveryIdOf('billing', 'evt-1'));
    expect(deliveryIdOf('billing', 'evt-1')).not.toBe(deliveryIdOf('crm', 'evt-1'));
    expect(deliveryIdOf('billing', 'evt-1')).not.toBe(deliveryIdOf('billing', 'evt-2'));
    expect(deliveryIdOf('a', 'b\0c')).not.toBe(deliveryIdOf('a\0b', 'c'));
    // The value itself is part of the contract (stable across versions too): the one earlier
    // releases computed.
    expect(deliveryIdOf('billing', 'evt-123')).toBe('P7_GwP7Nd4XfA5fqMHfUNtHpgz');
  });
});
