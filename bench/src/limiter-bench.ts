import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionSettings } from '@hookstream/contracts';
import { EventProducer } from '@hookstream/producer';
import { SampleReceiver } from '@hookstream/receiver';
import { benchSubscriberName, withBenchTopic } from './bench-topic.ts';
import { type PusherChild, spawnPusher } from './pusher-child.ts';

export interface LimiterBenchOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  /** The subscriber's declared rate, requests per second. */
  readonly rate: number;
  /** Backlog size: the run lasts about events / rate seconds. */
  readonly events: number;
  /** Pusher processes sharing the subscriber (more than one needs redisUrl). */
  readonly instances: number;
  readonly redisUrl?: string | undefined;
  readonly progress: (line: string) => void;
  /** Called with every arrival time (epoch ms, in order) before the result: for gap analysis. */
  readonly onArrivals?: (timesMs: readonly number[]) => void;
}

export interface LimiterBenchResult {
  readonly rate: number;
  readonly events: number;
  readonly instances: number;
  readonly clustered: boolean;
  readonly received: number;
  /** Most requests the endpoint saw in any sliding 1-second window. */
  readonly maxInAnySecond: number;
  /** (requests − 1) / (last − first arrival) / rate, percent: how much of the limit was used. */
  readonly usedPercent: number;
  readonly spanSeconds: number;
}

/**
 * A backlog to a subscriber limited to `rate`/s, delivered by `instances` pusher processes; the
 * receiver's arrival times say whether the limit held in every 1-second window and how much of it
 * was used. The backlog lands after every instance joined, so no start-up rebalance interferes.
 */
export async function runLimiterBench(options: LimiterBenchOptions): Promise<LimiterBenchResult> {
  const name = benchSubscriberName('limit');
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const receiver = new SampleReceiver({ secret, record: options.onArrivals !== undefined });
  const url = await receiver.listen(0);
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-bench-'));
  const pushers: PusherChild[] = [];
  try {
    return await withBenchTopic(options.connection.kafka, 4, [name], async (topic) => {
      try {
        for (let i = 0; i < options.instances; i++)
          pushers.push(
            await spawnPusher(
              {
                ...options,
                topic,
                dir,
                secretEnv: { HOOKSTREAM_SECRET_BENCH_LIMIT: secret },
                definition: {
                  name,
                  url: `${url}/`,
                  rate: { perSecond: options.rate, burst: 0 },
                  concurrency: 5,
                  start: 'earliest',
                  secret: { env: 'HOOKSTREAM_SECRET_BENCH_LIMIT' },
                  allowPrivateNetwork: true,
                },
              },
              i,
            ),
          );
        await publishBacklog(options, topic);
        options.progress(`limiter: waiting for ${options.events} deliveries at ${options.rate}/s…`);
        const deadline = performance.now() + (options.events / options.rate) * 1000 * 2 + 30_000;
        while (receiver.stats().accepted < options.events && performance.now() < deadline) await sleep(200);
      } finally {
        await Promise.all(pushers.map((p) => p.stop()));
      }
      const stats = receiver.stats();
      options.onArrivals?.(receiver.arrivals.map((a) => a.atMs));
      const spanSeconds = ((stats.lastAtMs ?? 0) - (stats.firstAtMs ?? 0)) / 1000;
      const used = spanSeconds > 0 ? (stats.received - 1) / spanSeconds / options.rate : 0;
      return {
        rate: options.rate,
        events: options.events,
        instances: options.instances,
        clustered: options.redisUrl !== undefined,
        received: stats.received,
        maxInAnySecond: stats.maxPerSecond,
        usedPercent: Math.round(used * 1000) / 10,
        spanSeconds: Math.round(spanSeconds * 100) / 100,
      };
    });
  } finally {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function publishBacklog(options: LimiterBenchOptions, topic: string): Promise<void> {
  const producer = await EventProducer.start({
    ...options.connection,
    source: '/bench',
    topic,
    dedupWindowMs: 0,
  });
  try {
    await Promise.all(
      Array.from({ length: options.events }, (_, i) =>
        producer.publishRequest({
          type: 'key.revoked',
          key: `ten-${i % 16}`,
          data: { tenant_id: `ten-${i % 16}`, key_id: `key-${i}` },
        }),
      ),
    );
  } finally {
    await producer.close();
  }
}
