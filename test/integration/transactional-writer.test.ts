import { createKafka, KafkaFencedError, readTopic, TransactionalWriter } from '@hookstream/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-txn-writer', quiet: true });
const open: TransactionalWriter[] = [];

function writer(transactionalId: string): TransactionalWriter {
  const w = new TransactionalWriter(kafka, { transactionalId });
  open.push(w);
  return w;
}

const record = (value: string) => ({ key: value, value: Buffer.from(value), headers: {} });
const values = async (topic: string, options: { lastPerPartition?: number } = {}) =>
  (await readTopic(kafka, { topic, timeoutMs: 10_000, ...options })).map((r) => r.value?.toString());

afterAll(async () => {
  await Promise.all(open.map((w) => w.disconnect().catch(() => undefined)));
});

describe('TransactionalWriter', () => {
  it('shows readers a committed transaction whole and an aborted one never, to the end of the log', async () => {
    const topic = uniqueName('txn');
    await createTopic(topic, 1);
    const w = writer(uniqueName('hookstream.replay.test'));
    await w.connect();
    const positions = await w.transaction((txn) => txn.send(topic, [record('a'), record('b')]));
    expect(positions).toEqual([
      { partition: 0, offset: '0' },
      { partition: 0, offset: '1' },
    ]);
    const failed = await w
      .transaction(async (txn) => {
        await txn.send(topic, [record('aborted')]);
        throw new Error('changed my mind');
      })
      .catch((e: Error) => e.message);
    expect(failed).toBe('changed my mind');
    expect(await values(topic)).toEqual(['a', 'b']);
    // The log's last batch is the aborted record and its marker, which kafkajs filters out whole.
    expect(await values(topic, { lastPerPartition: 2 })).toEqual([]);
  });

  it('fences the earlier writer of the same id: its open transaction is aborted, its writes refused', async () => {
    const topic = uniqueName('txn-fence');
    await createTopic(topic, 1);
    const id = uniqueName('hookstream.replay.test');
    const first = writer(id);
    await first.connect();
    let resume: () => void = () => undefined;
    const paused = new Promise<void>((ok) => {
      resume = ok;
    });
    let sent: () => void = () => undefined;
    const wrote = new Promise<void>((ok) => {
      sent = ok;
    });
    const stale = first.transaction(async (txn) => {
      await txn.send(topic, [record('stale-1')]);
      sent();
      await paused;
      await txn.send(topic, [record('stale-2')]);
    });
    await wrote;
    const second = writer(id);
    await second.connect();
    resume();
    await expect(stale).rejects.toBeInstanceOf(KafkaFencedError);
    await expect(first.transaction((txn) => txn.send(topic, [record('late')]))).rejects.toMatchObject({
      code: 'KAFKA_FENCED',
      canRetry: false,
    });
    await second.transaction((txn) => txn.send(topic, [record('fresh')]));
    // The commit's markers reach the partition just after the commit returns (the coordinator
    // writes them): a read_committed read waits for them, never sees the fenced records.
    const seen = await waitFor('the fresh record readable', async () => {
      const v = await values(topic);
      return v.length > 0 ? v : undefined;
    });
    expect(seen).toEqual(['fresh']);
  });
});
