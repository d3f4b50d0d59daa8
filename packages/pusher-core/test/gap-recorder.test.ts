import { HS_HEADER } from '@hookstream/contracts';
import type { PartitionGap, RecordPosition } from '@hookstream/kafka';
import type { NoticePublisher } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import { type GapLedger, GapRecorder } from '../src/gap-recorder.ts';

const GAP: PartitionGap = {
  topic: 'events',
  partition: 0,
  lostFrom: 5,
  lostTo: 19,
  lostCount: 15,
  lastCommitAtMs: Date.parse('2026-12-03T06:00:00.000Z'),
  foundAtMs: Date.parse('2026-12-03T07:00:00.000Z'),
};

/** A DLQ held in memory, keyed like Kafka's would be read. */
class MemoryGapLedger implements GapLedger {
  readonly records = new Map<string, { headers: Record<string, string>; position: RecordPosition }>();

  async find(key: string): Promise<RecordPosition | null> {
    return this.records.get(key)?.position ?? null;
  }

  async write(key: string, headers: Record<string, string>): Promise<RecordPosition> {
    const position = { partition: 0, offset: String(this.records.size) };
    this.records.set(key, { headers, position });
    return position;
  }
}

function recorder(ledger: GapLedger, failNotices = 0, tenant?: string) {
  const counted: number[] = [];
  const notices: { type: string; data: unknown; id: string; tenant?: string | undefined }[] = [];
  const logged: { level: string; message: string }[] = [];
  let failures = failNotices;
  const publisher: NoticePublisher = {
    publish: async (type, data, { id, tenant }) => {
      if (failures-- > 0) throw new Error('registry away');
      notices.push({ type, data, id, tenant });
    },
  };
  const gaps = new GapRecorder({
    subscriber: 'billing',
    tenant,
    eventsTopic: 'events',
    dlqTopic: 'hookstream.sub.billing.dlq',
    ledger,
    notices: async () => publisher,
    log: (level, message) => logged.push({ level, message }),
    counted: (n) => counted.push(n),
    noticeRetryMs: [0],
  });
  return { gaps, counted, notices, logged };
}

describe('GapRecorder', () => {
  it("sends a tenant's subscriber's notice with its tenant, and none for a subscriber of none", async () => {
    const acme = recorder(new MemoryGapLedger(), 0, 'acme');
    await acme.gaps.record(GAP);
    expect(acme.notices.map((n) => n.tenant)).toEqual(['acme']);
    const none = recorder(new MemoryGapLedger());
    await none.gaps.record(GAP);
    expect(none.notices.map((n) => 'tenant' in n && n.tenant !== undefined)).toEqual([false]);
  });

  it('writes one lost dead letter keyed by the gap, logs an error, counts the events and sends the notice', async () => {
    const dlq = new MemoryGapLedger();
    const { gaps, counted, notices, logged } = recorder(dlq);
    await gaps.record(GAP);
    const written = dlq.records.get('lost:events:0:5');
    expect(written?.headers[HS_HEADER.deadLetterReason]).toBe('lost');
    expect(written?.headers[HS_HEADER.lostCount]).toBe('15');
    expect(written?.headers[HS_HEADER.lastCommitAt]).toBe('2026-12-03T06:00:00.000Z');
    expect(written?.headers[HS_HEADER.eventId]).toBeUndefined();
    expect(counted).toEqual([15]);
    expect(logged.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      'events lost: retention deleted them before the subscriber read them',
    ]);
    expect(notices).toEqual([
      {
        type: 'subscriber.events_lost',
        id: 'subscriber.events_lost:billing:lost:events:0:5',
        data: expect.objectContaining({
          lost_from: '5',
          lost_to: '19',
          lost_count: 15,
          dlq: 'hookstream.sub.billing.dlq:0:0',
        }),
      },
    ]);
  });

  it('a gap found again (a crash before the commit past it) is neither written nor counted twice; its notice keeps its id', async () => {
    const dlq = new MemoryGapLedger();
    await recorder(dlq).gaps.record(GAP);
    const again = recorder(dlq);
    await again.gaps.record({ ...GAP, foundAtMs: GAP.foundAtMs + 60_000 });
    expect(dlq.records.size).toBe(1);
    expect(again.counted).toEqual([]);
    expect(again.notices.map((n) => n.id)).toEqual(['subscriber.events_lost:billing:lost:events:0:5']);
  });

  it('a notice that cannot be published is a warning: the gap is durable already', async () => {
    const dlq = new MemoryGapLedger();
    const { gaps, notices, logged } = recorder(dlq, 5);
    await gaps.record(GAP);
    expect(dlq.records.size).toBe(1);
    expect(notices).toEqual([]);
    expect(logged.map((l) => l.level)).toEqual(['error', 'warn']);
  });

  it('a write that fails throws, so nothing moves past the gap', async () => {
    const ledger: GapLedger = {
      find: async () => null,
      write: async () => Promise.reject(new Error('DLQ away')),
    };
    const { gaps, counted } = recorder(ledger);
    await expect(gaps.record(GAP)).rejects.toThrow('DLQ away');
    expect(counted).toEqual([]);
  });
});
