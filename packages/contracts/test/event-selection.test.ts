import { describe, expect, it } from 'vitest';
import { EventSelection, eventTenantOf, eventTypeOf } from '../src/event-selection.ts';
import { acceptsEventType, acceptsTenant } from '../src/subscriber.ts';

const headers = (type?: string, tenant?: string): Record<string, string> => ({
  ...(type === undefined ? {} : { ce_type: type }),
  ...(tenant === undefined ? {} : { ce_tenant: tenant }),
});

describe('EventSelection: the one type and tenant rule', () => {
  it('reads the type and the tenant from the CloudEvents headers', () => {
    expect([eventTypeOf(headers('a.b', 'acme')), eventTenantOf(headers('a.b', 'acme'))]).toEqual([
      'a.b',
      'acme',
    ]);
    expect([eventTypeOf({}), eventTenantOf({})]).toEqual([undefined, undefined]);
  });

  it("takes a tenant's records only for that tenant's subscriber; every record for one without", () => {
    const acme = EventSelection.of({ eventTypes: ['*'], tenant: 'acme' });
    const anyone = EventSelection.of({ eventTypes: ['*'] });
    const cases = [headers('a.b', 'acme'), headers('a.b', 'globex'), headers('a.b'), headers('a.b', '')];
    expect(cases.map((h) => acme.takes(h))).toEqual([true, false, false, false]);
    expect(cases.map((h) => anyone.takes(h))).toEqual([true, true, true, true]);
  });

  it('takes its types, every type for `*`, and a record without a type (its delivery dead-letters it)', () => {
    const some = EventSelection.of({ eventTypes: ['a.b', 'c.d'] });
    expect(['a.b', 'c.d', 'e.f', undefined].map((t) => some.takes(headers(t)))).toEqual([
      true,
      true,
      false,
      true,
    ]);
    expect(EventSelection.of({ eventTypes: ['a.b', '*'] }).types).toBeNull();
    expect(EventSelection.of({}).takes(headers('e.f'))).toBe(true);
  });

  it("is the definition's rule too (acceptsEventType, acceptsTenant)", () => {
    for (const tenant of ['acme', undefined])
      for (const eventTypes of [['*'], ['a.b']]) {
        const selection = EventSelection.of({ eventTypes, tenant });
        const definition = { eventTypes, ...(tenant === undefined ? {} : { tenant }) };
        for (const type of ['a.b', 'x.y'])
          expect(acceptsEventType(definition, type)).toBe(selection.takesType(type));
        for (const t of ['acme', 'globex', undefined])
          expect(acceptsTenant(definition, t)).toBe(selection.takesTenant(t));
      }
  });
});

describe('the operational notices', () => {
  it('are taken only by a definition that names them, never by `*`', () => {
    const star = EventSelection.of({ eventTypes: ['*'] });
    const ops = EventSelection.of({ eventTypes: ['*', 'subscriber.dead_lettered'] });
    for (const type of ['subscriber.dead_lettered', 'subscriber.failing', 'subscriber.recovered'])
      expect([type, star.takesType(type)]).toEqual([type, false]);
    expect(ops.takesType('subscriber.dead_lettered')).toBe(true);
    expect(ops.takesType('subscriber.failing')).toBe(false);
    expect(star.takesType('subscriber.disabled')).toBe(true);
    expect(star.takesType('shipment.updated')).toBe(true);
  });
});
