import { describe, expect, it } from 'vitest';
import { type BearerGrant, MAX_TOKEN_LIFETIME_S, TokenCache } from '../src/token-cache.ts';

/** A token endpoint fake: each fetch waits until the test answers it. */
function endpoint() {
  const pending: { resolve: (g: BearerGrant) => void; reject: (e: Error) => void }[] = [];
  let issued = 0;
  return {
    pending,
    get fetches() {
      return issued;
    },
    fetch: () =>
      new Promise<BearerGrant>((resolve, reject) => {
        issued++;
        pending.push({ resolve, reject });
      }),
    answer(expiresInS: number | null = 3600) {
      const next = pending.shift();
      if (next === undefined) throw new Error('no fetch waits');
      next.resolve({ accessToken: `t${issued}`, expiresInS });
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('TokenCache', () => {
  it('shares one fetch among concurrent callers and reuses the token until shortly before expiry', async () => {
    let now = 1_000_000;
    const ep = endpoint();
    const cache = new TokenCache({ fetch: ep.fetch, now: () => now });
    const waiting = Promise.all([cache.token(), cache.token(), cache.token()]);
    await tick();
    expect(ep.fetches).toBe(1);
    ep.answer(3600);
    expect(await waiting).toEqual(['t1', 't1', 't1']);
    // Renewed a minute (the bounded margin) before the hour is up.
    now += 3600_000 - 60_001;
    expect(await cache.token()).toBe('t1');
    now += 2;
    const renewed = cache.token();
    await tick();
    expect(ep.fetches).toBe(2);
    ep.answer();
    expect(await renewed).toBe('t2');
  });

  it('renews short tokens a tenth of their life early, and bounds a huge expires_in', async () => {
    let now = 0;
    const ep = endpoint();
    const cache = new TokenCache({ fetch: ep.fetch, now: () => now });
    const first = cache.token();
    await tick();
    ep.answer(10);
    await first;
    now = 8_999;
    expect(await cache.token()).toBe('t1');
    now = 9_000;
    const second = cache.token();
    await tick();
    ep.answer(10 ** 12);
    expect(await second).toBe('t2');
    now += MAX_TOKEN_LIFETIME_S * 1000;
    void cache.token();
    await tick();
    expect(ep.fetches).toBe(3);
  });

  it('renews once after a 401, however many deliveries saw the rejected token', async () => {
    const ep = endpoint();
    const cache = new TokenCache({ fetch: ep.fetch });
    const first = cache.token();
    await tick();
    ep.answer();
    const rejected = await first;
    const renewals = Promise.all([cache.renew(rejected), cache.renew(rejected), cache.renew(rejected)]);
    await tick();
    expect(ep.fetches).toBe(2);
    ep.answer();
    expect(await renewals).toEqual(['t2', 't2', 't2']);
    // A late 401 for the old token takes the new one, without a fetch.
    expect(await cache.renew(rejected)).toBe('t2');
    expect(ep.fetches).toBe(2);
  });

  it('does not remember a failed fetch: the next caller fetches again', async () => {
    const ep = endpoint();
    const cache = new TokenCache({ fetch: ep.fetch });
    const both = [cache.token(), cache.token()];
    await tick();
    ep.pending.shift()?.reject(Object.assign(new Error('down'), { code: 'OAUTH2_TOKEN_SERVER_ERROR' }));
    for (const p of both) await expect(p).rejects.toMatchObject({ code: 'OAUTH2_TOKEN_SERVER_ERROR' });
    expect(ep.fetches).toBe(1);
    const again = cache.token();
    await tick();
    ep.answer();
    expect(await again).toBe('t2');
  });

  it('fetches every time when the endpoint says expires_in 0', async () => {
    const ep = endpoint();
    const cache = new TokenCache({ fetch: ep.fetch });
    for (let i = 1; i <= 2; i++) {
      const t = cache.token();
      await tick();
      ep.answer(0);
      expect(await t).toBe(`t${i}`);
    }
  });
});
