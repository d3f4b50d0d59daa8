import { randomUUID } from 'node:crypto';
import { TOOL_GROUP_PREFIX } from '@hookstream/contracts';
import type { Admin, Kafka } from 'kafkajs';
import { deleteGroups } from '../admin/group-offsets.ts';
import { type PartitionRange, partitionRanges } from '../admin/topic-info.ts';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { kafkaOf } from '../connection/raw-client.ts';
import { type ConsumedRecord, toConsumedRecord } from '../consume/consumed-record.ts';
import { KafkaReadError } from '../errors.ts';

/** Prefix of the short-lived groups readers use; never a subscriber's `hookstream.sub.` prefix. */
export const READER_GROUP_PREFIX = TOOL_GROUP_PREFIX;

export interface ReadTopicOptions {
  readonly topic: string;
  /** Only these partitions (default: all of them). */
  readonly partitions?: readonly number[];
  /**
   * The first record to read: the earliest kept (default), the first at/after a timestamp, or an
   * offset (the same one in every partition read: meant for one partition).
   */
  readonly from?: 'earliest' | { readonly timestampMs: number } | { readonly offset: string };
  /**
   * At most this many offsets per partition from the start: a bound for reads that want one
   * record or a few where they are, not the rest of the partition.
   */
  readonly count?: number;
  /**
   * At most this many records per partition, the newest: the start moves up to `end − n`. A
   * bound for reads of a busy topic that only need its recent part.
   */
  readonly lastPerPartition?: number;
  /** Keeps only matching records, so a scan of a large topic holds only what it needs. */
  readonly keep?: (record: ConsumedRecord) => boolean;
  /** Gives up after this long (default 60 s). */
  readonly timeoutMs?: number;
  /** Names the throwaway group (`hookstream.tool.<purpose>.<uuid>`) so operators see what it was. */
  readonly purpose?: string;
}

/**
 * Reads a topic from a start position up to the end offsets it saw when it began, then stops:
 * a bounded snapshot, even while producers keep writing. kafkajs has no group-less consumer, so
 * the read runs in a throwaway group that seeks to the wanted offsets, never commits (with
 * autoCommit off a kafkajs seek only moves the fetch position), and is deleted afterwards. No
 * subscriber's ledger is touched. (admin.setOffsets would also position it, but costs a join and
 * a full fetch wait, about 5 s.) Records come back ordered by partition, then offset.
 */
export async function readTopic(
  connection: KafkaConnection,
  options: ReadTopicOptions,
): Promise<ConsumedRecord[]> {
  const { topic } = options;
  const kafka = kafkaOf(connection);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ranges = await readableRanges(admin, topic);
    const only = options.partitions === undefined ? undefined : new Set(options.partitions);
    const starts = new Map<number, bigint>();
    if (options.from === undefined || options.from === 'earliest') {
      for (const r of ranges) starts.set(r.partition, BigInt(r.low));
    } else if ('offset' in options.from) {
      for (const r of ranges) starts.set(r.partition, BigInt(options.from.offset));
    } else {
      for (const o of await admin.fetchTopicOffsetsByTimestamp(topic, options.from.timestampMs)) {
        starts.set(o.partition, BigInt(o.offset));
      }
    }
    const pending = new Map<number, { start: bigint; end: bigint }>();
    const idle: number[] = [];
    for (const r of ranges) {
      const high = BigInt(r.high);
      const low = BigInt(r.low);
      let start = starts.get(r.partition) ?? low;
      // -1 (no record at/after the timestamp) and offsets below the log start both clamp.
      if (start < low || start > high) start = start < 0n ? high : low;
      if (options.lastPerPartition !== undefined) {
        const floor = high - BigInt(Math.max(0, Math.floor(options.lastPerPartition)));
        if (start < floor) start = floor;
      }
      const end = endOf(start, high, options.count);
      const wanted = only === undefined || only.has(r.partition);
      if (wanted && start < end) pending.set(r.partition, { start, end });
      else idle.push(r.partition);
    }
    if (pending.size === 0) return [];
    const groupId = `${READER_GROUP_PREFIX}${options.purpose ?? 'read'}.${randomUUID()}`;
    try {
      return await consume(kafka, groupId, topic, pending, idle, options);
    } finally {
      await deleteGroups(admin, [groupId]).catch(() => undefined);
    }
  } finally {
    await admin.disconnect();
  }
}

/** Where a read of a partition stops: its end, or `count` offsets past the start when that is sooner. */
function endOf(start: bigint, high: bigint, count: number | undefined): bigint {
  if (count === undefined) return high;
  const bounded = start + BigInt(Math.max(0, Math.floor(count)));
  return bounded < high ? bounded : high;
}

/**
 * The record at one offset of one partition, or null when there is none there (retention or
 * compaction removed it, or the offset is past the end). Reads that one offset, not the partition.
 */
export async function readRecordAt(
  connection: KafkaConnection,
  at: { readonly topic: string; readonly partition: number; readonly offset: string },
  options: { readonly purpose?: string; readonly timeoutMs?: number } = {},
): Promise<ConsumedRecord | null> {
  const found = await readTopic(connection, {
    topic: at.topic,
    partitions: [at.partition],
    from: { offset: at.offset },
    count: 1,
    purpose: options.purpose ?? 'read-at',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  return found.find((r) => r.offset === at.offset) ?? null;
}

async function consume(
  kafka: Kafka,
  groupId: string,
  topic: string,
  pending: Map<number, { start: bigint; end: bigint }>,
  idle: readonly number[],
  options: ReadTopicOptions,
): Promise<ConsumedRecord[]> {
  // read_committed (kafkajs's default, said here because replays rest on it): a transaction's
  // records appear once it commits, and never when it aborts.
  const consumer = kafka.consumer({
    groupId,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
    readUncommitted: false,
  });
  const records: ConsumedRecord[] = [];
  const timeoutMs = options.timeoutMs ?? 60_000;
  let finish: (error?: Error) => void = () => undefined;
  const finished = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  const timer = setTimeout(
    () => finish(new KafkaReadError('READ_TIMEOUT', `reading ${topic} took longer than ${timeoutMs} ms`)),
    timeoutMs,
  );
  consumer.on(consumer.events.CRASH, ({ payload }) =>
    finish(new KafkaReadError('KAFKA_UNAVAILABLE', `reading ${topic} failed: ${payload.error.message}`)),
  );
  // Every fetched batch ends here, including one that held only transaction markers or aborted
  // records, which kafkajs never hands to eachBatch: a log ending in a commit marker still ends.
  // lastOffset() covers records the batch filtered out (compaction gaps, control records).
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const range = pending.get(payload.partition);
    if (payload.topic !== topic || range === undefined) return;
    if (BigInt(payload.lastOffset) + 1n >= range.end) {
      pending.delete(payload.partition);
      if (pending.size === 0) finish();
    }
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const range = pending.get(batch.partition);
        if (range === undefined) return;
        for (const message of batch.messages) {
          const offset = BigInt(message.offset);
          if (offset >= range.end) break;
          if (offset < range.start) continue;
          const record = toConsumedRecord(topic, batch.partition, message);
          if (options.keep === undefined || options.keep(record)) records.push(record);
        }
      },
    });
    // run() has created the group state; seeks and pauses apply before the first fetch.
    if (idle.length > 0) consumer.pause([{ topic, partitions: [...idle] }]);
    for (const [partition, { start }] of pending) consumer.seek({ topic, partition, offset: String(start) });
    await finished;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect().catch(() => undefined);
  }
  return records.sort((a, b) => a.partition - b.partition || compareOffsets(a.offset, b.offset));
}

function compareOffsets(a: string, b: string): number {
  const d = BigInt(a) - BigInt(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** The topic's partitions with their log start and end; NO_SUCH_TOPIC when it cannot be seen. */
export async function readableRanges(admin: Admin, topic: string): Promise<PartitionRange[]> {
  const ranges = await partitionRanges(admin, topic);
  if (ranges === null)
    throw new KafkaReadError(
      'NO_SUCH_TOPIC',
      `topic ${topic} does not exist (or, on a cluster with ACLs, this principal may not DESCRIBE it)`,
    );
  return ranges;
}
