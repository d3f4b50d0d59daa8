import type { RunningIngress } from '@hookstream/ingress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, post, startTestIngress } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';
import { PrivateKafka } from '../support/private-kafka.ts';
import { endOffsetTotal, readRecords } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Stops and restarts a private broker; the shared Kafka is never touched.
describe('ingress while Kafka is down', () => {
  const topic = uniqueName('ingress-down');
  let kafka: PrivateKafka;
  let ingress: RunningIngress;
  let events: string;
  const event = (i: number) => ({
    type: 'key.revoked',
    id: `down-${i}`,
    data: { tenant_id: 't', key_id: `k${i}` },
  });

  beforeAll(async () => {
    kafka = await PrivateKafka.start();
    ingress = await startTestIngress(topic, {
      KAFKA_BROKERS: kafka.brokers.join(','),
      INGRESS_ACK_TIMEOUT_MS: '3000',
      INGRESS_RETRY_AFTER_S: '1',
    });
    events = `${ingress.url}/v1/events`;
  }, 240_000);
  afterAll(async () => {
    await ingress?.close();
    await kafka?.destroy();
  }, 120_000);

  it('answers 503 with Retry-After (never 202) while Kafka is gone, and 202 again once it is back', async () => {
    expect((await post(events, event(0))).status).toBe(202);

    await kafka.down();
    const down: Answer[] = [];
    for (let i = 1; i <= 3; i++) down.push(await post(events, event(i)));
    for (const answer of down) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect((answer.body as { error: { code: string } }).error.code).toMatch(
        /^(kafka_unavailable|ack_timeout)$/,
      );
    }
    const batch = await post(`${events}/batch`, { events: [event(10), event(11)] });
    expect(batch.status).toBe(503);
    expect((await fetch(`${ingress.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${ingress.url}/healthz`)).status).toBe(200);

    await kafka.up();
    // The producer reconnects by itself: the same request is accepted once the broker answers.
    const back = await waitFor(
      'the ingress to accept events again',
      async () => {
        const answer = await post(events, event(1));
        return answer.status === 202 ? answer : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect((back.body as { event_id: string }).event_id).toBe('down-1');
    expect((await fetch(`${ingress.url}/readyz`)).status).toBe(200);

    // Every 202 is on the topic. A 503 promised nothing either way: a write whose ack timed
    // out may still have landed (that is why it says "retry with the same id").
    // (Seen: events answered 503 while the broker stopped were on the topic afterwards.)
    const total = await endOffsetTotal(topic, kafka.brokers);
    const ids = (await readRecords(topic, total, kafka.brokers)).map((r) => r.headers.ce_id);
    expect(ids).toEqual(expect.arrayContaining(['down-0', 'down-1']));
  }, 240_000);
});
