import { setTimeout as sleep } from 'node:timers/promises';
import type { EventDataByType, LogFn } from '@hookstream/contracts';
import { type LostRange, lostRangeHeaders, lostRangeKey, POLICY_VERSION } from '@hookstream/delivery';
import type { PartitionGap, RecordPosition } from '@hookstream/kafka';
import { type NoticePublisher, noticeOptions } from '@hookstream/subscribers';

/** The dead-letter side of a gap: where its record is, and writing it. */
export interface GapLedger {
  /** The DLQ record already written for this key (an earlier look, before a crash); null if none. */
  find(key: string): Promise<RecordPosition | null>;
  /** Writes the record to the DLQ (acks=all) and says where it went. */
  write(key: string, headers: Record<string, string>): Promise<RecordPosition>;
}

export interface GapRecorderOptions {
  readonly subscriber: string;
  /** The subscriber's tenant, which its notices carry; undefined for a subscriber of none. */
  readonly tenant?: string | undefined;
  readonly eventsTopic: string;
  readonly dlqTopic: string;
  readonly ledger: GapLedger;
  /** The notice channel; null: the subscriber's fleet publishes none (tests). */
  readonly notices: (() => Promise<NoticePublisher>) | null;
  readonly log: LogFn;
  /** Counts the events lost once per gap (`hookstream_pusher_lost_events_total`). */
  readonly counted: (lostCount: number) => void;
  readonly noticeRetryMs?: readonly number[];
}

const NOTICE_RETRY_MS = [500, 2000, 5000] as const;

/**
 * Makes a gap evidence (docs/contract.md, "Dead letters are data"): one `lost` dead letter per
 * (topic, partition, first offset lost), written before the ledger moves past it; an error line,
 * the counter and a `subscriber.events_lost` notice. A gap found again (a crash before the commit
 * that followed it) finds its record and is neither written nor counted twice; its notice is sent
 * again with the same id, so a subscriber receives it once. A write that fails throws: nothing
 * moves past the gap.
 */
export class GapRecorder {
  readonly #options: GapRecorderOptions;

  constructor(options: GapRecorderOptions) {
    this.#options = options;
  }

  async record(gap: PartitionGap): Promise<void> {
    const { subscriber, dlqTopic, ledger, log } = this.#options;
    const range: LostRange = { ...gap, subscriber, policyVersion: POLICY_VERSION };
    const key = lostRangeKey(range);
    const where = {
      topic: gap.topic,
      partition: gap.partition,
      lostFrom: gap.lostFrom,
      lostTo: gap.lostTo,
      lostCount: gap.lostCount,
      lastCommitAt: gap.lastCommitAtMs === null ? null : new Date(gap.lastCommitAtMs).toISOString(),
    };
    const found = await ledger.find(key);
    const position = found ?? (await ledger.write(key, lostRangeHeaders(range)));
    const dlq = `${dlqTopic}:${position.partition}:${position.offset}`;
    if (found === null) {
      log('error', 'events lost: retention deleted them before the subscriber read them', { ...where, dlq });
      this.#options.counted(gap.lostCount);
    } else log('info', 'a gap found again is already recorded', { ...where, dlq });
    await this.#notify(gap, dlq);
  }

  /** The notice is best effort: the gap is durable in the DLQ already. */
  async #notify(gap: PartitionGap, dlq: string): Promise<void> {
    const { notices, subscriber, eventsTopic, log } = this.#options;
    if (notices === null) return;
    const data: EventDataByType['subscriber.events_lost'] = {
      subscriber,
      topic: gap.topic,
      partition: gap.partition,
      lost_from: String(gap.lostFrom),
      lost_to: String(gap.lostTo),
      lost_count: gap.lostCount,
      last_commit_at: gap.lastCommitAtMs === null ? null : new Date(gap.lastCommitAtMs).toISOString(),
      found_at: new Date(gap.foundAtMs).toISOString(),
      dlq,
      events_topic: eventsTopic,
    };
    // One id per gap: every replica (and a look after a crash) publishes the same notice.
    const id = `subscriber.events_lost:${subscriber}:${lostRangeKey(gap)}`;
    const retries = this.#options.noticeRetryMs ?? NOTICE_RETRY_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        await (await notices()).publish(
          'subscriber.events_lost',
          data,
          noticeOptions(id, { name: subscriber, tenant: this.#options.tenant }),
        );
        return;
      } catch (err) {
        const wait = retries[attempt];
        if (wait === undefined) {
          log('warn', 'could not publish subscriber.events_lost; the gap is in the DLQ all the same', {
            dlq,
            error: err instanceof Error ? err.message : String(err),
          });
          return;
        }
        await sleep(wait);
      }
    }
  }
}
