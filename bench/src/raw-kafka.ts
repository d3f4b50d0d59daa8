import type { KafkaSettings } from '@hookstream/contracts';
import { createKafka, createRawProducer } from '@hookstream/kafka';
import { kibValue } from './payload.ts';
import { type BenchRow, summarize } from './stats.ts';
import { cpuWindow } from './tracing-cost.ts';

/**
 * The baseline: kafkajs `sendBatch` of 1 KiB records with acks=all, `loops` batches in flight,
 * straight from this process to the broker, no HTTP, no validation, no Avro. With
 * `withHeaders`, each record also carries headers shaped like the ingress's seven CloudEvents
 * headers: kafkajs spends about as long encoding those as the rest of the record, so this
 * variant isolates what HTTP, validation and Avro add.
 */
export async function rawKafkaBench(
  settings: KafkaSettings,
  topic: string,
  events: number,
  batchSize: number,
  loops: number,
  deadlineMs: number,
  withHeaders: boolean,
): Promise<BenchRow> {
  const producer = createRawProducer(
    createKafka({ ...settings, clientId: 'hookstream-bench-raw', quiet: true }),
  );
  await producer.connect();
  const value = kibValue();
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  const started = performance.now();
  // The benchmark's process does nothing else meanwhile: its CPU is the producer's.
  const window = cpuWindow();
  let cpuMicros: number;
  try {
    await Promise.all(
      Array.from({ length: loops }, async () => {
        while (sent < events && performance.now() - started < deadlineMs) {
          const n = Math.min(batchSize, events - sent);
          sent += n;
          const messages = Array.from({ length: n }, (_, i) => ({
            key: `shp-${(sent + i) % 1000}`,
            value,
            ...(withHeaders ? { headers: ceLikeHeaders(sent + i) } : {}),
          }));
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
    cpuMicros = window.end().cpuMicros;
    await producer.disconnect();
  }
  const row = summarize(
    withHeaders ? 'raw kafkajs sendBatch, CloudEvents headers' : 'raw kafkajs sendBatch',
    loops,
    batchSize,
    latencies,
    sent - errors,
    errors,
    performance.now() - started,
  );
  return row.events === 0
    ? row
    : { ...row, cpuMicrosPerEvent: Math.round((cpuMicros / row.events) * 10) / 10 };
}

function ceLikeHeaders(i: number): Record<string, string> {
  return {
    ce_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    ce_type: 'shipment.updated',
    ce_source: '/ingress',
    ce_time: '2026-11-30T10:00:00.000Z',
    ce_specversion: '1.0',
    'content-type': 'application/avro',
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  };
}
