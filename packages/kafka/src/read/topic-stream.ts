import { randomUUID } from 'node:crypto';
import type { Admin, Kafka, KafkaMessage } from 'kafkajs';
import { deleteGroups } from '../admin/group-offsets.ts';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { kafkaOf } from '../connection/raw-client.ts';
import type { ConsumedRecord } from '../consume/consumed-record.ts';
import { KafkaReadError } from '../errors.ts';
import { READER_GROUP_PREFIX, readableRanges } from './topic-reader.ts';

/** One fetch response at a time, and small: what a stream holds is about this, whatever the range. */
const FETCH_MAX_BYTES = 2 * 1024 * 1024;
const FETCH_PARTITION_BYTES = 512 * 1024;

export interface StreamTopicOptions {
  readonly topic: string;
  /** The first record: the earliest kept, or the first at/after a Kafka timestamp. */
  readonly from: 'earliest' | { readonly timestampMs: number };
  /** Stop before the first record at/after this Kafka timestamp (default: the end offsets at the start). */
  readonly to?: { readonly timestampMs: number };
  /** Only these headers are decoded (default: all); others are left out of the record. */
  readonly headers?: readonly string[];
  /** Leave the value out (null): a reader of headers only keeps no fetch buffer alive. */
  readonly withoutValues?: boolean;
  /**
   * Each fetched batch, in offset order per partition. The next fetch waits for it, so what is
   * held at once is one fetch response (kafkajs: 1 MiB per partition, 10 MiB per response).
   */
  readonly onBatch: (records: readonly ConsumedRecord[]) => void | Promise<void>;
  /** Before the first fetch: the offsets each partition will be read from and to (progress, totals). */
  readonly onPlan?: (partitions: readonly StreamedPartition[]) => void;
  /** Gives up when nothing arrives for this long (default 60 s). */
  readonly idleTimeoutMs?: number;
  readonly purpose: string;
}

/** What was read of one partition, and what the log still holds. */
export interface StreamedPartition {
  readonly partition: number;
  /** The log start and end when the read began. */
  readonly low: string;
  readonly high: string;
  /** The offsets read: [start, end). */
  readonly start: string;
  readonly end: string;
  /**
   * The read began at the log start of a partition retention (or DeleteRecords) has cut
   * (low > 0): records before the first kept one are gone. Its Kafka timestamp then, when the
   * partition still holds a record; null when it holds none (everything written was deleted).
   */
  readonly cut: { readonly firstKeptMs: number | null } | null;
}

export interface StreamedTopic {
  readonly topic: string;
  readonly partitions: readonly StreamedPartition[];
  readonly records: number;
}

/**
 * Streams a range of a topic, chosen by Kafka timestamps, batch by batch: the bounded-memory
 * counterpart of readTopic, for reads of millions of records (`hookstream reconcile`). Like
 * readTopic it runs in a throwaway group that seeks and never commits, deleted afterwards.
 */
export async function streamTopic(
  connection: KafkaConnection,
  options: StreamTopicOptions,
): Promise<StreamedTopic> {
  const { topic } = options;
  const kafka = kafkaOf(connection);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ranges = await readableRanges(admin, topic);
    const starts = await offsetsAt(admin, topic, options.from);
    const ends = options.to === undefined ? null : await offsetsAt(admin, topic, options.to);
    const plans: Plan[] = ranges.map((r) => {
      const low = BigInt(r.low);
      const high = BigInt(r.high);
      const start = clamp(starts?.get(r.partition), low, high, low);
      let end = clamp(ends?.get(r.partition), low, high, high);
      if (end < start) end = start;
      const cut = start === low && low > 0n;
      // A cut partition is read from its first kept record even past the window, for its time.
      return {
        partition: r.partition,
        low,
        high,
        start,
        end,
        cut,
        firstKeptMs: null,
        readTo: cut ? high : end,
      };
    });
    const pending = plans.filter((p) => p.start < p.readTo && (p.start < p.end || p.cut));
    options.onPlan?.(plans.map(described));
    let records = 0;
    if (pending.length > 0) {
      const groupId = `${READER_GROUP_PREFIX}${options.purpose}.${randomUUID()}`;
      try {
        records = await consume(kafka, groupId, topic, plans, pending, options);
      } finally {
        await deleteGroups(admin, [groupId]).catch(() => undefined);
      }
    }
    return { topic, records, partitions: plans.map(described) };
  } finally {
    await admin.disconnect();
  }
}

interface Plan {
  readonly partition: number;
  readonly low: bigint;
  readonly high: bigint;
  readonly start: bigint;
  readonly end: bigint;
  readonly cut: boolean;
  firstKeptMs: number | null;
  /** Where the fetch stops: the end, or for a cut partition past it until the first record. */
  readTo: bigint;
}

function described(p: Plan): StreamedPartition {
  return {
    partition: p.partition,
    low: String(p.low),
    high: String(p.high),
    start: String(p.start),
    end: String(p.end),
    cut: p.cut ? { firstKeptMs: p.firstKeptMs } : null,
  };
}

/** The first offset at/after a timestamp per partition (-1: none), or null for 'earliest'. */
async function offsetsAt(
  admin: Admin,
  topic: string,
  at: 'earliest' | { readonly timestampMs: number },
): Promise<Map<number, bigint> | null> {
  if (at === 'earliest') return null;
  const out = new Map<number, bigint>();
  for (const o of await admin.fetchTopicOffsetsByTimestamp(topic, at.timestampMs))
    out.set(o.partition, BigInt(o.offset));
  return out;
}

/** -1 (no record at/after the time) means the end; below the log start means the log start. */
function clamp(offset: bigint | undefined, low: bigint, high: bigint, fallback: bigint): bigint {
  if (offset === undefined) return fallback;
  if (offset < 0n || offset > high) return high;
  return offset < low ? low : offset;
}

async function consume(
  kafka: Kafka,
  groupId: string,
  topic: string,
  plans: readonly Plan[],
  pending: readonly Plan[],
  options: StreamTopicOptions,
): Promise<number> {
  const byPartition = new Map(plans.map((p) => [p.partition, p]));
  const open = new Set(pending.map((p) => p.partition));
  const consumer = kafka.consumer({
    groupId,
    maxWaitTimeInMs: 100,
    maxBytes: FETCH_MAX_BYTES,
    maxBytesPerPartition: FETCH_PARTITION_BYTES,
    allowAutoTopicCreation: false,
    readUncommitted: false,
  });
  const idleMs = options.idleTimeoutMs ?? 60_000;
  const wanted = options.headers === undefined ? null : new Set(options.headers);
  let count = 0;
  let finish: (error?: Error) => void = () => undefined;
  const finished = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  let timer = setTimeout(() => undefined, 0);
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => finish(new KafkaReadError('READ_TIMEOUT', `reading ${topic}: nothing arrived for ${idleMs} ms`)),
      idleMs,
    );
  };
  // A finished partition's fetch pauses: a window in the past does not read on to the end.
  const close = (partition: number) => {
    if (!open.delete(partition)) return;
    if (open.size === 0) finish();
    else consumer.pause([{ topic, partitions: [partition] }]);
  };
  consumer.on(consumer.events.CRASH, ({ payload }) =>
    finish(new KafkaReadError('KAFKA_UNAVAILABLE', `reading ${topic} failed: ${payload.error.message}`)),
  );
  // As in readTopic: every batch ends here, also one of transaction markers only, and
  // lastOffset() covers records the batch filtered out.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const plan = byPartition.get(payload.partition);
    if (payload.topic !== topic || plan === undefined) return;
    if (BigInt(payload.lastOffset) + 1n >= plan.readTo) close(payload.partition);
  });
  try {
    arm();
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        arm();
        const plan = byPartition.get(batch.partition);
        if (plan === undefined || !open.has(batch.partition)) return;
        const out: ConsumedRecord[] = [];
        for (const message of batch.messages) {
          const offset = BigInt(message.offset);
          if (offset < plan.start) continue;
          if (plan.cut && plan.firstKeptMs === null) {
            plan.firstKeptMs = Number(message.timestamp);
            // Read past the window only to learn that time.
            plan.readTo = plan.end;
          }
          if (offset >= plan.end) break;
          out.push(toRecord(topic, batch.partition, message, wanted, options.withoutValues === true));
        }
        count += out.length;
        if (out.length > 0) await options.onBatch(out);
        const last = BigInt(batch.lastOffset());
        if (last + 1n >= plan.readTo || (plan.firstKeptMs !== null && last + 1n >= plan.end))
          close(batch.partition);
      },
    });
    const idle = plans.filter((p) => !open.has(p.partition)).map((p) => p.partition);
    if (idle.length > 0) consumer.pause([{ topic, partitions: idle }]);
    for (const p of pending) consumer.seek({ topic, partition: p.partition, offset: String(p.start) });
    await finished;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect().catch(() => undefined);
  }
  return count;
}

function toRecord(
  topic: string,
  partition: number,
  message: KafkaMessage,
  wanted: ReadonlySet<string> | null,
  withoutValue: boolean,
): ConsumedRecord {
  const headers: Record<string, string> = {};
  const raw = message.headers;
  if (raw !== undefined) {
    for (const name in raw) {
      if (wanted !== null && !wanted.has(name)) continue;
      const v = raw[name];
      const value = Array.isArray(v) ? v[0] : v;
      if (value !== undefined) headers[name] = typeof value === 'string' ? value : value.toString('utf8');
    }
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString('utf8') : null,
    value: withoutValue ? null : message.value,
    headers,
    timestampMs: Number(message.timestamp),
  };
}
