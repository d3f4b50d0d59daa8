import { describe, expect, it } from 'vitest';
import {
  EventEnvelope,
  EventId,
  EventTypeName,
  isEventId,
  isEventTime,
  isEventTypeName,
  isTenantId,
  TenantId,
} from '../src/envelope.ts';

const valid = {
  id: 'evt_01HZX',
  type: 'shipment.updated',
  source: '/ingress',
  time: '2026-11-30T10:00:00.000Z',
  key: 'shp_1',
  data: { shipment: { id: 'shp_1', status: 'in_transit' } },
};

describe('EventEnvelope', () => {
  it('accepts a complete envelope', () => {
    expect(EventEnvelope.parse(valid)).toEqual(valid);
  });

  it.each([
    ['id', ''],
    ['id', 'has space'],
    ['type', 'ShipmentUpdated'],
    ['time', 'yesterday'],
    ['key', ''],
  ])('rejects a bad %s (%j), naming the field', (field, value) => {
    const result = EventEnvelope.safeParse({ ...valid, [field]: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([field]);
  });

  it('wants dotted lowercase type names', () => {
    expect(EventTypeName.safeParse('key.revoked').success).toBe(true);
    expect(EventTypeName.safeParse('keyrevoked').success).toBe(false);
  });
});

describe('the header predicates agree with their schemas', () => {
  const values = [
    '',
    'a',
    'shipment.updated',
    'Shipment.updated',
    'shipment',
    'shipment.',
    '.updated',
    'a.b.c_d9',
    'a.9b',
    'evt-1',
    'evt 1',
    'evt/1',
    'tenant:acme.eu_1',
    'é',
    'x'.repeat(100),
    'x'.repeat(101),
    'x'.repeat(200),
    'x'.repeat(201),
    'a.b\n',
  ];
  it.each([
    ['EventTypeName', EventTypeName, isEventTypeName],
    ['EventId', EventId, isEventId],
    ['TenantId', TenantId, isTenantId],
  ] as const)('%s', (_name, schema, predicate) => {
    for (const value of values)
      expect(predicate(value), JSON.stringify(value)).toBe(schema.safeParse(value).success);
  });

  it('EventEnvelope.time', () => {
    const times = [
      ...values,
      '2026-12-07T12:00:00Z',
      '2026-12-07T12:00:00.123Z',
      '2026-12-07T12:00:00.123456789+01:00',
      '2026-12-07T12:00:00',
      '2026-12-07 12:00:00Z',
      '2026-02-29T00:00:00Z',
      '2028-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-12-07T24:00:00Z',
      '2026-12-07T12:00:00+1:00',
      '2026-12-07T12:00:00Z\n',
    ];
    for (const value of times)
      expect(isEventTime(value), JSON.stringify(value)).toBe(
        EventEnvelope.shape.time.safeParse(value).success,
      );
  });
});
