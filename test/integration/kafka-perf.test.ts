import { kafkaConsumerPerf, kafkaProducerPerf } from '@hookstream/bench';
import { createKafka } from '@hookstream/kafka';
import { kafkaLibsDir, loadStackConfig } from '@hookstream/stack';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';

// Benchmarks are not tests: this only proves Kafka's own perf tools run against the local
// broker on a tiny load, so `hookstream bench` can put their figures beside ours.
describe("Kafka's perf-test baselines", () => {
  it('produce and consume a tiny load and report rates', async () => {
    const topic = uniqueName('perf-test');
    const admin = createKafka({ brokers: endpoints.brokers, clientId: 'perf-test', quiet: true }).admin();
    await admin.connect();
    await admin.ensureTopics([{ topic, partitions: 3, replicationFactor: 1 }]);
    await admin.disconnect();
    const options = {
      libsDir: kafkaLibsDir(loadStackConfig()),
      bootstrap: endpoints.brokers[0] ?? '',
      topic,
      records: 2000,
      recordSize: 1024,
    };
    const produced = await kafkaProducerPerf(options);
    expect(produced.records).toBe(2000);
    expect(produced.recordsPerSec).toBeGreaterThan(0);
    const consumed = await kafkaConsumerPerf(options);
    expect(consumed.records).toBe(2000);
    expect(consumed.recordsPerSec).toBeGreaterThan(0);
  });
});
