import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { DestinationLimiter, RedisBreakerStore, RedisConnections, SharedWindow } from '@hookstream/delivery';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';
import { redisUrl } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/** Shared-window tests of one limit at a time: no spacing, room to spare in concurrency. */
const NO_GAP = { gapMs: 0, toleranceMs: 0 };
const ROOMY = { concurrency: 100, leaseMs: 60_000, bucket: null };

/** The ms a refused claim says to wait; 0 for any other answer. */
const waitOf = (claim: Awaited<ReturnType<SharedWindow['claim']>>) => (claim.kind === 'wait' ? claim.ms : 0);

describe('DestinationLimiter clustered on Redis', () => {
  const limiters: DestinationLimiter[] = [];
  // One per simulated instance: a process shares its connections among its destinations.
  const connections: RedisConnections[] = [];
  const instance = (url = redisUrl) => {
    const redis = new RedisConnections(url);
    connections.push(redis);
    return redis;
  };
  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((l) => l.stop()));
    await Promise.all(connections.splice(0).map((c) => c.close()));
  });

  /** Two instances of one destination, and the id their keys in Redis carry. */
  async function pair(perSecond: number): Promise<[DestinationLimiter, DestinationLimiter, string]> {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const make = () =>
      new DestinationLimiter({
        origin: 'http://x',
        rate: { perSecond, burst: 0 },
        concurrency: 10,
        cluster: { redis: instance(), clusterId },
      });
    const both: [DestinationLimiter, DestinationLimiter] = [make(), make()];
    limiters.push(...both);
    await Promise.all(both.map((l) => l.ready()));
    return [...both, clusterId];
  }

  it('two instances share one rate', async () => {
    const [a, b] = await pair(20);
    const starts: number[] = [];
    const job = async () => {
      starts.push(Date.now());
    };
    await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).schedule(job)));
    starts.sort((x, y) => x - y);
    // 12 jobs at 20/s across both instances take at least 11 intervals of 50 ms.
    expect((starts.at(-1) ?? 0) - (starts[0] ?? 0)).toBeGreaterThanOrEqual(11 * 50 - 5);
  });

  it('an abort after the job started waits for its answer; one before it started never runs it', async () => {
    const [a] = await pair(1000);
    const controller = new AbortController();
    let release: () => void = () => undefined;
    const started = new Promise<void>((ran) => {
      release = ran;
    });
    const inFlight = a.schedule(async () => {
      release();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return 'answered';
    }, controller.signal);
    await started;
    controller.abort();
    // The request went out: its caller must see the answer, not take it for one never made.
    expect(await inFlight).toBe('answered');

    const early = new AbortController();
    early.abort();
    let ran = false;
    const never = await a.schedule(async () => {
      ran = true;
      return 'sent';
    }, early.signal);
    expect(never).toBeNull();
    expect(ran).toBe(false);
  });

  it('with a burst, two instances together send the burst at once, then keep to the rate', async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const make = () =>
      new DestinationLimiter({
        origin: 'http://x',
        rate: { perSecond: 20, burst: 5 },
        concurrency: 50,
        cluster: { redis: instance(), clusterId },
      });
    const [a, b] = [make(), make()];
    limiters.push(a, b);
    await Promise.all([a.ready(), b.ready()]);
    const starts: number[] = [];
    const job = async () => {
      starts.push(performance.now());
    };
    const before = performance.now();
    await Promise.all(Array.from({ length: 25 }, (_, i) => (i % 2 === 0 ? a : b).schedule(job)));
    starts.sort((x, y) => x - y);
    // The window alone allows rate + burst (25) in a second; the shared bucket holds the burst
    // (5) and then 20/s: the 25th start comes at least 19 intervals of 50 ms after the first.
    expect((starts.at(-1) ?? 0) - before).toBeGreaterThanOrEqual(19 * 50 - 5);
    expect((starts[4] ?? 0) - before).toBeLessThan(500);
  });

  it('a 429 pause on one instance holds the other back too', async () => {
    const [a, b, clusterId] = await pair(1000);
    const pausedAt = Date.now();
    a.pauseFor(1500);
    const raw = connections[0]?.failFast();
    if (raw === undefined) throw new Error('no connection');
    await connections[0]?.connect(raw);
    await waitFor(
      'the pause to reach Redis',
      async () => ((await raw.pttl(`hookstream:window:${clusterId}:paused`)) > 0 ? true : undefined),
      { intervalMs: 10 },
    );
    const ranAt = await b.schedule(async () => Date.now());
    // The other instance learns of the pause at its claim, from the pause's time left in Redis.
    expect(b.pausedUntil).toBeGreaterThan(pausedAt + 1000);
    expect(ranAt ?? 0).toBeGreaterThanOrEqual(b.pausedUntil);
  });

  it("the shared concurrency holds across instances, and a dead instance's send frees its slot at its lease", async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const settings = { limit: 100, windowMs: 1030 };
    const limits = { concurrency: 2, leaseMs: 1000, bucket: null };
    const a = new SharedWindow(instance(), clusterId, settings, NO_GAP, limits);
    const b = new SharedWindow(instance(), clusterId, settings, NO_GAP, limits);
    await Promise.all([a.ready(), b.ready()]);
    const first = await a.claim();
    // `second`'s lease starts at its claim, no earlier than this.
    const secondAsked = Date.now();
    const second = await b.claim();
    expect([first.kind, second.kind]).toEqual(['claimed', 'claimed']);
    expect(await a.claim()).toEqual({ kind: 'busy' });
    if (first.kind !== 'claimed') throw new Error('unreachable');
    await a.done(first.id);
    const third = await b.claim();
    expect(third.kind).toBe('claimed');
    // `second` and `third` are never ended, as if b died: their slots come back when the lease ends.
    expect(await a.claim()).toEqual({ kind: 'busy' });
    const after = await waitFor(
      'a slot after the lease',
      async () => {
        const claim = await a.claim();
        return claim.kind === 'claimed' ? Date.now() : undefined;
      },
      { intervalMs: 20 },
    );
    // Redis's clock is this machine's, in whole milliseconds.
    expect(after).toBeGreaterThanOrEqual(secondAsked + limits.leaseMs - 1);
  });

  it('the shared window lets limit sends through across instances, then tells the next to wait', async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const settings = { limit: 3, windowMs: 1030 };
    const a = new SharedWindow(instance(), clusterId, settings, NO_GAP, ROOMY);
    const b = new SharedWindow(instance(), clusterId, settings, NO_GAP, ROOMY);
    try {
      await Promise.all([a.ready(), b.ready()]);
      const claims = [await a.claim(), await b.claim(), await a.claim()];
      for (const claim of claims) expect(claim).toHaveProperty('id');
      const refused = await b.claim();
      expect(refused.kind).toBe('wait');
      const waitMs = waitOf(refused);
      expect(waitMs).toBeGreaterThan(0);
      expect(waitMs).toBeLessThanOrEqual(settings.windowMs);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a finished send holds the shared window for one second after its response, not the margin more', async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const settings = { limit: 1, windowMs: 1030 };
    const a = new SharedWindow(instance(), clusterId, settings, NO_GAP, ROOMY);
    try {
      await a.ready();
      const claim = await a.claim();
      if (claim.kind !== 'claimed') throw new Error('the first claim was refused');
      const inFlight = await a.claim();
      // In flight, the send counts for the whole window from its claim.
      expect(waitOf(inFlight)).toBeGreaterThan(1000);
      await a.done(claim.id);
      const finished = await a.claim();
      expect(waitOf(finished)).toBeGreaterThan(990);
      expect(waitOf(finished)).toBeLessThanOrEqual(1001);
    } finally {
      await a.stop();
    }
  });

  it('the shared window spaces claims across instances by the gap, up to the tolerance early', async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const settings = { limit: 100, windowMs: 1030 };
    const spacing = { gapMs: 50, toleranceMs: 2 };
    const a = new SharedWindow(instance(), clusterId, settings, spacing, ROOMY);
    const b = new SharedWindow(instance(), clusterId, settings, spacing, ROOMY);
    try {
      await Promise.all([a.ready(), b.ready()]);
      const before = performance.now();
      expect(await a.claim()).toHaveProperty('id');
      const early = await b.claim();
      // Redis's clock moved at most this far between the two claims (a loaded machine can take
      // tens of milliseconds over two round trips): the wait is the gap less that, less the tolerance.
      const elapsed = performance.now() - before;
      const waitMs = waitOf(early);
      expect(waitMs).toBeGreaterThanOrEqual(spacing.gapMs - spacing.toleranceMs - Math.ceil(elapsed));
      expect(waitMs).toBeLessThanOrEqual(spacing.gapMs - spacing.toleranceMs);
      // A timer can fire a millisecond before Redis's clock reaches the due time; the claim then
      // answers only the rest, never more than the tolerance.
      let wait = waitMs;
      let granted: Awaited<ReturnType<SharedWindow['claim']>> = early;
      for (let tries = 0; tries < 3 && granted.kind === 'wait'; tries++) {
        await new Promise((ok) => setTimeout(ok, wait));
        granted = await b.claim();
        if (granted.kind === 'wait') {
          expect(granted.ms).toBeLessThanOrEqual(spacing.toleranceMs);
          wait = granted.ms;
        }
      }
      expect(granted).toHaveProperty('id');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe("a process's Redis connections", () => {
  it('stay a handful however many destinations share limits and breakers through them', async () => {
    const name = `hookstream-test-${randomBytes(4).toString('hex')}`;
    const redis = new RedisConnections(redisUrl, name);
    const destinations = Array.from({ length: 40 }, (_, i) => ({
      limiter: new DestinationLimiter({
        origin: `http://d${i}`,
        rate: { perSecond: 50, burst: 0 },
        concurrency: 2,
        cluster: { redis, clusterId: `${name}-${i}` },
      }),
      breaker: new RedisBreakerStore(redis, `${name}-${i}`),
    }));
    try {
      await Promise.all(destinations.flatMap((d) => [d.limiter.ready(), d.breaker.ready()]));
      await Promise.all(destinations.map((d) => d.limiter.schedule(async () => d.breaker.read())));
      const clients = await redis.windows().client('LIST');
      const mine = String(clients)
        .split('\n')
        .filter((line) => line.includes(` name=${name} `));
      // One for the windows (limits and pauses), one for the breakers: two, not two per destination.
      expect(mine).toHaveLength(2);
    } finally {
      await Promise.all(destinations.map((d) => Promise.all([d.limiter.stop(), d.breaker.stop()])));
      await redis.close();
    }
  });
});

describe("the breakers' polls of their shared state", () => {
  it('go out as a few MGETs, each breaker reading its own state', async () => {
    const name = `hookstream-test-${randomBytes(4).toString('hex')}`;
    const redis = new RedisConnections(redisUrl, name);
    const stores = Array.from({ length: 300 }, (_, i) => new RedisBreakerStore(redis, `${name}-${i}`));
    const client = redis.failFast();
    const sent = { get: 0, mget: 0 };
    // Counted on the way to the real Redis, which answers them.
    const { get, mget } = client;
    client.get = ((...args: Parameters<typeof get>) => {
      sent.get++;
      return get.apply(client, args);
    }) as typeof get;
    client.mget = ((...args: Parameters<typeof mget>) => {
      sent.mget++;
      return mget.apply(client, args);
    }) as typeof mget;
    try {
      await Promise.all(stores.map((s) => s.ready()));
      const opened = [7, 150, 299];
      for (const i of opened) await stores[i]?.open({ openedAtMs: 1000 + i, failingSinceMs: i });
      const read = await Promise.all(stores.map((s) => s.read()));
      const expected = stores.map((_, i) =>
        opened.includes(i) ? { openedAtMs: 1000 + i, failingSinceMs: i } : null,
      );
      expect(read).toEqual(expected);
      // 300 keys: one MGET of BATCH_MAX_KEYS sent when it filled, one of the rest after the window.
      expect(sent).toEqual({ get: 0, mget: 2 });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await redis.close();
    }
  });
});

describe('DestinationLimiter on a Redis that requires a password', () => {
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill('SIGTERM');
  });

  it('reaches it with the whole URL (redis://:password@host:port), both instances sharing one rate', async () => {
    const port = await freePort();
    const password = randomBytes(12).toString('hex');
    server = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--requirepass',
        password,
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      {
        stdio: 'ignore',
      },
    );
    const url = `redis://:${password}@127.0.0.1:${port}/0`;
    const clusterId = `auth-${randomBytes(4).toString('hex')}`;
    const processes = [new RedisConnections(url), new RedisConnections(url)];
    await waitFor('the password-protected Redis to listen', () => canConnect(port));
    const [a, b] = processes.map(
      (redis) =>
        new DestinationLimiter({
          origin: 'http://x',
          rate: { perSecond: 20, burst: 0 },
          concurrency: 10,
          cluster: { redis, clusterId },
        }),
    ) as [DestinationLimiter, DestinationLimiter];
    try {
      await Promise.all([a.ready(), b.ready()]);
      const starts: number[] = [];
      const job = async () => {
        starts.push(Date.now());
      };
      await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).schedule(job)));
      starts.sort((x, y) => x - y);
      expect(starts).toHaveLength(6);
      // Shared through the protected Redis: 6 jobs at 20/s take at least 5 intervals of 50 ms.
      expect((starts.at(-1) ?? 0) - (starts[0] ?? 0)).toBeGreaterThanOrEqual(5 * 50 - 5);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await Promise.all(processes.map((p) => p.close()));
    }
  });
});

function canConnect(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(undefined));
  });
}
