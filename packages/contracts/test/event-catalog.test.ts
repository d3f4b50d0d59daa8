import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEventCatalog } from '../src/event-catalog.ts';

describe('the event catalog from schemas/', () => {
  const catalog = loadEventCatalog();

  it('has the shipped types and the seven operational ones, each with its record-name subject', () => {
    expect([...catalog.keys()]).toEqual([
      'enrollment.updated',
      'key.revoked',
      'shipment.updated',
      'subscriber.dead_lettered',
      'subscriber.disabled',
      'subscriber.enabled',
      'subscriber.events_lost',
      'subscriber.failing',
      'subscriber.recovered',
      'subscriber.retention_at_risk',
    ]);
    expect(catalog.get('subscriber.disabled')?.subject).toBe('hookstream.ops.SubscriberDisabled');
    expect(catalog.get('shipment.updated')?.subject).toBe('hookstream.events.ShipmentUpdated');
  });

  it('accepts the data the issue promises for each type', () => {
    const ok = (type: string, data: unknown) => catalog.get(type)?.validator.safeParse(data).success;
    expect(ok('shipment.updated', { shipment: { id: 's1', status: 'in_transit' } })).toBe(true);
    expect(
      ok('shipment.updated', {
        shipment: {
          id: 's1',
          status: 'delivered',
          carrier: 'dhl',
          tracking_number: 'JD0123',
          updated_at: '2026-11-30T10:00:00Z',
        },
      }),
    ).toBe(true);
    expect(
      ok('enrollment.updated', {
        enrollment: { id: 'e1', student_id: 'st1', course_id: 'c1', status: 'active' },
      }),
    ).toBe(true);
    expect(ok('key.revoked', { tenant_id: 't1', key_id: 'k1' })).toBe(true);
  });

  it('refuses key material on key.revoked', () => {
    const result = catalog
      .get('key.revoked')
      ?.validator.safeParse({ tenant_id: 't', key_id: 'k', secret: 'x' });
    expect(result?.success).toBe(false);
  });

  it.each(['attempt', 'tenant'])(
    'refuses a schema that declares the reserved top-level field %s, naming the file',
    (name) => {
      const dir = mkdtempSync(join(tmpdir(), 'schemas-'));
      const avro = { type: 'record', name: 'Bad', fields: [{ name, type: 'string' }] };
      writeFileSync(join(dir, 'bad.thing.avsc'), JSON.stringify(avro));
      expect(() => loadEventCatalog(dir)).toThrow(new RegExp(`bad\\.thing\\.avsc.*${name} is reserved`));
    },
  );

  it('takes a tenant below the top level: only the top level of the body is reserved', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schemas-'));
    const inner = { type: 'record', name: 'Owner', fields: [{ name: 'tenant', type: 'string' }] };
    const avro = { type: 'record', name: 'Fine', fields: [{ name: 'owner', type: inner }] };
    writeFileSync(join(dir, 'fine.thing.avsc'), JSON.stringify(avro));
    expect(loadEventCatalog(dir).has('fine.thing')).toBe(true);
  });
});
