import { withBenchTopic } from './bench-topic.ts';
import {
  type ConsumerPerfResult,
  kafkaConsumerPerf,
  kafkaProducerPerf,
  type ProducerPerfResult,
} from './kafka-perf.ts';
import { defineSection } from './report-section.ts';

export interface KafkaPerfSectionResult {
  readonly producer: ProducerPerfResult;
  readonly consumer: ConsumerPerfResult;
}

/** Kafka's own perf-test classes: the broker's ceiling on this machine, run first so others compare. */
export const kafkaPerfSection = defineSection<KafkaPerfSectionResult>({
  id: 'kafka-perf',
  title: "Kafka's own perf tests (baseline)",
  method:
    '`kafka-producer-perf-test` and `kafka-consumer-perf-test` (the ProducerPerformance and ' +
    'ConsumerPerformance classes from the kafka-tools jars, on Java) write and read 1 KiB records ' +
    'with acks=all on a 6-partition topic of the same broker: the ceiling the broker offers on this ' +
    'machine, without Node, HTTP or Avro. Producer latency is per record (the Java client batches).',
  async run(ctx) {
    return withBenchTopic(ctx.connection.kafka, 6, [], async (topic) => {
      const options = {
        libsDir: ctx.kafkaLibsDir,
        bootstrap: ctx.connection.kafka.brokers[0] ?? '',
        topic,
        records: ctx.scale.perfRecords,
        recordSize: 1024,
      };
      ctx.progress(`kafka-producer-perf-test: ${options.records} records of 1 KiB…`);
      const producer = await kafkaProducerPerf(options);
      ctx.progress('kafka-consumer-perf-test: reading them back…');
      const consumer = await kafkaConsumerPerf(options);
      return { producer, consumer };
    });
  },
  figures: ({ producer, consumer }) => [
    {
      id: 'kafka.producer.rate',
      label: 'kafka-producer-perf-test',
      value: producer.recordsPerSec,
      unit: 'records/s',
      baselines: [],
    },
    {
      id: 'kafka.producer.p50',
      label: 'kafka-producer-perf-test p50 latency',
      value: producer.p50Ms,
      unit: 'ms',
      baselines: [],
    },
    {
      id: 'kafka.producer.p99',
      label: 'kafka-producer-perf-test p99 latency',
      value: producer.p99Ms,
      unit: 'ms',
      baselines: [],
    },
    {
      id: 'kafka.consumer.rate',
      label: 'kafka-consumer-perf-test',
      value: consumer.recordsPerSec,
      unit: 'records/s',
      baselines: [],
    },
  ],
  chart: ({ producer, consumer }) => ({
    latency: [
      { label: 'kafka-producer-perf-test (per record)', p50Ms: producer.p50Ms, p99Ms: producer.p99Ms },
    ],
    throughput: [
      { label: 'kafka-producer-perf-test', perSecond: producer.recordsPerSec, raw: true },
      { label: 'kafka-consumer-perf-test', perSecond: consumer.recordsPerSec, raw: true },
    ],
  }),
});
