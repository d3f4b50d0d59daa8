import { describe, expect, it } from 'vitest';
import { loadEventCatalog } from '../src/event-catalog.ts';
import { definitionFilterProblems } from '../src/filter-check.ts';
import { parseSubscriberDefinition } from '../src/subscriber.ts';
import { fieldsNewerThan, recordVersionFor, SubscriberRecord } from '../src/subscriber-record.ts';

const parse = (extra: Record<string, unknown>) =>
  parseSubscriberDefinition({ name: 'shipments', url: 'https://ops.example/hooks', ...extra });

describe('batch on a subscriber', () => {
  it('fills in the limits it leaves out, grouping by tenant', () => {
    const parsed = parse({ batch: {} });
    expect(parsed.ok && parsed.value.batch).toEqual({
      maxEvents: 100,
      maxBytes: 1024 * 1024,
      maxWaitMs: 1000,
      groupBy: 'tenant',
    });
  });

  it.each([
    [{ maxEvents: 0 }, /^batch\.maxEvents: /],
    [{ maxEvents: 1001 }, /^batch\.maxEvents: /],
    [{ maxBytes: 1023 }, /^batch\.maxBytes: /],
    [{ maxBytes: 4 * 1024 * 1024 + 1 }, /^batch\.maxBytes: /],
    [{ maxWaitMs: 60_001 }, /^batch\.maxWaitMs: /],
    [{ maxWaitMs: -1 }, /^batch\.maxWaitMs: /],
    [{ groupBy: 'region' }, /^batch\.groupBy: /],
    [{ groupBy: 'shipment/id' }, /^batch\.groupBy: /],
    [{ size: 10 }, /^unknown field "size" in batch/],
  ])('refuses %j', (batch, error) => {
    const parsed = parse({ batch });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(error);
  });

  it('takes groupBy "key" only without key order, where a key would carry one event per batch', () => {
    expect(parse({ batch: { groupBy: 'key' } }).ok).toBe(true);
    for (const ordering of ['key', 'strict']) {
      const parsed = parse({ ordering, batch: { groupBy: 'key' } });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(/^batch\.groupBy: "key" carries one event per batch/);
    }
    expect(parse({ ordering: 'key', batch: { groupBy: 'tenant' } }).ok).toBe(true);
  });

  it('is record version 8', () => {
    const parsed = parse({ batch: { maxEvents: 50 } });
    if (!parsed.ok) throw new Error(parsed.error);
    expect(recordVersionFor(parsed.value)).toBe(8);
    expect(fieldsNewerThan(parsed.value, 7)).toEqual(['batch']);
    const record = (version: number) =>
      SubscriberRecord.safeParse({
        version,
        definition: parsed.value,
        state: { kind: 'active' },
        createdAt: '2026-12-04T10:00:00Z',
        updatedAt: '2026-12-04T10:00:00Z',
      }).success;
    expect(record(8)).toBe(true);
    expect(record(7)).toBe(false);
  });

  it('refuses at apply a groupBy pointer that names no field of the types it takes', () => {
    const catalog = loadEventCatalog();
    const check = (groupBy: string) => {
      const parsed = parse({ eventTypes: ['shipment.updated'], batch: { groupBy } });
      if (!parsed.ok) throw new Error(parsed.error);
      return definitionFilterProblems(parsed.value, catalog);
    };
    expect(check('/shipment/carrier')).toEqual([]);
    expect(check('/shipment/colour')).toEqual([
      'batch.groupBy: no field at /shipment/colour in the data of shipment.updated',
    ]);
    expect(check('tenant')).toEqual([]);
  });
});
