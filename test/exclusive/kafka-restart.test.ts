import { createKafka } from '@hookstream/kafka';
import { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IngressProcess, spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { PrivateKafka } from '../support/private-kafka.ts';
import { ContinuousPublisher } from '../support/publisher.ts';
import { expectEveryStoredEventDelivered } from '../support/stored-events.ts';
import { SupervisedPusher } from '../support/supervised-pusher.ts';
import { waitFor } from '../support/wait.ts';

// Scenario: Kafka stops and starts again while events are being published and delivered. On a
// private broker (the shared one serves other tests). Every 202 is a promise: each such event
// reaches the subscriber; while Kafka is away the ingress answers 503, never a 202 it cannot keep.
const topic = uniqueName('scenario-restart');

describe('scenario: Kafka restart during intake and delivery', () => {
  let kafka: PrivateKafka;
  let ingress: IngressProcess;
  const receiver = new SampleReceiver({ record: true });
  let pusher: SupervisedPusher;

  beforeAll(async () => {
    kafka = await PrivateKafka.start();
    await receiver.listen();
    ingress = await spawnIngressCli(topic, {
      KAFKA_BROKERS: kafka.brokers.join(','),
      INGRESS_ACK_TIMEOUT_MS: '3000',
      INGRESS_RETRY_AFTER_S: '1',
      INGRESS_LOG_LEVEL: 'warn',
    });
  }, 180_000);
  afterAll(async () => {
    await pusher?.stop();
    await ingress?.stop();
    await receiver.close();
    await kafka?.destroy();
  }, 120_000);

  it('delivers every event that got a 202; the outage got 503s only', async () => {
    const name = uniqueName('restart-sub');
    pusher = new SupervisedPusher({ brokers: kafka.brokers, topic, definition: { name, url: receiver.url } });
    await pusher.start();
    const publisher = new ContinuousPublisher(ingress.url, {
      maxEvents: 1500,
      gapMs: 40,
      concurrency: 3,
      idPrefix: uniqueName('restart'),
      event: (i, id) => ({
        id,
        type: 'shipment.updated',
        key: `shp-${i % 9}`,
        data: { shipment: { id: `shp-${i % 9}`, status: `s${i}` } },
      }),
    });
    publisher.start();
    await waitFor('deliveries under way', async () => (receiver.stats().accepted >= 30 ? true : undefined), {
      timeoutMs: 30_000,
    });

    const stopping = Date.now();
    await kafka.down();
    const downAt = Date.now();
    // Down until the ingress has refused several requests sent entirely within the outage.
    await waitFor(
      'requests refused while Kafka is down',
      async () => (publisher.answers.filter((a) => a.sentAt >= downAt).length >= 6 ? true : undefined),
      { timeoutMs: 30_000 },
    );
    const upAt = Date.now();
    await kafka.up();
    const upDone = Date.now();
    await waitFor(
      'the ingress to accept again',
      async () => (publisher.accepted.filter((a) => a.sentAt >= upDone).length >= 10 ? true : undefined),
      { timeoutMs: 90_000 },
    );
    const acceptingAt = Date.now();
    const answers = await publisher.stop();
    const accepted = answers.filter((a) => a.status === 202).map((a) => a.id);

    await waitFor(
      'every 202 delivered',
      async () => (accepted.every((id) => receiver.hasAccepted(name, id)) ? true : undefined),
      { timeoutMs: 90_000, intervalMs: 500 },
    ).catch((err: Error) => {
      const missing = accepted.filter((id) => !receiver.hasAccepted(name, id));
      throw new Error(
        `${err.message}: ${missing.length} of ${accepted.length} missing, e.g. ${missing.slice(0, 5).join(' ')}`,
      );
    });

    const deliveredAt = Date.now();
    // Only two answers exist: accepted, or 503 (retry later); nothing else, no dropped connection.
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([202, 503]);
    const during = answers.filter((a) => a.sentAt >= downAt && a.answeredAt <= upAt);
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(during.filter((a) => a.status !== 503)).toEqual([]);
    // Every refusal inside the outage says Kafka is unreachable or did not acknowledge, with the
    // configured Retry-After; nothing else (no queue_full, no 500).
    const codes = [...new Set(during.map((a) => a.code))];
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.filter((c) => c !== 'kafka_unavailable' && c !== 'ack_timeout')).toEqual([]);
    expect(during.filter((a) => a.retryAfter !== '1')).toEqual([]);

    // The subscriber's ledger reaches the end of the topic, and nothing was delivered twice
    // except as a deduplicated redelivery.
    const admin = createKafka({ brokers: kafka.brokers, clientId: 'scenario-restart', quiet: true }).admin();
    await admin.connect();
    let writtenTwice = 0;
    try {
      writtenTwice = await expectEveryStoredEventDelivered({
        admin,
        brokers: kafka.brokers,
        topic,
        subscriber: name,
        receiver,
        timeoutMs: 30_000,
      });
    } finally {
      await admin.disconnect();
    }
    const stats = receiver.stats();
    expect(stats.received).toBe(stats.accepted + stats.duplicates);
    process.stdout.write(
      `kafka-restart scenario: ${answers.length} requests, ${accepted.length} answered 202, ${answers.length - accepted.length} 503 (${during.length} inside the outage); ${stats.accepted} delivered, ${stats.duplicates} deduplicated; ${writtenTwice} records written twice; ${pusher.fatals.length} pusher restarts; Kafka stopped in ${downAt - stopping} ms, down ${upAt - downAt} ms, restart took ${upDone - upAt} ms, 202s again after ${acceptingAt - upDone} ms, all delivered after ${deliveredAt - upDone} ms\n`,
    );
  }, 240_000);
});
