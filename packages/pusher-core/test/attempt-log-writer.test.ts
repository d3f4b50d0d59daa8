import {
  ATTEMPT_BATCH_MAX_ENTRIES,
  ATTEMPT_LOG_TOPIC,
  type AttemptLogEntry,
  attemptEntriesOf,
  type LogFn,
} from '@hookstream/contracts';
import { type OutgoingRecord, partitionForKey, type RecordPosition } from '@hookstream/kafka';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTEMPT_LOG_BATCH_BYTES, AttemptLogWriter } from '../src/index.ts';

/** Records each send; fails the sends whose index is in `failing`. */
class FakeSender {
  readonly sends: OutgoingRecord[][] = [];
  readonly failing: ReadonlySet<number>;
  constructor(failing: ReadonlySet<number> = new Set()) {
    this.failing = failing;
  }
  async send(_topic: string, records: readonly OutgoingRecord[]): Promise<RecordPosition[]> {
    const index = this.sends.length;
    this.sends.push([...records]);
    if (this.failing.has(index)) throw new Error('MESSAGE_TOO_LARGE');
    return records.map((_, i) => ({ partition: 0, offset: String(i) }));
  }
}

const bytesOf = (batch: readonly OutgoingRecord[]) =>
  batch.reduce((sum, r) => sum + (r.value?.length ?? 0) + (r.key?.length ?? 0) + 64, 0);

function entry(i: number, outcomeBytes = 0): AttemptLogEntry {
  return {
    eventId: `evt-${i}`,
    subscriber: 'billing',
    step: 'delivered',
    attempt: 1,
    at: '2026-01-01T00:00:00.000Z',
    source: { topic: 'events', partition: 0, offset: String(i) },
    ...(outcomeBytes === 0 ? {} : { outcome: 'x'.repeat(outcomeBytes) }),
  };
}

const writers: AttemptLogWriter[] = [];
function writer(sender: FakeSender, log: LogFn = () => {}, options = {}): AttemptLogWriter {
  const w = new AttemptLogWriter(sender, log, { flushEveryMs: 3_600_000, ...options });
  writers.push(w);
  return w;
}

afterEach(async () => {
  for (const w of writers.splice(0)) await w.close();
});

describe('AttemptLogWriter', () => {
  it('splits what is queued into sends of at most the batch bound, every entry once and in order', async () => {
    const sender = new FakeSender();
    const w = writer(sender);
    // About 2 MiB of entries: four times the bound.
    for (let i = 0; i < 2000; i++) w.write(entry(i, 1000));
    await w.flush();
    expect(sender.sends.length).toBeGreaterThanOrEqual(4);
    for (const batch of sender.sends) expect(bytesOf(batch)).toBeLessThanOrEqual(ATTEMPT_LOG_BATCH_BYTES);
    expect(sender.sends.flat().map((r) => r.key)).toEqual(Array.from({ length: 2000 }, (_, i) => `evt-${i}`));
    expect(w.dropped).toBe(0);
  });

  it('drops and counts an entry larger than the entry bound, not its neighbours', async () => {
    const sender = new FakeSender();
    const lines: string[] = [];
    const w = writer(sender, (level, message) => lines.push(`${level} ${message}`), { maxEntryBytes: 4096 });
    w.write(entry(1));
    w.write(entry(2, 5000));
    w.write(entry(3, 5000));
    w.write(entry(4));
    await w.flush();
    expect(sender.sends.flat().map((r) => r.key)).toEqual(['evt-1', 'evt-4']);
    expect(w.oversized).toBe(2);
    expect(w.dropped).toBe(2);
    expect(lines).toEqual(['warn attempt log entry too large; dropped (the ledger is unaffected)']);
  });

  it('loses only the entries of a failed send', async () => {
    const sender = new FakeSender(new Set([1]));
    const lines: string[] = [];
    const w = writer(sender, (level, message) => lines.push(`${level} ${message}`), {
      maxBatchBytes: 10_000,
    });
    for (let i = 0; i < 30; i++) w.write(entry(i, 900));
    await w.flush();
    expect(sender.sends.length).toBeGreaterThan(2);
    const failed = sender.sends[1]?.length ?? 0;
    expect(failed).toBeGreaterThan(0);
    expect(w.dropped).toBe(failed);
    expect(lines).toEqual(['warn attempt log write failed; entries dropped (the ledger is unaffected)']);
  });

  it('bounds the queue by entries and by bytes', async () => {
    const byCount = writer(new FakeSender(), () => {}, { maxQueued: 5 });
    for (let i = 0; i < 8; i++) byCount.write(entry(i));
    expect(byCount.dropped).toBe(3);
    const byBytes = writer(new FakeSender(), () => {}, { maxQueuedBytes: 5000 });
    // Each about 1.2 KB: the fifth takes the queue past 5000 bytes, the five after it are dropped.
    for (let i = 0; i < 10; i++) byBytes.write(entry(i, 1000));
    expect(byBytes.dropped).toBe(5);
  });
});

describe('AttemptLogWriter: batch records', () => {
  it('puts each entry in a record of the partition its event id hashes to, keyed so the record lands there, in order', async () => {
    const sender = new FakeSender();
    const w = writer(sender);
    w.useBatchRecords(6);
    for (let i = 0; i < 1000; i++) w.write(entry(i));
    await w.flush();
    const records = sender.sends.flat();
    expect(records.length).toBeLessThan(40);
    const seen: string[] = [];
    for (const record of records) {
      const read = attemptEntriesOf(record.value);
      expect(read.invalid).toBe(0);
      expect(read.entries.length).toBeLessThanOrEqual(ATTEMPT_BATCH_MAX_ENTRIES);
      expect(read.entries[0]?.eventId).toBe(record.key);
      const partition = partitionForKey(ATTEMPT_LOG_TOPIC, record.key ?? '', 6);
      for (const e of read.entries) {
        expect(partitionForKey(ATTEMPT_LOG_TOPIC, e.eventId, 6)).toBe(partition);
        seen.push(e.eventId);
      }
    }
    // Every entry once; within a partition, in the order written.
    expect([...seen].sort()).toEqual(Array.from({ length: 1000 }, (_, i) => `evt-${i}`).sort());
    const order = (id: string) => Number(id.slice(4));
    for (const record of records) {
      const ids = attemptEntriesOf(record.value).entries.map((e) => order(e.eventId));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
    expect(w.dropped).toBe(0);
  });

  it('keeps a batch record within the record bound, and a failed send loses the entries of its records', async () => {
    const sender = new FakeSender(new Set([0]));
    const w = writer(sender, () => {}, { maxBatchBytes: 20_000 });
    w.useBatchRecords(1);
    for (let i = 0; i < 60; i++) w.write(entry(i, 900));
    await w.flush();
    for (const batch of sender.sends)
      for (const record of batch) expect(record.value?.length ?? 0).toBeLessThanOrEqual(20_000);
    const lost = sender.sends[0]?.reduce((sum, r) => sum + attemptEntriesOf(r.value).entries.length, 0) ?? 0;
    expect(lost).toBeGreaterThan(1);
    expect(w.dropped).toBe(lost);
  });
});
