import { describe, expect, it } from 'vitest';
import { loadEventCatalog } from '../src/event-catalog.ts';
import {
  EventFilter,
  evaluateFilter,
  FILTER_TOO_LARGE,
  filterNeedsData,
  filterTooLarge,
  resolvePointer,
} from '../src/event-filter.ts';
import { filterProblems } from '../src/filter-check.ts';
import { parseSubscriberSpec } from '../src/subscriber-record.ts';

const headers = {
  ce_type: 'shipment.updated',
  ce_source: 'shipping/eu-1',
  ce_tenant: 'acme',
  ce_region: 'eu',
};
const data = {
  shipment: { id: 's-1', status: 'in_transit', carrier: null, weight: 12, fragile: true, tags: ['a', 'b'] },
};
const parse = (f: unknown) => EventFilter.parse(f);

describe('evaluateFilter', () => {
  it.each([
    ['exact attribute', { exact: { type: 'shipment.updated' } }, true, null],
    ['exact attribute, other value', { exact: { type: 'key.revoked' } }, false, 'filter.exact.type'],
    [
      'every name of a leaf must match',
      { exact: { type: 'shipment.updated', tenant: 'other' } },
      false,
      'filter.exact.tenant',
    ],
    ['prefix on source', { prefix: { source: 'shipping/' } }, true, null],
    ['suffix on source', { suffix: { source: '-2' } }, false, 'filter.suffix.source'],
    ['an extension attribute is its ce_ header', { exact: { region: 'eu' } }, true, null],
    [
      'an attribute the event lacks matches nothing',
      { exact: { subject: 'x' } },
      false,
      'filter.exact.subject',
    ],
    ['a data pointer', { exact: { '/shipment/status': 'in_transit' } }, true, null],
    ['exact on a number is its JSON text', { exact: { '/shipment/weight': '12' } }, true, null],
    ['exact on a boolean is its JSON text', { exact: { '/shipment/fragile': 'true' } }, true, null],
    [
      'prefix on a number matches nothing',
      { prefix: { '/shipment/weight': '1' } },
      false,
      'filter.prefix./shipment/weight',
    ],
    [
      'null matches nothing',
      { exact: { '/shipment/carrier': 'null' } },
      false,
      'filter.exact./shipment/carrier',
    ],
    ['an array index', { exact: { '/shipment/tags/1': 'b' } }, true, null],
    [
      'a missing field matches nothing',
      { exact: { '/shipment/nope': 'x' } },
      false,
      'filter.exact./shipment/nope',
    ],
    [
      'all: the first part that refuses is named',
      { all: [{ exact: { type: 'shipment.updated' } }, { prefix: { '/shipment/id': 'x-' } }] },
      false,
      'filter.all[1].prefix./shipment/id',
    ],
    [
      'any: one part is enough',
      { any: [{ exact: { tenant: 'x' } }, { exact: { tenant: 'acme' } }] },
      true,
      null,
    ],
    [
      'any: none holds',
      { any: [{ exact: { tenant: 'x' } }, { exact: { tenant: 'y' } }] },
      false,
      'filter.any',
    ],
    ['not', { not: { exact: { tenant: 'acme' } } }, false, 'filter.not'],
    ['not of a refusal holds', { not: { exact: { tenant: 'other' } } }, true, null],
  ] as const)('%s', (_, filter, pass, refusedBy) => {
    const verdict = evaluateFilter(parse(filter), { headers, data });
    expect(verdict.pass).toBe(pass);
    if (!verdict.pass) expect(verdict.refusedBy).toBe(refusedBy);
  });

  it('before decoding, a data pointer matches nothing', () => {
    expect(evaluateFilter(parse({ exact: { '/shipment/status': 'in_transit' } }), { headers }).pass).toBe(
      false,
    );
  });
});

describe('filterNeedsData', () => {
  it('is false for attributes only (the filter runs before the event is decoded), true with any pointer', () => {
    expect(
      filterNeedsData(parse({ all: [{ exact: { type: 'a.b' } }, { not: { prefix: { source: 'x' } } }] })),
    ).toBe(false);
    expect(
      filterNeedsData(parse({ any: [{ exact: { type: 'a.b' } }, { not: { exact: { '/x': 'y' } } }] })),
    ).toBe(true);
  });
});

describe('EventFilter, as a definition holds it', () => {
  it.each([
    ['an unknown operator', { equals: { type: 'x' } }],
    ['an empty leaf', { exact: {} }],
    ['an upper-case attribute name', { exact: { Type: 'x' } }],
    ['a pointer with a bad escape', { exact: { '/a~2b': 'x' } }],
    ['the whole document as a pointer', { exact: { '': 'x' } }],
    ['an empty all', { all: [] }],
    ['two operators in one part', { exact: { type: 'x' }, prefix: { source: 'y' } }],
    ['a non-string value', { exact: { type: 1 } }],
    ['nine levels deep', [...Array(8)].reduce((f) => ({ not: f }), { exact: { type: 'x' } })],
  ])('refuses %s', (_, filter) => {
    expect(EventFilter.safeParse(filter).success).toBe(false);
  });

  it('refuses more than 64 parts', () => {
    const leaves = Array.from({ length: 64 }, (_, i) => ({ exact: { type: `t${i}` } }));
    expect(EventFilter.safeParse({ any: leaves }).success).toBe(false);
    expect(EventFilter.safeParse({ any: leaves.slice(1) }).success).toBe(true);
  });
});

describe('a filter too deep for a recursive parse', () => {
  it('is refused before zod walks it (5,000 levels would exhaust the stack)', () => {
    let filter: unknown = { exact: { type: 'x' } };
    for (let i = 0; i < 5000; i++) filter = { not: filter };
    expect(filterTooLarge(filter)).toBe(true);
    expect(parseSubscriberSpec({ name: 'deep', url: 'https://d.example.com/', filter })).toEqual({
      ok: false,
      error: FILTER_TOO_LARGE,
    });
    expect(filterTooLarge({ all: [{ exact: { type: 'x' } }, { not: { prefix: { source: 'y' } } }] })).toBe(
      false,
    );
  });
});

describe('resolvePointer', () => {
  it('unescapes ~1 and ~0 (RFC 6901)', () => {
    expect(resolvePointer({ 'a/b': { 'c~d': 1 } }, '/a~1b/c~0d')).toBe(1);
  });
});

describe('filterProblems, against the event types a subscriber takes', () => {
  const catalog = loadEventCatalog();
  const shipment = [catalog.get('shipment.updated')].flatMap((s) => (s ? [s] : []));
  const both = ['shipment.updated', 'key.revoked'].flatMap((t) => {
    const s = catalog.get(t);
    return s ? [s] : [];
  });

  it('takes pointers to fields the schema has, through nested records and nullable unions', () => {
    expect(filterProblems(parse({ prefix: { '/shipment/carrier': 'D' } }), shipment)).toEqual([]);
    expect(filterProblems(parse({ exact: { '/shipment/status': 'x', type: 'anything' } }), shipment)).toEqual(
      [],
    );
  });

  it('refuses a pointer that names no field of any type it takes', () => {
    expect(filterProblems(parse({ exact: { '/shipment/colour': 'red' } }), shipment)).toEqual([
      'exact./shipment/colour: no field at that path in the data of shipment.updated',
    ]);
  });

  it('takes a pointer that one of its types has', () => {
    expect(filterProblems(parse({ exact: { '/tenant_id': 'acme' } }), both)).toEqual([]);
  });

  it('refuses prefix and suffix on a field that is never text', () => {
    expect(filterProblems(parse({ suffix: { '/shipment': 'x' } }), shipment)).toEqual([
      'suffix./shipment: suffix needs a text field, and it is record',
    ]);
  });
});
