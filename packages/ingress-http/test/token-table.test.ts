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

  it("refuses a token granted a type hookstream emits: nobody may publish hookstream's notices", () => {
    expect(() =>
      TokenTable.parse(
        [`${A}=shipment.updated|subscriber.disabled`],
        new Set([...known, 'subscriber.disabled']),
      ),
    ).toThrow(/entry 1: subscriber.disabled reserved/);
  });
});
