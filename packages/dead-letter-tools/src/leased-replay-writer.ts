import { replayLogTopicName, replayTransactionalId } from '@hookstream/contracts';
import {
  type KafkaConnection,
  type OutgoingRecord,
  type RecordPosition,
  TransactionalWriter,
} from '@hookstream/kafka';
import { type LeaseHolder, leaseRecord, leaseRelease } from '@hookstream/replay';

/**
 * A replay's writes while it holds its subscriber's lease. Taking it takes the subscriber's
 * replay transactional id, which fences any earlier run (its next write fails with
 * KAFKA_FENCED), and commits the lease record, so the next run is told who replays. Every chunk
 * is one transaction: the tier-1 records, their replay-log entries and the refreshed lease,
 * visible together or not at all.
 */
export class LeasedReplayWriter {
  readonly #writer: TransactionalWriter;
  readonly #holder: LeaseHolder;
  readonly #logTopic: string;
  readonly #sinceMs: number;

  private constructor(kafka: KafkaConnection, holder: LeaseHolder, sinceMs: number) {
    this.#holder = holder;
    this.#sinceMs = sinceMs;
    this.#logTopic = replayLogTopicName(holder.subscriber);
    this.#writer = new TransactionalWriter(kafka, {
      transactionalId: replayTransactionalId(holder.subscriber),
    });
  }

  /** Fences every earlier run of the subscriber's replays and records `holder` as the lease's. */
  static async take(kafka: KafkaConnection, holder: LeaseHolder): Promise<LeasedReplayWriter> {
    const leased = new LeasedReplayWriter(kafka, holder, Date.now());
    try {
      await leased.#writer.connect();
      await leased.refresh();
    } catch (err) {
      await leased.close();
      throw err;
    }
    return leased;
  }

  /**
   * Writes `records` to the tier and `entries(positions)` to the replay log with the refreshed
   * lease, in one transaction; resolves with the tier positions once it is committed.
   */
  chunk(
    tierTopic: string,
    records: readonly OutgoingRecord[],
    entries: (positions: readonly RecordPosition[]) => readonly OutgoingRecord[],
  ): Promise<RecordPosition[]> {
    return this.#writer.transaction(async (txn) => {
      const positions = await txn.send(tierTopic, records);
      await txn.send(this.#logTopic, [...entries(positions), this.#lease()]);
      return positions;
    });
  }

  /** Moves the lease's expiry on (a chunk does it too). */
  refresh(): Promise<void> {
    return this.#writer.transaction(async (txn) => void (await txn.send(this.#logTopic, [this.#lease()])));
  }

  /** Gives the lease back, so the next run need not wait for it to expire. */
  release(): Promise<void> {
    return this.#writer.transaction(
      async (txn) => void (await txn.send(this.#logTopic, [{ ...leaseRelease(), headers: {} }])),
    );
  }

  close(): Promise<void> {
    return this.#writer.disconnect().catch(() => undefined);
  }

  #lease(): OutgoingRecord {
    const { key, value } = leaseRecord(this.#holder, this.#sinceMs, Date.now());
    return { key, value, headers: {} };
  }
}
