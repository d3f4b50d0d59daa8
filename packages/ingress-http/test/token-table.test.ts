import { describe, expect, it } from 'vitest';
import { TokenTable } from '../src/token-table.ts';

const known = new Set(['shipment.updated', 'key.revoked']);
const A = 'token-aaaaaaaaaaaaaaaa';
const B = 'token-bbbbbbbbbbbbbbbb';

describe('TokenTable', () => {
  const table = TokenTable.parse([A, ` ${B}=shipment.updated `, '# a comment', ''], known);

  it('knows each token and what it may publish', () => {
    expect(table.size).toBe(2);
    expect(table.authorize(`Bearer ${A}`)?.types).toBeNull();
    expect([...(table.authorize(`bearer ${B}`)?.types ?? [])]).toEqual(['shipment.updated']);
  });

  it.each([undefined, '', A, `Basic ${A}`, 'Bearer token-cccccccccccccccc', `Bearer ${A}x`])(
    'refuses %j',
    (header) => {
      expect(table.authorize(header)).toBeNull();
    },
  );

  it('refuses short tokens and unknown types without echoing the token', () => {
    expect(() => TokenTable.parse(['short'], known)).toThrow(/entry 1: a token needs at least 16/);
    expect(() => TokenTable.parse([`${A}=parcel.lost`], known)).toThrow(
      /entry 1: unknown event type\(s\) parcel.lost/,
    );
    try {
      TokenTable.parse([`${A}=parcel.lost`], known);
    } catch (err) {
      expect((err as Error).message).not.toContain(A);
    }
  });

  it('binds a token to a tenant with @tenant, after its types or without them', () => {
    const bound = TokenTable.parse(
      [`${A}@acme.eu-1:prod_2`, `${B}=shipment.updated|key.revoked@globex`, 'token-cccccccccccccccc'],
      known,
    );
    expect(bound.authorize(`Bearer ${A}`)).toMatchObject({ types: null, tenant: 'acme.eu-1:prod_2' });
    expect(bound.authorize(`Bearer ${B}`)?.tenant).toBe('globex');
    expect([...(bound.authorize(`Bearer ${B}`)?.types ?? [])]).toEqual(['shipment.updated', 'key.revoked']);
    expect(bound.authorize('Bearer token-cccccccccccccccc')?.tenant).toBeNull();
    // The token is what comes before the suffix: the whole entry is no token.
    expect(bound.authorize(`Bearer ${A}@acme.eu-1:prod_2`)).toBeNull();
  });

  it.each([
    [`${A}@`, /entry 1: the tenant after @ needs 1 to 100/],
    [`${A}@acme corp`, /entry 1: the tenant after @/],
    [`${A}@${'t'.repeat(101)}`, /entry 1: the tenant after @/],
    [`${A}@acme=shipment.updated`, /entry 1: the tenant after @/],
    [`tok@en-aaaaaaaaaaaaaaaa@acme`, /entry 1: a token needs at least 16 characters and no spaces or @/],
  ])('refuses %j naming the entry, never the token', (entry, message) => {
    expect(() => TokenTable.parse([entry], known)).toThrow(message);
    try {
      TokenTable.parse([entry], known);
    } catch (err) {
      expect((err as Error).message).not.toContain('aaaaaaaa');
    }
  });

  it('refuses a token listed twice with two tenants, and takes it twice with the same one', () => {
    expect(() => TokenTable.parse([`${A}@acme`, `${A}@globex`], known)).toThrow(
      /entry 2: this token is listed before, bound to another tenant/,
    );
    expect(() => TokenTable.parse([`${A}@acme`, A], known)).toThrow(/entry 2/);
    expect(TokenTable.parse([`${A}@acme`, `${A}@acme`], known).size).toBe(1);
  });

  it("refuses a token granted a type hookstream emits: nobody may publish hookstream's notices", () => {
    expect(() =>
      TokenTable.parse(
        [`${A}=shipment.updated|subscriber.disabled`],
        new Set([...known, 'subscriber.disabled']),
      ),
    ).toThrow(/entry 1: subscriber.disabled reserved/);
  });
});
