import { nameBindingKey } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { foldRegistry } from '../src/catalog-records.ts';
import { CatalogError } from '../src/errors.ts';
import {
  nameCollisions,
  nameHolder,
  OPERATOR,
  planDelete,
  refuseUnavailableNames,
  unavailableNames,
} from '../src/name-holders.ts';
import { definition, NOW, raw, record } from './fixtures.ts';

const acme = { kind: 'tenant', tenant: 'acme' } as const;
const globex = { kind: 'tenant', tenant: 'globex' } as const;

function tenantRecord(name: string, tenant: string) {
  return record(name, { version: 4, definition: definition(name, { tenant }) });
}

const bound = (name: string, tenant: string | null) =>
  raw(nameBindingKey(name), { name, tenant, boundAt: NOW.toISOString() });
const registered = (name: string) =>
  raw(`events/${name}`, {
    name,
    eventsTopic: 'events',
    registeredAt: NOW.toISOString(),
    lastStartedAt: NOW.toISOString(),
  });

function code(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (err) {
    if (err instanceof CatalogError) return err.code;
    throw err;
  }
}

describe('name bindings in the catalog', () => {
  it('are folded apart from records and registrations; a tombstone frees the name; a bad one keeps the last good', () => {
    const snap = foldRegistry([
      raw('x', tenantRecord('x', 'acme')),
      raw('x', null),
      bound('x', 'acme'),
      bound('y', null),
      raw(nameBindingKey('y'), null),
      bound('z', 'acme'),
      raw(nameBindingKey('z'), '{"name":"z","tenant":"globex"}', '0:7'),
      raw(nameBindingKey('w'), { name: 'other', tenant: 'acme', boundAt: NOW.toISOString() }),
    ]);
    expect([...snap.subscribers.keys()]).toEqual([]);
    expect(snap.registrations.size).toBe(0);
    expect(snap.bindings.get('x')?.tenant).toBe('acme');
    expect(snap.bindings.has('y')).toBe(false);
    expect(snap.bindings.get('z')?.tenant).toBe('acme');
    expect(snap.bindings.has('w')).toBe(false);
    expect(snap.problems.map((p) => p.key).sort()).toEqual([nameBindingKey('w'), nameBindingKey('z')]);
  });
});

describe('nameHolder', () => {
  it('is the live record, else the binding, else no tenant when only registrations are left, else nobody', () => {
    const snap = foldRegistry([
      raw('live', tenantRecord('live', 'acme')),
      bound('gone', 'globex'),
      registered('old'),
    ]);
    expect(nameHolder(snap, 'live')).toEqual({ tenant: 'acme', live: true });
    expect(nameHolder(snap, 'gone')).toEqual({ tenant: 'globex', live: false });
    expect(nameHolder(snap, 'old')).toEqual({ tenant: null, live: false });
    expect(nameHolder(snap, 'free')).toBeNull();
  });
});

describe('unavailableNames', () => {
  const snap = foldRegistry([
    raw('live', tenantRecord('live', 'acme')),
    raw('plain', record('plain')),
    bound('gone', 'acme'),
    bound('gone-plain', null),
    registered('old'),
  ]);

  it('lets a name go to its own tenant, or to anyone when free', () => {
    expect(unavailableNames(snap, [{ name: 'live', tenant: 'acme' }], acme)).toEqual([]);
    expect(unavailableNames(snap, [{ name: 'gone', tenant: 'acme' }], OPERATOR)).toEqual([]);
    expect(
      unavailableNames(snap, [{ name: 'gone-plain' }, { name: 'old' }, { name: 'plain' }], OPERATOR),
    ).toEqual([]);
    expect(unavailableNames(snap, [{ name: 'free', tenant: 'globex' }], globex)).toEqual([]);
  });

  it('refuses a name held by another tenant, by a tenant to no tenant, and by no tenant to a tenant', () => {
    expect(unavailableNames(snap, [{ name: 'live', tenant: 'globex' }], globex)).toEqual(['live']);
    expect(unavailableNames(snap, [{ name: 'gone', tenant: 'globex' }], OPERATOR)).toEqual(['gone']);
    expect(unavailableNames(snap, [{ name: 'gone' }], OPERATOR)).toEqual(['gone']);
    expect(unavailableNames(snap, [{ name: 'gone-plain', tenant: 'acme' }], acme)).toEqual(['gone-plain']);
    expect(unavailableNames(snap, [{ name: 'old', tenant: 'acme' }], OPERATOR)).toEqual(['old']);
    expect(unavailableNames(snap, [{ name: 'plain', tenant: 'acme' }], acme)).toEqual(['plain']);
  });

  it("leaves the operator's change of a live record's tenant to planApply (TENANT_CHANGED)", () => {
    expect(unavailableNames(snap, [{ name: 'live', tenant: 'globex' }], OPERATOR)).toEqual([]);
  });

  it('refuses with NAME_UNAVAILABLE, naming neither the holder nor whether it is live', () => {
    let error: unknown;
    try {
      refuseUnavailableNames(snap, [{ name: 'live', tenant: 'globex' }], globex);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CatalogError);
    expect((error as CatalogError).code).toBe('NAME_UNAVAILABLE');
    expect((error as CatalogError).canRetry).toBe(false);
    expect((error as CatalogError).message).toBe('"live": the name is unavailable; nothing was written');
    expect(() => refuseUnavailableNames(snap, [{ name: 'live', tenant: 'acme' }], acme)).not.toThrow();
  });
});

describe("names Kafka cannot tell apart ('.' against '_')", () => {
  const snap = foldRegistry([
    raw('x_y', tenantRecord('x_y', 'globex')),
    bound('a.b', 'acme'),
    registered('old.one'),
  ]);

  it('refuses the twin of a held name to every tenant and to the operator, whoever holds it', () => {
    expect(unavailableNames(snap, [{ name: 'x.y', tenant: 'acme' }], acme)).toEqual(['x.y']);
    expect(unavailableNames(snap, [{ name: 'x.y', tenant: 'globex' }], globex)).toEqual(['x.y']);
    expect(unavailableNames(snap, [{ name: 'x.y' }], OPERATOR)).toEqual(['x.y']);
    expect(unavailableNames(snap, [{ name: 'a_b', tenant: 'acme' }], acme)).toEqual(['a_b']);
    expect(unavailableNames(snap, [{ name: 'old_one' }], OPERATOR)).toEqual(['old_one']);
    expect(unavailableNames(snap, [{ name: 'x-y', tenant: 'acme' }], acme)).toEqual([]);
  });

  it('refuses two new twins asked for together, and says the rule without naming a holder', () => {
    const pair = [{ name: 'p.q' }, { name: 'p_q' }];
    expect(unavailableNames(snap, pair, OPERATOR)).toEqual(['p.q', 'p_q']);
    expect(() => refuseUnavailableNames(snap, [{ name: 'x.y', tenant: 'acme' }], acme)).toThrow(
      /^"x\.y": the name is unavailable \(Kafka cannot tell '\.' from '_' in topic names.*\); nothing was written$/,
    );
  });

  it('keeps a pair held from before manageable, and lists it for operators', () => {
    const before = foldRegistry([
      raw('m.n', tenantRecord('m.n', 'acme')),
      raw('m_n', tenantRecord('m_n', 'globex')),
      raw('solo', tenantRecord('solo', 'acme')),
      bound('k.l.m', null),
      registered('k_l_m'),
    ]);
    expect(unavailableNames(before, [{ name: 'm.n', tenant: 'acme' }], acme)).toEqual([]);
    expect(nameCollisions(before)).toEqual([
      ['k.l.m', 'k_l_m'],
      ['m.n', 'm_n'],
    ]);
    expect(nameCollisions(snap)).toEqual([]);
  });
});

describe('planDelete', () => {
  const snap = foldRegistry([
    raw('live', tenantRecord('live', 'acme')),
    raw('plain', record('plain')),
    bound('gone', 'acme'),
    registered('old'),
  ]);
  const now = NOW;

  it("a tenant's delete always purges, whatever it asks", () => {
    const plan = planDelete(snap, 'live', acme, { purge: false, now });
    expect(plan).toMatchObject({ name: 'live', purge: true, binding: null });
    expect(plan.record?.definition.tenant).toBe('acme');
    expect(planDelete(snap, 'gone', acme, { purge: false, now })).toMatchObject({
      record: undefined,
      purge: true,
    });
  });

  it('a tenant cannot delete what it does not hold, and is told only that it does not exist', () => {
    for (const name of ['live', 'plain', 'gone', 'old', 'free'])
      expect(code(() => planDelete(snap, name, globex, { purge: true, now }))).toBe('UNKNOWN_SUBSCRIBER');
  });

  it("an operator's delete without --purge keeps the name bound to the record's tenant, or to none", () => {
    expect(planDelete(snap, 'live', OPERATOR, { purge: false, now })).toMatchObject({
      purge: false,
      binding: { name: 'live', tenant: 'acme', boundAt: NOW.toISOString() },
    });
    expect(planDelete(snap, 'plain', OPERATOR, { purge: false, now }).binding?.tenant).toBeNull();
  });

  it('an operator purges a live, a bound or a registered-only name; nothing else', () => {
    for (const name of ['live', 'gone', 'old'])
      expect(planDelete(snap, name, OPERATOR, { purge: true, now })).toMatchObject({
        purge: true,
        binding: null,
      });
    expect(code(() => planDelete(snap, 'gone', OPERATOR, { purge: false, now }))).toBe('UNKNOWN_SUBSCRIBER');
    expect(code(() => planDelete(snap, 'free', OPERATOR, { purge: true, now }))).toBe('UNKNOWN_SUBSCRIBER');
  });
});
