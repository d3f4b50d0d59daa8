import { ATTEMPT_LOG_TOPIC, type AttemptLogEntry } from '@hookstream/contracts';
import { createKafka, RecordSender, readTopic } from '@hookstream/kafka';
import { AttemptLogWriter } from '@hookstream/pusher-core';
import { attemptEntriesFor } from '@hookstream/replay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAttemptLog } from '../support/attempt-log.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-attempt-log', quiet: true });
const sender = new RecordSender(kafka);
const COUNT = 1200;
const startedAt = Date.now();

function entry(i: number, id: string): AttemptLogEntry {
  return {
    eventId: id,
    subscriber: 'attempt-log-batches',
    step: 'retry-scheduled',
    attempt: i,
    at: new Date().toISOString(),
    // About 1.1 KB each: 1200 of them pass the broker's 1 MiB message.max.bytes together.
    outcome: `status_500 ${'x'.repeat(1000)}`,
    source: { topic: 'events', partition: 0, offset: String(i) },
  };
}

const encoded = (e: AttemptLogEntry) => ({
  key: e.eventId,
  value: Buffer.from(JSON.stringify(e)),
  headers: {},
});

beforeAll(async () => {
  const admin = kafka.admin();
  await admin.connect();
  await ensureAttemptLog(admin);
  await admin.disconnect();
  await sender.connect();
});

afterAll(async () => {
  await sender.disconnect();
});

// Entries of one event id land on one partition: one Kafka record batch, in either form.
describe.each([
  ['one record per entry (a writer not told the partition count)', false],
  ['batch records (as a pusher writes once it knows the count)', true],
])('the attempt-log writer, %s', (_form, batched) => {
  it('writes more than 1 MiB of entries queued at once, every one, where one send of them is refused', async () => {
    const eventId = uniqueName('evt-big-batch');
    const all = Array.from({ length: COUNT }, (_, i) => entry(i, eventId));
    const bytes = all.reduce((sum, e) => sum + encoded(e).value.length, 0);
    expect(bytes).toBeGreaterThan(1024 * 1024);
    // The broker's limit is real here: the same entries in one send (under another id) are refused.
    const control = uniqueName('evt-one-send');
    await expect(
      sender.send(
        ATTEMPT_LOG_TOPIC,
        all.map((e) => encoded({ ...e, eventId: control })),
      ),
    ).rejects.toThrow();

    const logged: string[] = [];
    const writer = new AttemptLogWriter(sender, (level, message) => logged.push(`${level} ${message}`));
    if (batched) writer.useBatchRecords(6);
    for (const e of all) writer.write(e);
    await writer.close();
    expect(logged).toEqual([]);
    expect(writer.dropped).toBe(0);

    const read = await readTopic(kafka, {
      topic: ATTEMPT_LOG_TOPIC,
      from: { timestampMs: startedAt - 1000 },
      keep: (r) => r.key === eventId || r.key === control,
      purpose: 'test-attempt-log',
    });
    // Read as `hookstream ledger` reads them.
    const attempts = attemptEntriesFor(eventId, read).map((e) => e.attempt);
    expect(attempts).toEqual(all.map((e) => e.attempt));
    const records = read.filter((r) => r.key === eventId).length;
    // Batch records: at most 100 entries and 128 KiB each, so about a hundredth as many records.
    if (batched) expect(records).toBeLessThanOrEqual(COUNT / 50);
    else expect(records).toBe(COUNT);
    expect(read.filter((r) => r.key === control)).toEqual([]);
  }, 60_000);
});
