import { HS_HEADER } from '@hookstream/contracts';
import { type ConsumedRecord, type KafkaConnection, readTopic } from '@hookstream/kafka';
import type { UnsettledRange } from './consume/subscriber-consumer.ts';

/**
 * How much earlier than a commit's `openSince` copies are looked for: that time is the clock of
 * the member that committed, and a copy's timestamp its producer's (the same process, unless the
 * broker sets LogAppendTime); the margin covers a clock that stepped between the two.
 */
export const CLOCK_SKEW_MS = 60_000;
/** One look at one of the subscriber's topics gives up after this long (the join then goes on without). */
const READ_TIMEOUT_MS = 30_000;

/**
 * Of `records` read from a subscriber's tiers and DLQ, the source positions (headers
 * `hookstream_source_*`, which every copy carries) that fall in `ranges`, by `topic:partition`.
 */
export function copiedOffsets(
  records: Iterable<ConsumedRecord>,
  ranges: readonly UnsettledRange[],
): Map<string, number[]> {
  const found = new Map<string, Set<number>>();
  for (const record of records) {
    const at = sourceOf(record, ranges);
    if (at === null) continue;
    const key = `${at.topic}:${at.partition}`;
    const offsets = found.get(key) ?? new Set<number>();
    offsets.add(at.offset);
    found.set(key, offsets);
  }
  return new Map([...found].map(([key, offsets]) => [key, [...offsets].sort((a, b) => a - b)]));
}

/** The record's source position when it is one of `ranges`' records; else null. */
function sourceOf(
  record: ConsumedRecord,
  ranges: readonly UnsettledRange[],
): { topic: string; partition: number; offset: number } | null {
  const topic = record.headers[HS_HEADER.sourceTopic];
  const partition = Number(record.headers[HS_HEADER.sourcePartition]);
  const offset = Number(record.headers[HS_HEADER.sourceOffset]);
  if (topic === undefined || !Number.isInteger(partition) || !Number.isInteger(offset)) return null;
  // A copy older than its own range's openSince is an earlier chain's (before a rewind, or of a
  // subscriber deleted and made again), never one of these records' copies.
  const inRange = ranges.some(
    (r) =>
      r.topic === topic &&
      r.partition === partition &&
      offset >= r.from &&
      offset < r.to &&
      record.timestampMs >= r.sinceMs - CLOCK_SKEW_MS,
  );
  return inRange ? { topic, partition, offset } : null;
}

/** Which topics hold a record written at or after a time: KafkaAdmin.topicsWrittenSince. */
export interface WrittenSince {
  topicsWrittenSince(topics: readonly string[], timestampMs: number): Promise<Set<string>>;
}

/**
 * Finds, at a join, the records above the ledger whose copy a killed member already wrote to a
 * tier or the DLQ (SubscriberConsumerOptions.copies). Each of the subscriber's own topics is read
 * from the oldest `openSince` of the ranges (less the clock skew) to its end, keeping only copies
 * of those records: the cost is what the subscriber wrote downstream since then.
 */
export class DownstreamCopies {
  readonly #kafka: KafkaConnection;
  readonly #written: WrittenSince;
  readonly #topics: () => readonly string[];

  /**
   * `topics`: the subscriber's tiers and DLQ that exist, as of the join. `written`: the process's
   * shared admin, asked first which of them hold anything that recent.
   */
  constructor(kafka: KafkaConnection, written: WrittenSince, topics: () => readonly string[]) {
    this.#kafka = kafka;
    this.#written = written;
    this.#topics = topics;
  }

  find = async (ranges: readonly UnsettledRange[]): Promise<Map<string, number[]>> => {
    if (ranges.length === 0 || this.#topics().length === 0) return new Map();
    const sinceMs = Math.min(...ranges.map((r) => r.sinceMs)) - CLOCK_SKEW_MS;
    // Each read below is a reader of its own (an admin, a group): at a fleet's rebalance every
    // subscriber behind its end looks, and most of its topics hold nothing written since then.
    const written = await this.#written.topicsWrittenSince(this.#topics(), sinceMs);
    const topics = this.#topics().filter((t) => written.has(t));
    if (topics.length === 0) return new Map();
    const read = await Promise.all(
      topics.map((topic) =>
        readTopic(this.#kafka, {
          topic,
          from: { timestampMs: sinceMs },
          keep: (record) => sourceOf(record, ranges) !== null,
          purpose: 'copy-check',
          timeoutMs: READ_TIMEOUT_MS,
        }),
      ),
    );
    return copiedOffsets(read.flat(), ranges);
  };
}
