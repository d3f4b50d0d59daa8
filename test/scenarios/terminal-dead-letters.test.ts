import { DeadLetterEvidence, dlqTopicName, readHsHeaders, retryTopicName } from '@hookstream/contracts';
import { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventFactory, newSecret } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { endOffsetTotal } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Scenario: a removed route (the endpoint answers 404) and a revoked credential (the endpoint no
// longer accepts our signing secret: 401). Both are terminal in the delivery contract: one
// request per event, then the DLQ at once, never a retry tier. (410 Gone disables the whole
// subscriber instead: test/scenarios/gone-disables.test.ts.)
const EVENTS = 5;

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers: SampleReceiver[] = [];

async function receiver(options: ConstructorParameters<typeof SampleReceiver>[0]): Promise<SampleReceiver> {
  const r = new SampleReceiver({ record: true, ...options });
  await r.listen();
  receivers.push(r);
  return r;
}

describe('scenario: 404 Not Found and 401 Unauthorized are dead-lettered at once', () => {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
  });
  afterAll(async () => {
    await fx.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  const cases: [string, number, () => Promise<{ endpoint: SampleReceiver; secret?: string }>][] = [
    [
      'a removed route (404)',
      404,
      async () => ({ endpoint: await receiver({ behaviour: { fixedStatus: 404 } }) }),
    ],
    [
      // The endpoint verifies signatures with a secret the pusher no longer has.
      'a revoked credential (401)',
      401,
      async () => ({ endpoint: await receiver({ secret: newSecret() }), secret: newSecret() }),
    ],
  ];

  it.each(cases)('%s: one request per event, then the DLQ with the status', async (_, status, setup) => {
    const { endpoint, secret } = await setup();
    const topic = await fx.topic(2);
    const events = Array.from({ length: EVENTS }, () => factory.event());
    await fx.produce(topic, factory, events);
    const name = uniqueName(`gone${status}`);
    const retry = { delaysMs: [200, 400], maxAttempts: 5, maxAgeMs: 3_600_000, jitter: 0 };
    const { pusher } = await fx.startPusher(topic, { name, url: endpoint.url, retry }, secret);
    const dead = await fx.readTopic(dlqTopicName(name), EVENTS);
    const end = await fx.end(topic);
    await waitFor('the ledger at the end', async () =>
      (await fx.ledger(name, topic)) === end ? true : undefined,
    );

    expect(dead.map((r) => r.headers.ce_id).sort()).toEqual(events.map((e) => e.id).sort());
    for (const r of dead)
      expect(DeadLetterEvidence.parse(readHsHeaders(r.headers))).toMatchObject({
        subscriber: name,
        reason: 'terminal',
        outcomeClass: 'terminal',
        attempts: 1,
        status,
        origin: { topic },
      });
    // One request per event and nothing scheduled for later.
    expect(endpoint.arrivals).toHaveLength(EVENTS);
    expect(endpoint.arrivals.every((a) => a.status === status)).toBe(true);
    expect(endpoint.stats().accepted).toBe(0);
    expect(pusher.counts).toMatchObject({ deadLettered: EVENTS, retries: 0, acknowledged: 0 });
    expect(await endOffsetTotal(retryTopicName(name, 1))).toBe(0);
    expect(await endOffsetTotal(dlqTopicName(name))).toBe(EVENTS);
  });
});
