import { describe, expect, it } from 'vitest';
import {
  createInFlightCap,
  DestinationLimiter,
  limiterMode,
  spacingGapMs,
} from '../src/destination-limiter.ts';
import { RedisConnections } from '../src/redis-connections.ts';
import { MAX_RETRY_AFTER_MS } from '../src/retry-after.ts';

describe('spacingGapMs', () => {
  it('spaces requests by the rate, with 1 % slack, up to 200/s without burst', () => {
    expect(spacingGapMs({ perSecond: 5, burst: 0 })).toBeCloseTo(202);
    expect(spacingGapMs({ perSecond: 100, burst: 0 })).toBeCloseTo(10.1);
    expect(spacingGapMs({ perSecond: 200, burst: 0 })).toBeCloseTo(5.05);
  });

  it('does not space faster rates, nor any with a burst', () => {
    expect(spacingGapMs({ perSecond: 201, burst: 0 })).toBe(0);
    expect(spacingGapMs({ perSecond: 5, burst: 2 })).toBe(0);
  });
});

describe('limiterMode', () => {
  it('spaces up to 200/s without burst, uses a token bucket otherwise, and the shared window when clustered', () => {
    const cluster = { redis: new RedisConnections('redis://127.0.0.1:6379'), clusterId: 'x' };
    expect(limiterMode({ rate: { perSecond: 200, burst: 0 } })).toBe('spaced');
    expect(limiterMode({ rate: { perSecond: 201, burst: 0 } })).toBe('bucket');
    expect(limiterMode({ rate: { perSecond: 5, burst: 2 } })).toBe('bucket');
    expect(limiterMode({ rate: { perSecond: 5000, burst: 0 }, cluster })).toBe('clustered');
  });
});

describe('DestinationLimiter', () => {
  it('with a token bucket keeps the rate and the concurrency too', async () => {
    // Read before the bucket exists: its tokens accrue from its construction, and a pause of a
    // loaded machine between the two readings would otherwise shorten the schedule seen here.
    const before = performance.now();
    const limiter = new DestinationLimiter({
      origin: 'http://l',
      rate: { perSecond: 400, burst: 0 },
      concurrency: 3,
    });
    const starts: number[] = [];
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 200 }, () =>
        limiter.schedule(async () => {
          starts.push(performance.now());
          peak = Math.max(peak, ++running);
          await new Promise((ok) => setTimeout(ok, 2));
          running--;
        }),
      ),
    );
    await limiter.stop();
    expect(peak).toBeLessThanOrEqual(3);
    starts.sort((a, b) => a - b);
    // 200 requests at 400/s from a bucket of one: at least 199 intervals of 2.5 ms, from a
    // reading before the bucket was made (not the first's own start, which may be late).
    expect((starts.at(-1) ?? 0) - before).toBeGreaterThanOrEqual(199 * 2.5 - 2);
  });

  it('keeps requests apart by the rate and within the concurrency', async () => {
    const limiter = new DestinationLimiter({
      origin: 'http://a',
      rate: { perSecond: 20, burst: 0 },
      concurrency: 2,
    });
    const starts: number[] = [];
    let running = 0;
    let peak = 0;
    const before = performance.now();
    await Promise.all(
      Array.from({ length: 6 }, () =>
        limiter.schedule(async () => {
          starts.push(performance.now());
          peak = Math.max(peak, ++running);
          await new Promise((ok) => setImmediate(ok));
          running--;
        }),
      ),
    );
    await limiter.stop();
    // Starts follow a schedule that begins no earlier than \`before\`: the k-th job never starts
    // before k × 50 ms from it. Measured from the first job's own start instead, a first job
    // started late (a busy event loop) made the later ones look early. 2 ms: timers fire against
    // the event loop's cached clock, a little early at times.
    for (const [k, s] of starts.entries()) expect(s - before).toBeGreaterThanOrEqual(k * 50 - 2);
    expect(peak).toBeLessThanOrEqual(2);
  });

  it('holds the whole destination back while paused, then carries on', async () => {
    const limiter = new DestinationLimiter({
      origin: 'http://b',
      rate: { perSecond: 1000, burst: 0 },
      concurrency: 5,
    });
    // The pause's own end, not a clock reading taken after pauseFor: a loaded machine can stall
    // between the two and make the wait look shorter than it was.
    let pausedUntil = 0;
    await limiter.schedule(async () => {
      limiter.pauseFor(300);
      pausedUntil = limiter.pausedUntil;
    });
    const ran = await Promise.all(
      [1, 2, 3].map((n) => limiter.schedule(async () => ({ n, at: Date.now() }))),
    );
    await limiter.stop();
    for (const r of ran) expect(r?.at).toBeGreaterThanOrEqual(pausedUntil);
    expect(ran.map((r) => r?.n)).toEqual([1, 2, 3]);
  });

  it('spaced: a job waiting its turn when a 429 pauses the destination does not send into the pause', async () => {
    const limiter = new DestinationLimiter({
      origin: 'http://spaced-pause',
      rate: { perSecond: 20, burst: 0 },
      concurrency: 3,
    });
    let pausedUntil = 0;
    const starts: number[] = [];
    await Promise.all(
      [0, 1, 2].map((n) =>
        limiter.schedule(async () => {
          starts.push(Date.now());
          if (n === 0) {
            limiter.pauseFor(300);
            pausedUntil = limiter.pausedUntil;
          }
        }),
      ),
    );
    await limiter.stop();
    expect(starts).toHaveLength(3);
    expect(pausedUntil).toBeGreaterThan(0);
    // The second and third were spaced 50 ms behind the first, inside the pause: they wait it out
    // (measured against the pause's end, which no stall of the machine can move).
    for (const at of starts.slice(1)) expect(at).toBeGreaterThanOrEqual(pausedUntil);
  });

  it('a pause from outside (a 429 of year 9999, a pause read from Redis) holds at most MAX_RETRY_AFTER_MS', async () => {
    const limiter = new DestinationLimiter({
      origin: 'http://c',
      rate: { perSecond: 10, burst: 0 },
      concurrency: 1,
    });
    const before = Date.now();
    limiter.pauseFor(Date.parse('9999-12-31T23:59:59Z') - before);
    expect(limiter.pausedUntil).toBeGreaterThanOrEqual(before + MAX_RETRY_AFTER_MS);
    expect(limiter.pausedUntil).toBeLessThanOrEqual(Date.now() + MAX_RETRY_AFTER_MS);
    await limiter.stop();
  });

  it('gives up on a queued job when its signal aborts, without running it', async () => {
    const limiter = new DestinationLimiter({
      origin: 'http://e',
      rate: { perSecond: 2, burst: 0 },
      concurrency: 1,
    });
    const controller = new AbortController();
    let ran = 0;
    await limiter.schedule(async () => ran++);
    const queued = limiter.schedule(async () => ran++, controller.signal);
    controller.abort();
    expect(await queued).toBeNull();
    await limiter.stop();
    expect(ran).toBe(1);
  });

  it('shares the process-wide in-flight cap across destinations', async () => {
    const cap = createInFlightCap(1);
    const a = new DestinationLimiter({
      origin: 'http://c',
      rate: { perSecond: 1000, burst: 0 },
      concurrency: 5,
      inFlightCap: cap.share('c'),
    });
    const b = new DestinationLimiter({
      origin: 'http://d',
      rate: { perSecond: 1000, burst: 0 },
      concurrency: 5,
      inFlightCap: cap.share('d'),
    });
    let running = 0;
    let peak = 0;
    const job = async () => {
      peak = Math.max(peak, ++running);
      await new Promise((ok) => setTimeout(ok, 5));
      running--;
    };
    await Promise.all([a.schedule(job), b.schedule(job), a.schedule(job), b.schedule(job)]);
    await Promise.all([a.stop(), b.stop()]);
    expect(peak).toBe(1);
  });
});
