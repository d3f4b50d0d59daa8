import { describe, expect, it } from 'vitest';
import { EventEnvelope, EventTypeName } from '../src/envelope.ts';

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
