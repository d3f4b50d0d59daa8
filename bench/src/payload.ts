import { randomBytes } from 'node:crypto';

/** A shipment.updated event whose Avro value is about 1 KiB (the tracking number pads it). */
export function kibEvent(i: number): { type: string; key: string; data: unknown } {
  return {
    type: 'shipment.updated',
    key: `shp-${i % 1000}`,
    data: {
      shipment: {
        id: `shp-${i % 1000}`,
        status: 'in_transit',
        carrier: 'bench-carrier',
        tracking_number: 'T'.repeat(960),
        updated_at: '2026-11-30T10:00:00Z',
      },
    },
  };
}

/** 1 KiB of random bytes: what the raw kafkajs loop writes per record. */
export function kibValue(): Buffer {
  return randomBytes(1024);
}
