import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, createRawConsumer, createRawProducer } from '@hookstream/kafka';
import { KafkaCluster, loadStackConfig, silentReporter } from '@hookstream/stack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePortRange } from '../support/ports.ts';
import { waitFor } from '../support/wait.ts';

// The three-broker cluster replication fault tests stand on: replication 3, min in-sync 2.
describe('three-node Kafka cluster', () => {
  let cluster: KafkaCluster;
  let stateDir: string;

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'hookstream-cluster-'));
    const config = loadStackConfig({ ...process.env, HOOKSTREAM_STATE_DIR: stateDir });
    cluster = new KafkaCluster({
      config,
      size: 3,
      basePort: await freePortRange(6),
      minInSyncReplicas: 2,
      report: silentReporter,
    });
    await cluster.start();
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop(undefined, true);
    await rm(stateDir, { recursive: true, force: true });
  });

  // Failover (fencing the dead broker, moving leaders and the group coordinator) takes tens of
  // seconds on a loaded 2-core machine.
  it('keeps every acknowledged record when one broker is killed', { timeout: 240_000 }, async () => {
    const kafka = createKafka({ brokers: cluster.brokers, clientId: 'cluster-test', quiet: true });
    const admin = kafka.admin();
    await admin.connect();
    await admin.ensureTopics([{ topic: 'replicated', partitions: 3, replicationFactor: 3 }]);
    const partitions = await admin.topicPartitions('replicated');
    expect(partitions?.every((p) => p.replicas.length === 3)).toBe(true);

    const producer = createRawProducer(kafka);
    await producer.connect();
    const send = (from: number) =>
      producer.send({
        topic: 'replicated',
        acks: -1,
        messages: Array.from({ length: 100 }, (_, i) => ({ key: `k${from + i}`, value: String(from + i) })),
      });
    await send(0);
    await cluster.stop(['kafka-2'], true);
    // The controller fences the dead broker after its session times out, then moves leadership.
    await waitFor(
      'every partition to have a live leader and two in-sync replicas',
      async () => {
        try {
          const settled = (await admin.topicPartitions('replicated'))?.every(
            (p) => p.leader !== 2 && p.leader >= 0 && p.isr.length === 2,
          );
          return settled ? true : undefined;
        } catch {
          return undefined; // "in the middle of a leadership election"
        }
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    // With one of three down, min.insync.replicas=2 still accepts acks=all writes.
    await waitFor(
      'a write to succeed with one broker down',
      async () => {
        try {
          await send(100);
          return true;
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    await producer.disconnect();
    await admin.disconnect();

    // Read everything back: every value that was acknowledged must be there.
    const seen = new Set<string>();
    const consumer = createRawConsumer(kafka, { groupId: 'cluster-test-reader', maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe(['replicated'], { fromBeginning: true });
    await consumer.run(async ({ value }) => void seen.add(value?.toString() ?? ''));
    try {
      await waitFor(
        'all 200 acknowledged records to be readable',
        async () => (seen.size >= 200 ? true : undefined),
        {
          timeoutMs: 120_000,
        },
      ).catch((err: Error) => {
        throw new Error(`${err.message} (read ${seen.size} distinct values)`);
      });
    } finally {
      await consumer.disconnect();
    }
    for (let i = 0; i < 200; i++) expect(seen.has(String(i))).toBe(true);
  });
});
