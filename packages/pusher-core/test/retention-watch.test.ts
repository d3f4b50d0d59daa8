import { SubscriberDefinition, type SubscriberRecord, subscriberGroupId } from '@hookstream/contracts';
import type { KafkaAdmin } from '@hookstream/kafka';
import type { HeadroomReading, NoticePublisher, PartitionHeadroom } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import { RetentionWatch } from '../src/retention-watch.ts';

const NOW = Date.parse('2026-12-03T12:00:00Z');
const TOPIC = 'events';

function record(
  name: string,
  kind: 'active' | 'paused',
  retentionWarningMs?: number,
  tenant?: string,
): SubscriberRecord {
  return {
    version: tenant === undefined ? 3 : 4,
    definition: SubscriberDefinition.parse({
      name,
      url: 'https://example.com/hook',
      ...(retentionWarningMs === undefined ? {} : { retentionWarningMs }),
      ...(tenant === undefined ? {} : { tenant }),
    }),
    state: kind === 'active' ? { kind } : { kind, reason: 'test', by: 'ops', at: '2026-12-03T00:00:00.000Z' },
    createdAt: '2026-12-01T00:00:00.000Z',
    updatedAt: '2026-12-01T00:00:00.000Z',
  } as SubscriberRecord;
}

/** One partition 0 of the events topic: `seconds` of headroom at the ledger `committed`. */
function partition(committed: number, seconds: number, owed = true): PartitionHeadroom {
  return {
    partition: 0,
    committed,
    recordTimestampMs: owed ? NOW - 60_000 : null,
    headroom: { kind: 'bounded', seconds, basis: 'time' },
  };
}

/** A watch over `records` whose looks answer, in turn, the given partitions of every group. */
function watch(records: readonly SubscriberRecord[], failures: (Error & { code?: string })[] = []) {
  const sent: { id: string; data: Record<string, unknown>; tenant?: string | undefined }[] = [];
  const logged: string[] = [];
  let answer: PartitionHeadroom[] = [];
  const publisher: NoticePublisher = {
    publish: async (_type, data, { id, tenant }) => {
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      sent.push({ id, data: data as unknown as Record<string, unknown>, tenant });
    },
  };
  const w = new RetentionWatch({
    admin: {} as KafkaAdmin,
    reader: {
      read: async (groups: readonly string[]): Promise<HeadroomReading> => ({
        retention: { retentionMs: 600_000, retentionBytes: null },
        groups: new Map(groups.map((g) => [g, answer])),
      }),
    },
    eventsTopic: TOPIC,
    subscribers: () => records,
    notices: async () => publisher,
    log: (_level, message) => logged.push(message),
    now: () => NOW,
  });
  return {
    w,
    sent,
    logged,
    look: async (...partitions: PartitionHeadroom[]) => {
      answer = partitions;
      await w.look();
    },
  };
}

describe('RetentionWatch', () => {
  it("sends a tenant's subscriber's notice with its tenant", async () => {
    const { sent, look } = watch([record('acme-billing', 'active', 3_600_000, 'acme')]);
    await look(partition(5, 3000));
    expect(sent.map((s) => [s.data['subscriber'], s.tenant])).toEqual([['acme-billing', 'acme']]);
  });

  it('sends one notice per crossing, and again only after a recovery, named by the ledger offset', async () => {
    const { sent, look } = watch([record('billing', 'paused', 3_600_000)]);
    await look(partition(5, 4000)); // above the hour: nothing
    await look(partition(5, 3000)); // crossed
    await look(partition(5, 2900)); // still below
    await look(partition(7, 2800)); // the ledger moved, still below: the same crossing
    await look(partition(9, 600, false)); // nothing owed: recovered
    await look(partition(9, 500)); // crossed again
    expect(sent.map((s) => s.id)).toEqual([
      'subscriber.retention_at_risk:billing:events:0:5',
      'subscriber.retention_at_risk:billing:events:0:9',
    ]);
    expect(sent[0]?.data).toMatchObject({
      subscriber: 'billing',
      state: 'paused',
      topic: TOPIC,
      partition: 0,
      offset: '5',
      headroom_seconds: 3000,
      basis: 'time',
      retention_ms: 600_000,
      retention_bytes: null,
      warning_ms: 3_600_000,
      seen_at: new Date(NOW).toISOString(),
      record_timestamp: new Date(NOW - 60_000).toISOString(),
      events_topic: TOPIC,
    });
  });

  it('never warns about a partition with nothing owed, whatever the threshold (24 h on a 10-minute topic)', async () => {
    const { sent, look, w } = watch([record('billing', 'active')]);
    await look(partition(9, 600, false));
    expect(sent).toEqual([]);
    expect(w.points()).toEqual([{ subscriber: 'billing', topic: TOPIC, partition: 0, seconds: 600 }]);
    await look(partition(9, 590));
    expect(sent.map((s) => s.id)).toEqual(['subscriber.retention_at_risk:billing:events:0:9']);
  });

  it('tries a notice that could not be sent again at the next look, under the same id', async () => {
    const { sent, look, logged } = watch([record('billing', 'paused', 3_600_000)], [new Error('Kafka away')]);
    await look(partition(5, 3000));
    expect(sent).toEqual([]);
    expect(logged.some((m) => m.includes('could not be published'))).toBe(true);
    await look(partition(5, 2990));
    expect(sent.map((s) => s.id)).toEqual(['subscriber.retention_at_risk:billing:events:0:5']);
  });

  it('takes an id its producer refuses as already sent (the same crossing seen again), not a failure to retry', async () => {
    const conflict = Object.assign(new Error('an id was already used for a different event'), {
      code: 'ID_CONFLICT',
    });
    const { sent, look } = watch([record('billing', 'paused', 3_600_000)], [conflict]);
    await look(partition(5, 3000));
    await look(partition(5, 2990));
    expect(sent).toEqual([]);
  });

  it('stops without waiting for a look still reading, and sends nothing once stopped', async () => {
    let answer: (reading: HeadroomReading) => void = () => undefined;
    const sent: string[] = [];
    const w = new RetentionWatch({
      admin: {} as KafkaAdmin,
      reader: { read: () => new Promise<HeadroomReading>((resolve) => (answer = resolve)) },
      eventsTopic: TOPIC,
      subscribers: () => [record('billing', 'paused', 3_600_000)],
      notices: async () => ({ publish: async (_type, _data, { id }) => void sent.push(id) }),
      log: () => undefined,
      now: () => NOW,
    });
    w.start();
    const stopped = await Promise.race([
      w.stop().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1000)),
    ]);
    expect(stopped).toBe('stopped');
    answer({
      retention: { retentionMs: 600_000, retentionBytes: null },
      groups: new Map([[subscriberGroupId('billing'), [partition(5, 3000)]]]),
    });
    await w.look();
    expect(sent).toEqual([]);
    expect(w.points()).toEqual([]);
  });

  it('gives the gauge every bounded partition of every subscriber it watches', async () => {
    const records = [record('billing', 'paused'), record('crm', 'active')];
    const { w, look } = watch(records);
    await look(partition(5, 3000));
    expect(w.points()).toEqual([
      { subscriber: 'billing', topic: TOPIC, partition: 0, seconds: 3000 },
      { subscriber: 'crm', topic: TOPIC, partition: 0, seconds: 3000 },
    ]);
    expect(w.lookedAtMs()).toBe(NOW);
    expect(records.map((r) => subscriberGroupId(r.definition.name))).toEqual([
      'hookstream.sub.billing',
      'hookstream.sub.crm',
    ]);
  });
});
