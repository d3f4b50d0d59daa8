import { subscriberGroupId } from '@hookstream/contracts';
import { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { okAnswersByEvent } from '../support/arrivals.ts';
import { exited, spawnCli } from '../support/child.ts';
import { post } from '../support/ingress.ts';
import { type IngressProcess, spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { writeSubscriberFile } from '../support/subscriber-file.ts';
import { waitFor } from '../support/wait.ts';

// Scenario: the same event id posted twice at the ingress, and a pusher killed with SIGKILL mid-run
// and restarted. Whatever is submitted or delivered twice, the receiver sees one effect per
// event, and only records above the ledger at the kill are delivered again.
// (pusher-crash.test.ts covers the same kill at 10,000 events; this one starts at the ingress.)
const EVENTS = 300;
const RESUBMITTED = 40;

const fx = new KafkaFixture();
const receiver = new SampleReceiver({ record: true });
let ingress: IngressProcess;
const topic = uniqueName('scenario-dup');

interface Placed {
  readonly event_id: string;
  readonly partition: number;
  readonly offset: string;
  readonly duplicate: boolean;
}

const shipment = (id: string, i: number) => ({
  id,
  type: 'shipment.updated',
  key: `shp-${i % 11}`,
  data: { shipment: { id: `shp-${i % 11}`, status: `step-${i}` } },
});

describe('scenario: duplicate submissions and a redelivery after kill -9', () => {
  beforeAll(async () => {
    await fx.connect();
    await receiver.listen();
    ingress = await spawnIngressCli(topic, { INGRESS_LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await ingress?.stop();
    await fx.close();
    await receiver.close();
  });

  it('one side effect per event at the receiver; redeliveries only above the ledger at the kill', async () => {
    const ids = Array.from({ length: EVENTS }, (_, i) => `${uniqueName('dup')}-${i}`);
    const placed = new Map<string, Placed>();
    for (let i = 0; i < EVENTS; i += 50) {
      const batch = ids.slice(i, i + 50).map((id, j) => shipment(id, i + j));
      const answer = await post(`${ingress.url}/v1/events/batch`, { events: batch });
      expect(answer.status).toBe(202);
      for (const r of (answer.body as { results: Placed[] }).results) placed.set(r.event_id, r);
    }
    // The same ids again, one request each: answered as duplicates, nothing written.
    for (let i = 0; i < RESUBMITTED; i++) {
      const id = ids[i * 7] ?? '';
      const again = await post(`${ingress.url}/v1/events`, shipment(id, i * 7));
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ event_id: id, duplicate: true, offset: placed.get(id)?.offset });
    }
    expect(await fx.end(topic)).toBe(EVENTS);

    const name = uniqueName('dup-sub');
    const config = await writeSubscriberFile({
      name,
      url: `${receiver.url}/hooks`,
      // Slow enough that the kill lands mid-run with commits (every second) behind deliveries.
      rate: { perSecond: 60 },
      concurrency: 8,
      start: 'earliest',
      allowPrivateNetwork: true,
    });
    // A short session: the group notices the killed instance after 8 s instead of kafkajs's 30 s.
    const args = ['push', '--config', config, '--topic', topic, '--session-timeout', '8000'];
    const first = spawnCli(args);
    // Three seconds in, at a moment when some of the run is in the ledger, some delivered beyond
    // it (commits trail deliveries by up to a second), and some not yet delivered.
    await waitFor(
      'most of the run, partly beyond the ledger',
      async () => {
        const accepted = receiver.stats().accepted;
        if (accepted < 180) return undefined;
        return (await fx.ledger(name, topic)) <= accepted - 5 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 10 },
    );
    first.kill('SIGKILL');
    expect((await exited(first)).signal).toBe('SIGKILL');
    const killedAt = Date.now();
    const committed = await fx.admin.committedOffsets(subscriberGroupId(name), topic);
    const ledgerAt = new Map(committed.map((p) => [p.partition, Number(p.offset ?? -1)]));
    const atKill = receiver.stats().accepted;
    expect(atKill).toBeLessThan(EVENTS);
    // The restart is assigned once the killed member's session (8 s) expired.

    const second = spawnCli(args);
    let resumedAt = 0;
    try {
      await waitFor(
        'the restart delivering',
        async () => (receiver.stats().received > atKill ? true : undefined),
        { timeoutMs: 60_000, intervalMs: 20 },
      );
      resumedAt = Date.now();
      await waitFor('every event', async () => (receiver.stats().accepted === EVENTS ? true : undefined), {
        timeoutMs: 60_000,
      });
      await waitFor('the ledger at the end', async () =>
        (await fx.ledger(name, topic)) === EVENTS ? true : undefined,
      );
    } finally {
      second.kill('SIGTERM');
      expect((await exited(second)).code).toBe(0);
    }

    // Well inside kafkajs's default 30 s session: the option reached the group.
    expect(resumedAt - killedAt).toBeLessThan(25_000);
    const stats = receiver.stats();
    const answers = okAnswersByEvent(receiver.arrivals, name);
    expect(stats.accepted).toBe(EVENTS);
    expect(stats.received).toBe(stats.accepted + stats.duplicates);
    expect([...answers.keys()].sort()).toEqual([...ids].sort());
    // An event answered twice was redelivered: the first pusher had it delivered before the kill
    // but not yet in the ledger. Anything below the ledger must never come again.
    const redelivered = [...answers].filter(([, n]) => n > 1).map(([id]) => id);
    for (const id of redelivered) {
      const at = placed.get(id);
      expect(at, id).toBeDefined();
      expect(Number(at?.offset)).toBeGreaterThanOrEqual(ledgerAt.get(at?.partition ?? -1) ?? -1);
      expect(answers.get(id)).toBe(2);
      const firstAnswer = receiver.arrivals.find((a) => a.eventId === id);
      expect(firstAnswer?.atMs).toBeLessThanOrEqual(killedAt);
    }
    // The kill left delivered work outside the ledger, so the restart really redelivered.
    const ledgerAtKill = [...ledgerAt.values()].reduce((a, b) => a + Math.max(b, 0), 0);
    expect(ledgerAtKill).toBeGreaterThan(0);
    expect(ledgerAtKill).toBeLessThan(atKill);
    expect(redelivered.length).toBe(stats.duplicates);
    // Exactly what was delivered before the kill at or above its partition's ledger came again.
    const beyondLedger = ids.filter((id) => {
      const at = placed.get(id);
      const firstAnswer = receiver.arrivals.find((a) => a.eventId === id);
      return (
        at !== undefined &&
        firstAnswer !== undefined &&
        firstAnswer.atMs <= killedAt &&
        Number(at.offset) >= (ledgerAt.get(at.partition) ?? 0)
      );
    });
    expect(redelivered.sort()).toEqual(beyondLedger.sort());
    expect(stats.duplicates).toBeGreaterThan(0);
    process.stdout.write(
      `duplicates scenario: ${RESUBMITTED} resubmissions answered as duplicates; ${atKill} accepted at the kill (ledger ${ledgerAtKill}); ${stats.duplicates} redelivered and deduplicated\n`,
    );
  }, 150_000);
});
