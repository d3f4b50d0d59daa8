import { ATTEMPT_LOG_TOPIC, type AttemptLogEntry } from '@hookstream/contracts';
import { createKafka, RecordSender, readTopic } from '@hookstream/kafka';
import { AttemptLogWriter } from '@hookstream/pusher-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAttemptLog } from '../support/attempt-log.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-attempt-log', quiet: true });
const sender = new RecordSender(kafka);
/** Entries of one event id share a key, so they land on one partition: one record batch. */
const eventId = uniqueName('evt-big-batch');
const COUNT = 1200;
const startedAt = Date.now();

function entry(i: number, id = eventId): AttemptLogEntry {
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

describe('the attempt-log writer', () => {
  it('writes more than 1 MiB of entries queued at once, every one, where one send of them is refused', async () => {
    const all = Array.from({ length: COUNT }, (_, i) => entry(i));
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
    const attempts = read
      .filter((r) => r.key === eventId)
      .map((r) => (JSON.parse(r.value?.toString() ?? '{}') as AttemptLogEntry).attempt);
    expect(attempts).toEqual(all.map((e) => e.attempt));
    expect(read.filter((r) => r.key === control)).toEqual([]);
  }, 60_000);
});
