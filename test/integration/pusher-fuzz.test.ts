import { CE_HEADER, dlqTopicName, readDeadLetterEvidence, TRACEPARENT_HEADER } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { EventFactory } from '../support/events.ts';
import { Random } from '../support/fuzz.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const SEED = 14_017;
const HOSTILE = 2000;

/** One hostile record: a good event's message with one thing broken, chosen by the seed. */
function spoil(
  rnd: Random,
  good: { key: string; value: Buffer; headers: Record<string, string> },
): { key: string; value: Buffer | null; headers: Record<string, string> } {
  const wire = (id: number, body: Buffer) => {
    const header = Buffer.alloc(5);
    header.writeInt32BE(id, 1);
    return Buffer.concat([header, body]);
  };
  switch (rnd.int(9)) {
    case 0:
      return { ...good, headers: { ...good.headers, [CE_HEADER.id]: 'x'.repeat(10_000) } };
    case 1:
      return { ...good, headers: { ...good.headers, [CE_HEADER.id]: `evt\r\n${rnd.string()}` } };
    case 2:
      return { ...good, headers: { ...good.headers, [TRACEPARENT_HEADER]: rnd.string(60) } };
    case 3:
      return { ...good, headers: { ...good.headers, [CE_HEADER.type]: `${rnd.string()}!` } };
    case 4:
      return { ...good, value: good.value.subarray(0, 5 + rnd.int(Math.max(good.value.length - 6, 1))) };
    case 5:
      return { ...good, value: wire(2_000_000_000 - rnd.int(1_000_000), good.value.subarray(5)) };
    case 6:
      return { ...good, value: null };
    case 7:
      return { ...good, value: Buffer.from(rnd.bytes(40)) };
    default: {
      const { [CE_HEADER.id]: _, ...headers } = good.headers;
      return { ...good, headers };
    }
  }
}

describe('pusher fuzz: hostile records straight to the events topic', () => {
  openForSuite(fx, factory, receivers);

  it(`${HOSTILE} hostile records all end in the DLQ as poison; a control event after them is delivered`, async () => {
    const rnd = new Random(SEED);
    const endpoint = await receivers.start({});
    const topic = await fx.topic(1);
    const hostile = await Promise.all(
      Array.from({ length: HOSTILE }, async () => spoil(rnd, await factory.message(factory.event()))),
    );
    for (let i = 0; i < hostile.length; i += 500)
      await fx.producer.send({ topic, acks: -1, messages: hostile.slice(i, i + 500) });
    const control = factory.event();
    await fx.produce(topic, factory, [control]);

    const name = uniqueName('fuzz');
    const { logs } = await fx.startPusher(topic, { name, url: endpoint.url });
    await waitFor('the control event', async () => (endpoint.stats().accepted === 1 ? true : undefined), {
      timeoutMs: 60_000,
    });
    await fx.settledEverything(name, topic);

    const dead = await fx.readTopic(dlqTopicName(name), HOSTILE, 60_000);
    expect(dead).toHaveLength(HOSTILE);
    const reasons = dead.map((r) => {
      const read = readDeadLetterEvidence(r.headers);
      return read.ok ? read.evidence.reason : `unreadable: ${read.problem}`;
    });
    expect(new Set(reasons)).toEqual(new Set(['poison']));
    expect(endpoint.arrivals.map((a) => a.body?.event_id)).toEqual([control.id]);
    expect(logs.filter((l) => l.level === 'fatal')).toEqual([]);
  }, 120_000);
});
