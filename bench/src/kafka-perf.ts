import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ProducerPerfResult {
  readonly records: number;
  readonly recordsPerSec: number;
  readonly mbPerSec: number;
  readonly avgLatencyMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface ConsumerPerfResult {
  readonly records: number;
  readonly recordsPerSec: number;
  readonly mbPerSec: number;
}

export interface KafkaPerfOptions {
  /** The folder holding Kafka's jars (`kafkaLibsDir` from @hookstream/stack). */
  readonly libsDir: string;
  readonly bootstrap: string;
  readonly topic: string;
  readonly records: number;
  readonly recordSize: number;
  readonly java?: string;
}

/**
 * Kafka's own `kafka-producer-perf-test` (the ProducerPerformance class from kafka-tools), with
 * acks=all like hookstream's ingress: the raw ceiling the broker offers on this machine.
 */
export async function kafkaProducerPerf(options: KafkaPerfOptions): Promise<ProducerPerfResult> {
  const { stdout } = await run(
    options.java ?? 'java',
    [
      '-cp',
      join(options.libsDir, '*'),
      'org.apache.kafka.tools.ProducerPerformance',
      '--topic',
      options.topic,
      '--num-records',
      String(options.records),
      '--record-size',
      String(options.recordSize),
      '--throughput',
      '-1',
      '--producer-props',
      `bootstrap.servers=${options.bootstrap}`,
      'acks=all',
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return parseProducerPerf(stdout);
}

/** Kafka's own `kafka-consumer-perf-test` (ConsumerPerformance) reading the same topic. */
export async function kafkaConsumerPerf(options: KafkaPerfOptions): Promise<ConsumerPerfResult> {
  const { stdout } = await run(
    options.java ?? 'java',
    [
      '-cp',
      join(options.libsDir, '*'),
      'org.apache.kafka.tools.ConsumerPerformance',
      '--bootstrap-server',
      options.bootstrap,
      '--topic',
      options.topic,
      '--messages',
      String(options.records),
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return parseConsumerPerf(stdout);
}

/** Reads the summary line: "N records sent, R records/sec (M MB/sec), A ms avg latency, …". */
export function parseProducerPerf(output: string): ProducerPerfResult {
  const line = output
    .trim()
    .split('\n')
    .reverse()
    .find((l) => /records sent/.test(l) && /50th/.test(l));
  const m = line?.match(
    /^(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency.*?(\d+) ms 50th.*?(\d+) ms 99th/,
  );
  if (!m) throw new Error(`unexpected ProducerPerformance output:\n${output.slice(-500)}`);
  return {
    records: Number(m[1]),
    recordsPerSec: Number(m[2]),
    mbPerSec: Number(m[3]),
    avgLatencyMs: Number(m[4]),
    p50Ms: Number(m[5]),
    p99Ms: Number(m[6]),
  };
}

/** Reads ConsumerPerformance's CSV: a header line naming the columns, then one data line. */
export function parseConsumerPerf(output: string): ConsumerPerfResult {
  const lines = output.trim().split('\n');
  const headerAt = lines.findIndex((l) => l.includes('nMsg.sec'));
  const header = lines[headerAt]?.split(',').map((c) => c.trim());
  const values = lines[headerAt + 1]?.split(',').map((c) => c.trim());
  if (!header || !values) throw new Error(`unexpected ConsumerPerformance output:\n${output.slice(-500)}`);
  const col = (name: string) => Number(values[header.indexOf(name)]);
  return {
    records: col('data.consumed.in.nMsg'),
    recordsPerSec: col('nMsg.sec'),
    mbPerSec: col('MB.sec'),
  };
}
