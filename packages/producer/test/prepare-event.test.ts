import { createHash } from 'node:crypto';
import { loadEventCatalog, PublishRequest } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { PublishError } from '../src/errors.ts';
import { canonicalJson, plainRequest, prepareEvent } from '../src/prepare-event.ts';

const catalog = loadEventCatalog();
const now = () => new Date('2026-11-30T10:00:00.000Z');
const shipment = { type: 'shipment.updated', data: { shipment: { id: 's1', status: 'in_transit' } } };

function failure(input: unknown): PublishError {
  try {
    prepareEvent(catalog, input, now);
  } catch (err) {
    if (err instanceof PublishError) return err;
    throw err;
  }
  throw new Error('expected a PublishError');
}

const disabled = {
  type: 'subscriber.disabled',
  data: {
    subscriber: 'billing',
    cause: 'gone',
    reason: '410',
    disabled_at: '2026-11-30T10:00:00.000Z',
    events_topic: 'events',
  },
};

describe('prepareEvent', () => {
  it('refuses the types hookstream emits on the events channel, and takes only those on the notices one', () => {
    expect(failure(disabled)).toMatchObject({ code: 'RESERVED_TYPE', canRetry: false });
    expect(prepareEvent(catalog, disabled, now, 'notices').type).toBe('subscriber.disabled');
    expect(() => prepareEvent(catalog, shipment, now, 'notices')).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST' }),
    );
  });

  it('generates an id, uses it as key, stamps the time and fills schema defaults', () => {
    const event = prepareEvent(catalog, shipment, now);
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.key).toBe(event.id);
    expect(event.time).toBe('2026-11-30T10:00:00.000Z');
    expect(event.data).toEqual({
      shipment: { id: 's1', status: 'in_transit', carrier: null, tracking_number: null, updated_at: null },
    });
  });

  it("keeps the producer's id, key and occurred_at", () => {
    const event = prepareEvent(
      catalog,
      { ...shipment, id: 'evt-1', key: 's1', occurred_at: '2026-01-01T00:00:00Z' },
      now,
    );
    expect([event.id, event.key, event.time]).toEqual(['evt-1', 's1', '2026-01-01T00:00:00Z']);
  });

  it('keeps a named tenant, gives a request without one the bound tenant, and none otherwise', () => {
    expect(prepareEvent(catalog, shipment, now).tenant).toBeUndefined();
    expect(prepareEvent(catalog, { ...shipment, tenant: 'acme' }, now).tenant).toBe('acme');
    expect(prepareEvent(catalog, shipment, now, 'events', 'bound').tenant).toBe('bound');
    expect(prepareEvent(catalog, { ...shipment, tenant: 'bound' }, now, 'events', 'bound').tenant).toBe(
      'bound',
    );
  });

  it('generates a different id for each event without one', () => {
    expect(prepareEvent(catalog, shipment, now).id).not.toBe(prepareEvent(catalog, shipment, now).id);
  });

  it.each([
    [{ ...shipment, type: 'parcel.lost' }, 'UNKNOWN_TYPE', 'type'],
    [{ ...shipment, type: 'Nope' }, 'UNKNOWN_TYPE', 'type'],
    [{ data: shipment.data }, 'INVALID_REQUEST', 'type'],
    [null, 'INVALID_REQUEST', ''],
    ['text', 'INVALID_REQUEST', ''],
    [{ ...shipment, id: 'with space' }, 'INVALID_REQUEST', 'id'],
    [{ ...shipment, data: 'text' }, 'INVALID_REQUEST', 'data'],
    [{ ...shipment, data: { shipment: { id: 's1' } } }, 'INVALID_DATA', 'data.shipment.status'],
    [{ ...shipment, data: { shipment: { id: 's1', status: 7 } } }, 'INVALID_DATA', 'data.shipment.status'],
    [{ ...shipment, data: { ...shipment.data, attempt: 1 } }, 'RESERVED_FIELD', 'data.attempt'],
    [{ ...shipment, data: { ...shipment.data, tenant: 'acme' } }, 'RESERVED_FIELD', 'data.tenant'],
    [{ ...shipment, tenant: 'a'.repeat(101) }, 'INVALID_REQUEST', 'tenant'],
    [{ ...shipment, tenant: 'acme corp' }, 'INVALID_REQUEST', 'tenant'],
    [{ ...shipment, tenant: '' }, 'INVALID_REQUEST', 'tenant'],
    [{ ...shipment, tenant: null }, 'INVALID_REQUEST', 'tenant'],
    [
      { type: 'key.revoked', data: { tenant_id: 't', key_id: 'k', event_id: 'x' } },
      'RESERVED_FIELD',
      'data.event_id',
    ],
  ])('rejects %j with %s at %s', (input, code, path) => {
    const err = failure(input);
    expect(err.code).toBe(code);
    expect(err.canRetry).toBe(false);
    expect(err.details[0]?.path).toBe(path);
  });

  it('refuses an occurred_at more than the allowed skew in the future, so age ceilings work', () => {
    for (const occurred_at of ['9999-12-31T23:59:59Z', '2026-11-30T10:16:00Z', '2026-11-30T12:00:00+01:00']) {
      const err = failure({ ...shipment, occurred_at });
      expect([occurred_at, err.code, err.details[0]?.path]).toEqual([
        occurred_at,
        'INVALID_REQUEST',
        'occurred_at',
      ]);
    }
    // Within clock skew, and any past time, are kept as given.
    for (const occurred_at of ['2026-11-30T10:14:00Z', '2020-01-01T00:00:00Z']) {
      expect(prepareEvent(catalog, { ...shipment, occurred_at }, now).time).toBe(occurred_at);
    }
  });
});

/** The first implementation, kept as the reference: fingerprints must not change. */
function referenceCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceCanonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${referenceCanonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

describe('canonicalJson', () => {
  it('gives the text the reference implementation gives (so fingerprints stay as they were)', () => {
    const values: unknown[] = [
      null,
      0,
      -0,
      1.5e300,
      'text',
      '',
      'ü 😀 \ud800 "quoted" \\ \n',
      true,
      undefined,
      [],
      {},
      [1, undefined, null, 'a', { b: 1, a: [2, { d: undefined, c: 3 }] }],
      { z: 1, a: 2, é: 3, E: 4, '😀': 5, '': 6, '10': 7, '9': 8, skip: undefined },
      { shipment: { id: 's1', status: 'in_transit', carrier: null, tracking_number: 'T'.repeat(960) } },
      { nested: { deeper: { deepest: [[], [{}], [{ y: 'y', x: 'x' }]] } } },
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(referenceCanonicalJson(value));
  });

  it('ignores key order', () => {
    expect(canonicalJson({ a: 1, b: { c: 2, d: 3 } })).toBe(canonicalJson({ b: { d: 3, c: 2 }, a: 1 }));
  });
});

describe('plainRequest (the fast path past the zod envelope schema)', () => {
  const data = { shipment: { id: 's1', status: 'in_transit' } };
  const variants: unknown[] = [
    { type: 'shipment.updated', data },
    { type: 'shipment.updated', data, id: 'evt-1', key: 'k' },
    { type: 'shipment.updated', data, id: 'a'.repeat(200) },
    { type: 'shipment.updated', data, id: 'a'.repeat(201) },
    { type: 'shipment.updated', data, id: '' },
    { type: 'shipment.updated', data, id: 'with space' },
    { type: 'shipment.updated', data, id: 'ünï' },
    { type: 'shipment.updated', data, id: 7 },
    { type: 'shipment.updated', data, key: '' },
    { type: 'shipment.updated', data, key: 'k'.repeat(1024) },
    { type: 'shipment.updated', data, key: 'k'.repeat(1025) },
    { type: 'shipment.updated', data, key: '😀' },
    { type: 'shipment.updated', data, occurred_at: '2026-01-01T00:00:00Z' },
    { type: 'shipment.updated', data, tenant: 'acme' },
    { type: 'shipment.updated', data, id: 'evt-1', key: 'k', tenant: 'acme.eu-1:prod_2' },
    { type: 'shipment.updated', data, tenant: 't'.repeat(100) },
    { type: 'shipment.updated', data, tenant: 't'.repeat(101) },
    { type: 'shipment.updated', data, tenant: '' },
    { type: 'shipment.updated', data, tenant: 'acme corp' },
    { type: 'shipment.updated', data, tenant: 'ünï' },
    { type: 'shipment.updated', data, tenant: 7 },
    { type: 'shipment.updated', data, tenant: null },
    { type: 'shipment.updated', data, tenant: undefined },
    { type: 'shipment.updated', data, extra: 1 },
    { type: 'shipment.updated', data, id: undefined },
    { type: 'Shipment.updated', data },
    { type: 'shipment', data },
    { type: 'shipment.updated', data: [] },
    { type: 'shipment.updated', data: null },
    { type: 'shipment.updated', data: 'text' },
    { type: 'shipment.updated', data: {} },
    { type: 'shipment.updated', data: JSON.parse('{"__proto__": {"x": 1}}') },
    { data },
    [],
    null,
    'text',
    Object.create({ type: 'shipment.updated', data }),
  ];

  it('accepts only what PublishRequest accepts, and gives what it gives', () => {
    for (const input of variants) {
      const fast = plainRequest(input);
      const zod = PublishRequest.safeParse(input);
      if (fast !== undefined) {
        expect([input, zod.success]).toEqual([input, true]);
        expect(fast).toEqual(zod.data);
      }
    }
    expect(plainRequest({ type: 'shipment.updated', data, id: 'evt-1', key: 'k' })).toBeDefined();
    expect(plainRequest({ type: 'shipment.updated', data, tenant: 'acme' })).toBeDefined();
  });

  it('leaves every refused request to zod, so its messages stay as they were', () => {
    const err = failure({ ...shipment, id: 'with space' });
    expect(err.message).toMatch(/^invalid event: id: /);
    expect(failure({ ...shipment, extra: 1 }).code).toBe('INVALID_REQUEST');
  });
});

describe('fingerprints', () => {
  it('are equal for the same event whatever its key order, and differ when anything differs', () => {
    const a = prepareEvent(catalog, { ...shipment, id: 'e1', key: 's1' }, now);
    const b = prepareEvent(
      catalog,
      {
        key: 's1',
        id: 'e1',
        data: { shipment: { status: 'in_transit', id: 's1' } },
        type: 'shipment.updated',
      },
      now,
    );
    expect(b.fingerprint).toBe(a.fingerprint);
    // Defaults filled in by the schema are the same event as the values written out.
    const c = prepareEvent(
      catalog,
      {
        ...shipment,
        id: 'e1',
        key: 's1',
        data: { shipment: { id: 's1', status: 'in_transit', carrier: null, tracking_number: null } },
      },
      now,
    );
    expect(c.fingerprint).toBe(a.fingerprint);
    const different = [
      { ...shipment, id: 'e1' },
      { ...shipment, id: 'e1', key: 's2' },
      { ...shipment, id: 'e1', key: 's1', occurred_at: '2026-01-01T00:00:00Z' },
      { ...shipment, id: 'e1', key: 's1', data: { shipment: { id: 's1', status: 'delivered' } } },
      { ...shipment, id: 'e1', key: 's1', tenant: 'acme' },
    ].map((input) => prepareEvent(catalog, input, now).fingerprint);
    expect(new Set([a.fingerprint, ...different]).size).toBe(6);
  });

  it("take the event's tenant: a bound token's event is the same whether the request names it or not", () => {
    const named = prepareEvent(catalog, { ...shipment, id: 'e1', tenant: 'acme' }, now);
    const bound = prepareEvent(catalog, { ...shipment, id: 'e1' }, now, 'events', 'acme');
    const other = prepareEvent(catalog, { ...shipment, id: 'e1' }, now, 'events', 'globex');
    expect(bound.fingerprint).toBe(named.fingerprint);
    expect(other.fingerprint).not.toBe(named.fingerprint);
  });

  it('of events without a tenant are what they were before tenants (the same text digested)', () => {
    const event = prepareEvent(catalog, { ...shipment, id: 'e1', key: 's1' }, now);
    const before = JSON.stringify([{ type: 'shipment.updated', key: 's1', occurred_at: null }, event.data]);
    expect(event.fingerprint).toBe(createHash('sha256').update(before).digest('hex'));
  });
});
