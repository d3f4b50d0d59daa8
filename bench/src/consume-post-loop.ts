import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Semaphore } from '@hookstream/concurrency';
import type { ConnectionSettings } from '@hookstream/contracts';
import { createKafka, createRawConsumer } from '@hookstream/kafka';
import { Pool } from 'undici';
import { deleteBenchGroups } from './bench-topic.ts';
import { cpuWindow, type DrainMeasure } from './tracing-cost.ts';

/**
 * The fair baseline for the pusher: what anyone would write first to get a topic to an endpoint.
 * A plain consumer group member takes fetched batches, `partitions` at once, POSTs each record's
 * value as it is (no decode, no signature, no ledger, no retry) with at most `concurrency` requests
 * in flight over one undici pool, and commits a batch only once every POST of it was answered
 * (kafkajs's auto-resolve: commit after success). The pusher's ratio to it is what its features
 * cost; its ratio to the plain undici loop is what consuming Kafka costs as well.
 */
export async function consumeAndPostLoop(
  options: {
    readonly connection: ConnectionSettings;
    readonly events: number;
    readonly concurrency: number;
    readonly partitions: number;
  },
  topic: string,
  url: string,
): Promise<DrainMeasure> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: options.concurrency });
  const kafka = createKafka({ ...options.connection.kafka, clientId: 'hookstream-bench-loop', quiet: true });
  const groupId = `hookstream.bench.loop.${randomBytes(3).toString('hex')}`;
  const consumer = createRawConsumer(kafka, { groupId, maxWaitTimeInMs: 100 });
  const slots = new Semaphore(options.concurrency);
  const headers = { 'content-type': 'application/octet-stream' };
  let posted = 0;
  let window: ReturnType<typeof cpuWindow> | null = null;
  try {
    await consumer.connect();
    await consumer.subscribe([topic], { fromBeginning: true });
    await consumer.runBatches(
      async (records) => {
        window ??= cpuWindow();
        await Promise.all(
          records.map(async (record) => {
            await slots.acquire();
            try {
              const res = await pool.request({
                method: 'POST',
                path: target.pathname,
                headers,
                body: record.value ?? Buffer.alloc(0),
              });
              await res.body.dump();
              if (res.statusCode >= 300) throw new Error(`the endpoint answered ${res.statusCode}`);
              posted++;
            } finally {
              slots.release();
            }
          }),
        );
      },
      { partitions: options.partitions },
    );
    while (posted < options.events) await sleep(5);
    return { deliveries: posted, ...(window ?? cpuWindow()).end(), inFlight: options.concurrency };
  } finally {
    await consumer.disconnect();
    await pool.close();
    await deleteBenchGroups(options.connection.kafka, [groupId]);
  }
}
