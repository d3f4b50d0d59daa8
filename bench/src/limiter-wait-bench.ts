import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DestinationLimiter, RedisConnections } from '@hookstream/delivery';
import { summarizeLatencies } from './stats.ts';

export interface LimiterWaitOptions {
  /** Destinations, each limited to 100/s with concurrency 10, each on both simulated instances. */
  readonly destinations: number;
  /** Sends asked of every destination at once, each second. */
  readonly perBurst: number;
  readonly seconds: number;
  /** Redis shared by two simulated instances; undefined: each limiter in its process alone. */
  readonly redisUrl: string | undefined;
}

export interface LimiterWaitResult {
  readonly sends: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** This process's CPU (user + system) per send, µs: the limiter's bookkeeping, both instances. */
  readonly cpuUsPerSend: number;
}

const RATE = { perSecond: 100, burst: 0 };
const SEND_MS = 5;

/**
 * How long a send waits in the limiter, the way a fleet asks: every destination handed
 * `perBurst` records at once each second (a fetch's worth), alternately by two instances (two
 * RedisConnections in this process, as two processes would each have). At 100/s the ideal wait
 * of the k-th send of a burst is k × 10 ms; what is above it is the limiter's own cost.
 */
export async function runLimiterWaitBench(options: LimiterWaitOptions): Promise<LimiterWaitResult> {
  const redisUrl = options.redisUrl;
  const instances =
    redisUrl === undefined ? [] : [0, 1].map((i) => new RedisConnections(redisUrl, `bench-${i}`));
  const tag = randomBytes(4).toString('hex');
  const limiters = Array.from({ length: options.destinations }, (_, d) =>
    [0, 1].map((i) => {
      const redis = instances[i];
      return new DestinationLimiter({
        origin: `http://destination-${d}`,
        rate: RATE,
        concurrency: 10,
        ...(redis ? { cluster: { redis, clusterId: `bench-wait-${tag}-${d}` } } : {}),
      });
    }),
  );
  try {
    await Promise.all(limiters.flat().map((l) => l.ready()));
    const waits: number[] = [];
    const sends: Promise<unknown>[] = [];
    const cpu = process.cpuUsage();
    for (let second = 0; second < options.seconds; second++) {
      const burstAt = performance.now();
      for (let k = 0; k < options.perBurst; k++)
        for (const pair of limiters) {
          const asked = performance.now();
          const limiter = pair[k % 2] as DestinationLimiter;
          sends.push(
            limiter.schedule(async () => {
              waits.push(performance.now() - asked);
              await sleep(SEND_MS);
            }),
          );
        }
      await sleep(Math.max(0, 1000 - (performance.now() - burstAt)));
    }
    await Promise.all(sends);
    const used = process.cpuUsage(cpu);
    const wait = summarizeLatencies(waits);
    return {
      sends: wait.count,
      p50Ms: wait.p50Ms,
      p99Ms: wait.p99Ms,
      maxMs: wait.maxMs,
      cpuUsPerSend: Math.round((used.user + used.system) / Math.max(1, wait.count)),
    };
  } finally {
    await Promise.all(limiters.flat().map((l) => l.stop()));
    await Promise.all(instances.map((r) => r.close()));
  }
}
