import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka } from '@hookstream/kafka';
import { SampleReceiver } from '@hookstream/receiver';
import { KafkaCluster, loadStackConfig, silentReporter } from '@hookstream/stack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IngressProcess, spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { freePortRange } from '../support/ports.ts';
import { ContinuousPublisher } from '../support/publisher.ts';
import { expectEveryStoredEventDelivered } from '../support/stored-events.ts';
import { SupervisedPusher } from '../support/supervised-pusher.ts';
import { waitFor } from '../support/wait.ts';

// Scenario: the whole pipeline (ingress → Kafka → pusher → receiver) on a three-broker cluster
// (replication 3, min in-sync 2), one broker SIGKILLed under load. acks=all with two replicas in
// sync keeps every acknowledged write: each event that got a 202 reaches the subscriber.
// kafka-cluster.test.ts checks the same at the producer level.
const topic = uniqueName('scenario-cluster');

describe('scenario: one of three brokers killed under load through the pipeline', () => {
  let cluster: KafkaCluster;
  let stateDir: string;
  let ingress: IngressProcess;
  let pusher: SupervisedPusher;
  const receiver = new SampleReceiver({ record: true });

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'hookstream-scenario-cluster-'));
    const config = loadStackConfig({ ...process.env, HOOKSTREAM_STATE_DIR: stateDir });
    cluster = new KafkaCluster({
      config,
      size: 3,
      basePort: await freePortRange(6),
      minInSyncReplicas: 2,
      report: silentReporter,
    });
    await cluster.start();
    await receiver.listen();
    ingress = await spawnIngressCli(topic, {
      KAFKA_BROKERS: cluster.brokers.join(','),
      INGRESS_TOPIC_REPLICATION: '3',
      INGRESS_ACK_TIMEOUT_MS: '5000',
      INGRESS_RETRY_AFTER_S: '1',
      INGRESS_LOG_LEVEL: 'warn',
    });
  }, 240_000);
  afterAll(async () => {
    await pusher?.stop();
    await ingress?.stop();
    await receiver.close();
    await cluster?.stop(undefined, true);
    await rm(stateDir, { recursive: true, force: true });
  }, 120_000);

  it('nothing that got a 202 is lost', async () => {
    const name = uniqueName('cluster-sub');
    pusher = new SupervisedPusher({
      brokers: cluster.brokers,
      topic,
      definition: { name, url: receiver.url },
      replicationFactor: 3,
    });
    await pusher.start();
    const publisher = new ContinuousPublisher(ingress.url, {
      maxEvents: 1500,
      gapMs: 40,
      concurrency: 3,
      idPrefix: uniqueName('cluster'),
      event: (i, id) => ({
        id,
        type: 'shipment.updated',
        key: `shp-${i % 13}`,
        data: { shipment: { id: `shp-${i % 13}`, status: `s${i}` } },
      }),
    });
    publisher.start();
    await waitFor('deliveries under way', async () => (receiver.stats().accepted >= 30 ? true : undefined), {
      timeoutMs: 30_000,
    });

    await cluster.stop(['kafka-2'], true);
    const killedAt = Date.now();
    // Under load until the cluster has acknowledged a good number of writes without kafka-2.
    await waitFor(
      'writes acknowledged after the kill',
      async () => (publisher.accepted.filter((a) => a.sentAt >= killedAt).length >= 30 ? true : undefined),
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const answers = await publisher.stop();
    const accepted = answers.filter((a) => a.status === 202).map((a) => a.id);
    await waitFor(
      'every 202 delivered',
      async () => (accepted.every((id) => receiver.hasAccepted(name, id)) ? true : undefined),
      { timeoutMs: 120_000, intervalMs: 500 },
    ).catch((err: Error) => {
      const missing = accepted.filter((id) => !receiver.hasAccepted(name, id));
      throw new Error(
        `${err.message}: ${missing.length} of ${accepted.length} missing, e.g. ${missing.slice(0, 5).join(' ')}`,
      );
    });
    const deliveredAt = Date.now();

    // Failover may refuse some requests (503, retry later); nothing else.
    for (const a of answers) expect([202, 503], `${a.id}: ${a.code}`).toContain(a.status);
    const admin = createKafka({
      brokers: cluster.brokers,
      clientId: 'scenario-cluster',
      quiet: true,
    }).admin();
    await admin.connect();
    let writtenTwice = 0;
    try {
      const partitions = await admin.topicPartitions(topic);
      expect(partitions?.every((p) => p.replicas.length === 3)).toBe(true);
      writtenTwice = await expectEveryStoredEventDelivered({
        admin,
        brokers: cluster.brokers,
        topic,
        subscriber: name,
        receiver,
        timeoutMs: 60_000,
      });
    } finally {
      await admin.disconnect();
    }
    const stats = receiver.stats();
    expect(stats.received).toBe(stats.accepted + stats.duplicates);
    // A crash kafkajs restarts from rejoins as a new member; the old one, left in the group when
    // its coordinator was the broker killed, is taken out rather than waited out (its session).
    // A restart that crashed again before it joined left no member of its own to take out.
    const crashes = pusher.logs.filter((l) => l.message === 'consumer crashed' && l.fields.restart === true);
    const evicted = () => pusher.logs.filter((l) => l.message === 'crashed member taken out of the group');
    await waitFor('the crashed member to have been taken out', async () =>
      crashes.length === 0 || evicted().length > 0 ? true : undefined,
    );
    expect(
      evicted()
        .map((l) => l.fields.outcome)
        .filter((o) => o !== 'left' && o !== 'gone'),
    ).toEqual([]);
    process.stdout.write(
      `broker-loss scenario: ${answers.length} requests, ${accepted.length} answered 202, ${answers.length - accepted.length} 503; ${stats.accepted} delivered, ${stats.duplicates} deduplicated; ${writtenTwice} records written twice; ${pusher.fatals.length} pusher restarts; ${crashes.length} consumer restarts, old members taken out: ${evicted()
        .map((l) => `${String(l.fields.outcome)} after ${String(l.fields.ms)} ms`)
        .join(', ')}; all delivered ${deliveredAt - killedAt} ms after the kill\n`,
    );
  }, 300_000);
});
