import { createKafka } from '@hookstream/kafka';
import { kibValue } from './payload.ts';
import { type BenchRow, summarize } from './stats.ts';

/**
 * The baseline: kafkajs `sendBatch` of 1 KiB records with acks=all, `loops` batches in flight,
 * straight from this process to the broker, no HTTP, no validation, no Avro.
 */
export async function rawKafkaBench(
  brokers: readonly string[],
  topic: string,
  events: number,
  batchSize: number,
  loops: number,
  deadlineMs: number,
): Promise<BenchRow> {
  const producer = createKafka({ brokers, clientId: 'hookstream-bench-raw', quiet: true }).producer({
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  const value = kibValue();
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: loops }, async () => {
        while (sent < events && performance.now() - started < deadlineMs) {
          const n = Math.min(batchSize, events - sent);
          sent += n;
          const messages = Array.from({ length: n }, (_, i) => ({ key: `shp-${(sent + i) % 1000}`, value }));
          const t0 = performance.now();
          try {
            await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages }] });
            latencies.push(performance.now() - t0);
          } catch {
            errors += n;
          }
        }
      }),
    );
  } finally {
    await producer.disconnect();
  }
  return summarize(
    'raw kafkajs sendBatch',
    loops,
    batchSize,
    latencies,
    sent - errors,
    errors,
    performance.now() - started,
  );
}
