import { describe, expect, it } from 'vitest';
import { ReadinessCache } from '../src/readiness-cache.ts';

describe('ReadinessCache', () => {
  it('shares one running probe, reuses its answer for the ttl, then probes again', async () => {
    let now = 0;
    let probes = 0;
    const cache = new ReadinessCache(
      async () => {
        probes++;
        return { kafka: probes === 1 };
      },
      1000,
      () => now,
    );
    const first = await Promise.all([cache.check(), cache.check(), cache.check()]);
    expect(first).toEqual([{ kafka: true }, { kafka: true }, { kafka: true }]);
    now = 999;
    expect(await cache.check()).toEqual({ kafka: true });
    expect(probes).toBe(1);
    now = 1000;
    expect(await cache.check()).toEqual({ kafka: false });
    expect(probes).toBe(2);
  });

  it('reports a probe that throws as not ready', async () => {
    const cache = new ReadinessCache(async () => {
      throw new Error('boom');
    });
    expect(await cache.check()).toEqual({ probe: false });
  });
});
