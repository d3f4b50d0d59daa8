import { DEFAULT_BREAKER, dlqTopicName } from '@hookstream/contracts';
import { queryLedger } from '@hookstream/dead-letter-tools';
import { createKafka } from '@hookstream/kafka';
import { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { okAnswersByEvent } from '../support/arrivals.ts';
import { post, TOKENS } from '../support/ingress.ts';
import { type IngressProcess, spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { endpoints } from '../support/stack.ts';
import { deadLetterTotal } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Scenario: three subscribers that must all see every `key.revoked` event; one endpoint is down
// until every event has walked its retry tiers three times (a few seconds: the tiers are short).
// The other two get every event at once, the third catches up through its retry tiers when it
// is back (its breaker off: this is the tier path), and each receives each event exactly once.
// Shipment events on the same topic are filtered out for all three.
const KEYS = 30;
/** Handovers to b's tiers per event before its endpoint comes back: the outage's length. */
const TIER_WALKS = 3;

const fx = new KafkaFixture();
const receivers = {
  a: new SampleReceiver({ record: true }),
  b: new SampleReceiver({ record: true }),
  c: new SampleReceiver({ record: true }),
};
const topic = uniqueName('scenario-keys');
let ingress: IngressProcess;

describe('scenario: three required consumers of key.revoked, one down while its tiers retry', () => {
  beforeAll(async () => {
    await fx.connect();
    for (const r of Object.values(receivers)) await r.listen();
    ingress = await spawnIngressCli(topic, { INGRESS_LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await ingress?.stop();
    await fx.close();
    await Promise.all(Object.values(receivers).map((r) => r.close().catch(() => undefined)));
  });

  it('the two up are not delayed; the third catches up via its tiers; each event exactly once each', async () => {
    const { a, b, c } = receivers;
    const names = { a: uniqueName('keys-a'), b: uniqueName('keys-b'), c: uniqueName('keys-c') };
    // Short tiers so the catch-up is quick; attempts enough to outlast the outage.
    const retry = { delaysMs: [500, 1000, 2000], maxAttempts: 1000, maxAgeMs: 3_600_000, jitter: 0.1 };
    const pushers = {
      a: (await fx.startPusher(topic, { name: names.a, url: a.url, eventTypes: ['key.revoked'], retry }))
        .pusher,
      // The tier path under test: with its breaker on, b's records would wait in place instead
      // (test/scenarios/endpoint-outage-breaker.test.ts covers that path).
      b: (
        await fx.startPusher(topic, {
          name: names.b,
          url: b.url,
          eventTypes: ['key.revoked'],
          retry,
          breaker: { ...DEFAULT_BREAKER, enabled: false },
        })
      ).pusher,
      c: (await fx.startPusher(topic, { name: names.c, url: c.url, eventTypes: ['key.revoked'], retry }))
        .pusher,
    };

    await b.close(); // connections refused from now on
    const downAt = Date.now();
    const publishedAt = new Map<string, number>();
    const placed: { partition: number; offset: string }[] = [];
    for (let i = 0; i < KEYS; i++) {
      const id = `${uniqueName('revoked')}-${i}`;
      const answer = await post(
        `${ingress.url}/v1/events`,
        {
          id,
          type: 'key.revoked',
          key: `tenant-${i % 4}`,
          data: { tenant_id: `tenant-${i % 4}`, key_id: `key-${i}` },
        },
        { token: TOKENS.keysOnly },
      );
      expect(answer.status).toBe(202);
      publishedAt.set(id, Date.now());
      placed.push(answer.body as { partition: number; offset: string });
      if (i % 3 === 0) {
        const other = { type: 'shipment.updated', data: { shipment: { id: `shp-${i}`, status: 'x' } } };
        expect((await post(`${ingress.url}/v1/events`, other)).status).toBe(202);
      }
    }
    const ids = [...publishedAt.keys()];
    await waitFor('a and c to have every key event', async () =>
      a.stats().accepted === KEYS && c.stats().accepted === KEYS ? true : undefined,
    );
    await waitFor('a and c ledgers past every key event', async () =>
      (await fx.ledgerPast(names.a, topic, placed)) && (await fx.ledgerPast(names.c, topic, placed))
        ? true
        : undefined,
    );

    // Meanwhile b's handovers to its tiers are durable: its events-topic ledger moves past every
    // key event although nothing reached its endpoint. The outage lasts until each walked its tiers.
    await waitFor(`b's ledger past every key event and ${TIER_WALKS} tier handovers per event`, async () =>
      (await fx.ledgerPast(names.b, topic, placed)) && pushers.b.counts.retries >= TIER_WALKS * KEYS
        ? true
        : undefined,
    );
    expect(b.stats().received).toBe(0);
    await b.listen(b.port);
    const backAt = Date.now();
    await waitFor('b to catch up', async () => (b.stats().accepted === KEYS ? true : undefined), {
      timeoutMs: 20_000,
    });
    const caughtUpAt = Date.now();

    for (const [key, r] of Object.entries(receivers)) {
      const name = names[key as keyof typeof names];
      const answers = okAnswersByEvent(r.arrivals, name);
      // Exactly the key events, each answered 2xx once: no shipment event, no double delivery.
      expect([...answers.keys()].sort(), key).toEqual([...ids].sort());
      expect(
        [...answers.values()].every((n) => n === 1),
        key,
      ).toBe(true);
      expect(r.stats().received, key).toBe(KEYS);
      expect(await deadLetterTotal(dlqTopicName(name)), key).toBe(0);
    }
    // Not delayed: each event reached a and c within seconds of its 202, long before b was back.
    for (const r of [a, c])
      for (const arrival of r.arrivals) {
        const lag = arrival.atMs - (publishedAt.get(arrival.eventId ?? '') ?? 0);
        expect(lag).toBeLessThan(5_000);
        expect(arrival.atMs).toBeLessThan(backAt);
      }
    // b got nothing during the outage and everything within seconds of coming back.
    for (const arrival of b.arrivals) expect(arrival.atMs).toBeGreaterThanOrEqual(backAt);
    expect(caughtUpAt - backAt).toBeLessThan(15_000);
    expect(pushers.a.counts).toMatchObject({ acknowledged: KEYS, retries: 0 });
    expect(pushers.c.counts).toMatchObject({ acknowledged: KEYS, retries: 0 });
    await waitFor('b ledger past every key event', async () =>
      (await fx.ledgerPast(names.b, topic, placed)) ? true : undefined,
    );

    // The ledger query agrees for a sample event: delivered to all three, b on a later attempt.
    const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'scenario-ledger', quiet: true });
    const sample = ids[0] ?? '';
    const lines = await waitFor('the attempt log to show the sample delivered everywhere', async () => {
      const answer = await queryLedger(kafka, {
        eventId: sample,
        eventsTopic: topic,
        sinceMs: downAt - 60_000,
      });
      const mine = answer.subscribers.filter((s) => Object.values(names).includes(s.subscriber));
      return mine.length === 3 && mine.every((s) => s.ledger.state === 'delivered') ? mine : undefined;
    });
    for (const line of lines) {
      const attempt = line.ledger.state === 'delivered' ? line.ledger.attempt : 0;
      if (line.subscriber === names.b) expect(attempt).toBeGreaterThan(1);
      else expect(attempt).toBe(1);
    }
    process.stdout.write(
      `required-consumers scenario: b caught up ${caughtUpAt - backAt} ms after a ${backAt - downAt} ms outage, ${pushers.b.counts.retries} retries scheduled\n`,
    );
  }, 120_000);
});
