import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { DestinationLimiter, RedisBreakerStore, RedisConnections, SharedWindow } from '@hookstream/delivery';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';
import { redisUrl } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

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

  async function pair(perSecond: number): Promise<[DestinationLimiter, DestinationLimiter]> {
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
    return both;
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

  it('a limiter whose client Redis forgot, or whose settings expired, recovers and runs the job', async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const redis = instance();
    const limiter = new DestinationLimiter({
      origin: 'http://x',
      rate: { perSecond: 1000, burst: 0 },
      concurrency: 10,
      cluster: { redis, clusterId },
    });
    limiters.push(limiter);
    await limiter.ready();
    expect(await limiter.schedule(async () => 'first')).toBe('first');
    // What another instance's tick does to a client it found unresponsive, and what the keys'
    // expiry does to an idle limiter: Redis 7 answers the next script with `ERR UNKNOWN_CLIENT`,
    // then `ERR SETTINGS_KEY_NOT_FOUND`.
    const keys = `b_hookstream:${clusterId}`;
    const raw = redis.failFast();
    await redis.connect(raw);
    await raw.del(`${keys}_client_last_seen`);
    expect(await limiter.schedule(async () => 'after the client was forgotten')).toBe(
      'after the client was forgotten',
    );
    await raw.del(`${keys}_settings`);
    expect(await limiter.schedule(async () => 'after the settings expired')).toBe(
      'after the settings expired',
    );
  });

  it('a 429 pause on one instance holds the other back too', async () => {
    const [a, b] = await pair(1000);
    a.pauseFor(1500);
    await waitFor(
      'the pause to reach the other instance',
      async () => (b.pausedUntil > Date.now() ? true : undefined),
      {
        timeoutMs: 5000,
        intervalMs: 20,
      },
    );
    const pausedUntil = b.pausedUntil;
    const ranAt = await b.schedule(async () => Date.now());
    expect(ranAt ?? 0).toBeGreaterThanOrEqual(pausedUntil);
  });

  it('the shared window lets limit sends through across instances, then tells the next to wait', async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const settings = { limit: 3, windowMs: 1030 };
    const a = new SharedWindow(instance(), clusterId, settings);
    const b = new SharedWindow(instance(), clusterId, settings);
    try {
      await Promise.all([a.ready(), b.ready()]);
      const claims = [await a.claim(), await b.claim(), await a.claim()];
      for (const claim of claims) expect(claim).toHaveProperty('id');
      const refused = await b.claim();
      expect(refused).toHaveProperty('waitMs');
      const waitMs = 'waitMs' in refused ? refused.waitMs : 0;
      expect(waitMs).toBeGreaterThan(0);
      expect(waitMs).toBeLessThanOrEqual(settings.windowMs);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a finished send holds the shared window for one second after its response, not the margin more', async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const settings = { limit: 1, windowMs: 1030 };
    const a = new SharedWindow(instance(), clusterId, settings);
    try {
      await a.ready();
      const claim = await a.claim();
      if (!('id' in claim)) throw new Error('the first claim was refused');
      const inFlight = await a.claim();
      // In flight, the send counts for the whole window from its claim.
      expect('waitMs' in inFlight ? inFlight.waitMs : 0).toBeGreaterThan(1000);
      await a.done(claim.id);
      const finished = await a.claim();
      expect('waitMs' in finished ? finished.waitMs : 0).toBeGreaterThan(990);
      expect('waitMs' in finished ? finished.waitMs : 0).toBeLessThanOrEqual(1001);
    } finally {
      await a.stop();
    }
  });

  it('the shared window spaces claims across instances by the gap, up to the tolerance early', async () => {
    const clusterId = `test-${randomBytes(4).toString('hex')}`;
    const settings = { limit: 100, windowMs: 1030 };
    const spacing = { gapMs: 50, toleranceMs: 2 };
    const a = new SharedWindow(instance(), clusterId, settings, spacing);
    const b = new SharedWindow(instance(), clusterId, settings, spacing);
    try {
      await Promise.all([a.ready(), b.ready()]);
      const before = performance.now();
      expect(await a.claim()).toHaveProperty('id');
      const early = await b.claim();
      // Redis's clock moved at most this far between the two claims (a loaded machine can take
      // tens of milliseconds over two round trips): the wait is the gap less that, less the tolerance.
      const elapsed = performance.now() - before;
      const waitMs = 'waitMs' in early ? early.waitMs : 0;
      expect(waitMs).toBeGreaterThanOrEqual(spacing.gapMs - spacing.toleranceMs - Math.ceil(elapsed));
      expect(waitMs).toBeLessThanOrEqual(spacing.gapMs - spacing.toleranceMs);
      // A timer can fire a millisecond before Redis's clock reaches the due time; the claim then
      // answers only the rest, never more than the tolerance.
      let wait = waitMs;
      let granted: Awaited<ReturnType<SharedWindow['claim']>> = { waitMs };
      for (let tries = 0; tries < 3 && 'waitMs' in granted; tries++) {
        await new Promise((ok) => setTimeout(ok, wait));
        granted = await b.claim();
        if ('waitMs' in granted) {
          expect(granted.waitMs).toBeLessThanOrEqual(spacing.toleranceMs);
          wait = granted.waitMs;
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
      // Windows, breakers, and Bottleneck's commands and pub/sub: four, not four per destination.
      expect(mine).toHaveLength(4);
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
