import { describe, expect, it } from 'vitest';
import { parseConsumerPerf, parseProducerPerf } from '../src/kafka-perf.ts';

describe('Kafka perf-test output', () => {
  it('reads the producer summary line', () => {
    const out = [
      '4001 records sent, 800.0 records/sec (0.78 MB/sec), 300.1 ms avg latency, 700.0 ms max latency.',
      '20000 records sent, 14295.9 records/sec (13.96 MB/sec), 569.06 ms avg latency, 797.00 ms max latency, 629 ms 50th, 781 ms 95th, 792 ms 99th, 796 ms 99.9th.',
    ].join('\n');
    expect(parseProducerPerf(out)).toEqual({
      records: 20000,
      recordsPerSec: 14295.9,
      mbPerSec: 13.96,
      avgLatencyMs: 569.06,
      p50Ms: 629,
      p99Ms: 792,
    });
  });

  it('reads the consumer CSV by column name', () => {
    const out = [
      'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
      '2026-11-30 04:07:16:170, 2026-11-30 04:07:17:359, 19.5313, 16.4266, 20000, 16820.8579, 723, 466, 41.9126, 42918.4549',
    ].join('\n');
    expect(parseConsumerPerf(out)).toEqual({ records: 20000, recordsPerSec: 16820.8579, mbPerSec: 16.4266 });
  });

  it('fails loudly on output it does not understand', () => {
    expect(() => parseProducerPerf('Exception in thread main')).toThrow(
      /unexpected ProducerPerformance output/,
    );
    expect(() => parseConsumerPerf('nothing')).toThrow(/unexpected ConsumerPerformance output/);
  });
});
