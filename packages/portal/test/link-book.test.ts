import type { PortalLink, PortalLinkRequest } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { LINK_KEPT_AFTER_END_MS, type LinkLog, PortalLinkBook } from '../src/link-book.ts';
import { parseLinkToken } from '../src/link-secret.ts';

class ArrayLog implements LinkLog {
  readonly written: (PortalLink | string)[] = [];
  async append(link: PortalLink) {
    this.written.push(link);
  }
  async remove(id: string) {
    this.written.push(id);
  }
}

const ask = (over: Partial<PortalLinkRequest> = {}): PortalLinkRequest => ({
  tenant: 'acme',
  scope: 'manage',
  lifetimeSeconds: 3600,
  ...over,
});

function book(start = Date.parse('2026-12-07T10:00:00Z')) {
  const clock = { now: start };
  const log = new ArrayLog();
  return { book: new PortalLinkBook(log, () => clock.now), log, clock };
}

describe('PortalLinkBook', () => {
  it('opens a minted link by its token, and never by a wrong secret or a bare id', async () => {
    const { book: b, log } = book();
    const { link, token } = await b.mint(ask({ user: 'bob@acme' }), 'tok_op');
    expect(log.written).toEqual([link]);
    expect(link.secretDigest).toMatch(/^sha256:/);
    expect(JSON.stringify(link)).not.toContain(parseLinkToken(token)?.secret);
    expect(b.open(token)?.id).toBe(link.id);
    const wrong = `${link.id}.${'A'.repeat(43)}`;
    expect(b.open(wrong)).toBeNull();
    expect(b.open(link.id)).toBeNull();
  });

  it('refuses a link once it expired, and lists it as expired', async () => {
    const { book: b, clock } = book();
    const { link, token } = await b.mint(ask({ lifetimeSeconds: 60 }), 'tok_op');
    clock.now += 60_000;
    expect(b.open(token)).toBeNull();
    expect(b.list({ state: 'active' })).toEqual([]);
    expect(b.list({ state: 'all' }).map((l) => [l.id, l.state])).toEqual([[link.id, 'expired']]);
  });

  it('refuses a revoked link, and an older record arriving later does not undo the revocation', async () => {
    const { book: b } = book();
    const { link, token } = await b.mint(ask(), 'tok_op');
    const revoked = await b.revoke(link.id, 'tok_op');
    expect(revoked?.revokedBy).toBe('tok_op');
    expect(b.open(token)).toBeNull();
    b.learn(link.id, link);
    expect(b.open(token)).toBeNull();
    expect(await b.revoke('pl_AAAAAAAAAAAAAAAAAAAA', 'tok_op')).toBeNull();
  });

  it('lists a tenant’s links newest first and removes long-ended ones', async () => {
    const { book: b, clock, log } = book();
    const first = await b.mint(ask(), 'tok_op');
    clock.now += 1000;
    const second = await b.mint(ask({ tenant: 'globex' }), 'tok_op');
    clock.now += 1000;
    const third = await b.mint(ask(), 'tok_op');
    expect(b.list({ tenant: 'acme', state: 'active' }).map((l) => l.id)).toEqual([
      third.link.id,
      first.link.id,
    ]);
    clock.now += 3600_000 + LINK_KEPT_AFTER_END_MS + 1;
    expect(await b.sweep()).toBe(3);
    expect(log.written.slice(-3).sort()).toEqual([first.link.id, second.link.id, third.link.id].sort());
    expect(b.list({ state: 'all' })).toEqual([]);
  });

  it('learns links other instances wrote, and their tombstones', async () => {
    const other = book();
    const minted = await other.book.mint(ask(), 'tok_op');
    const { book: b } = book();
    b.learn(minted.link.id, minted.link);
    expect(b.open(minted.token)?.tenant).toBe('acme');
    b.learn(minted.link.id, null);
    expect(b.open(minted.token)).toBeNull();
  });
});
