import {
  DEFAULT_RETENTION_WARNING_MS,
  type EventDataByType,
  type LogFn,
  type SubscriberRecord,
  subscriberNames,
} from '@hookstream/contracts';
import type { KafkaAdmin } from '@hookstream/kafka';
import {
  HeadroomCrossings,
  HeadroomReader,
  type NoticePublisher,
  noticeOptions,
  type PartitionHeadroom,
  retentionNoticeId,
  type TopicRetention,
} from '@hookstream/subscribers';

/** One headroom as the gauge gives it. */
export interface HeadroomPoint {
  readonly subscriber: string;
  readonly topic: string;
  readonly partition: number;
  readonly seconds: number;
}

/** Where the figures come from: a HeadroomReader on the admin, or a fake in unit tests. */
export type HeadroomSource = Pick<HeadroomReader, 'read'>;

export interface RetentionWatchOptions {
  readonly admin: KafkaAdmin;
  /** Default: a HeadroomReader on `admin`. */
  readonly reader?: HeadroomSource;
  readonly eventsTopic: string;
  /** The subscribers to watch now, whatever their state (a fleet: its catalog's, as `--match` covers). */
  readonly subscribers: () => readonly SubscriberRecord[];
  /** The notice channel; null: none is published (tests). */
  readonly notices: (() => Promise<NoticePublisher>) | null;
  readonly log: LogFn;
  /** How often it looks (default 60 s). */
  readonly everyMs?: number;
  readonly now?: () => number;
}

/** A minute: retention is measured in hours and days, and a look costs a ledger read per subscriber. */
export const DEFAULT_RETENTION_CHECK_MS = 60_000;

/**
 * Watches the retention headroom of every subscriber it is given, paused, disabled and active
 * alike (docs/operations.md, "Retention headroom"): each look reads their ledgers on the events
 * topic (one committed-offsets read per subscriber; the topic's figures and the records at the
 * ledgers are shared and cached), keeps the figures for the gauge, and publishes
 * `subscriber.retention_at_risk` once per crossing of a subscriber's `retentionWarningMs`. Every
 * fleet instance watches what its `--match` covers; the notice id names the crossing by its
 * ledger offset, so the instances send one notice between them.
 */
export class RetentionWatch {
  readonly #options: RetentionWatchOptions;
  readonly #reader: HeadroomSource;
  readonly #crossings = new HeadroomCrossings();
  #points: readonly HeadroomPoint[] = [];
  #lookedAtMs: number | null = null;
  #timer: NodeJS.Timeout | undefined;
  #looking: Promise<void> | null = null;
  #failing = false;
  #stopped = false;

  constructor(options: RetentionWatchOptions) {
    this.#options = options;
    this.#reader = options.reader ?? new HeadroomReader(options.admin, options.eventsTopic);
  }

  /** Looks now (in the background) and then every few minutes. */
  start(): void {
    void this.look();
    this.#timer = setInterval(() => void this.look(), this.#options.everyMs ?? DEFAULT_RETENTION_CHECK_MS);
    this.#timer.unref();
  }

  /** The headroom per subscriber and partition from the last look (unbounded ones left out). */
  points(): readonly HeadroomPoint[] {
    return this.#points;
  }

  /** When the last look that succeeded began; null before the first. */
  lookedAtMs(): number | null {
    return this.#lookedAtMs;
  }

  /** One look; a failure keeps the last figures and is logged once until looks succeed again. */
  look(): Promise<void> {
    this.#looking ??= this.#look()
      .then(
        () => {
          this.#failing = false;
        },
        (err: unknown) => {
          if (!this.#failing && !this.#stopped)
            this.#options.log('warn', 'cannot read the retention headroom; the gauge keeps its last values', {
              topic: this.#options.eventsTopic,
              error: err instanceof Error ? err.message : String(err),
            });
          this.#failing = true;
        },
      )
      .finally(() => {
        this.#looking = null;
      });
    return this.#looking;
  }

  /**
   * Stops looking. A look in progress is left to end by itself and sends nothing: a look over a
   * thousand groups on a busy machine can outlast the pod's grace period, which the subscribers'
   * own stop (their last commits) needs.
   */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#stopped = true;
  }

  async #look(): Promise<void> {
    const { eventsTopic } = this.#options;
    const records = this.#options.subscribers();
    const nowMs = (this.#options.now ?? Date.now)();
    const byGroup = new Map(records.map((r) => [subscriberNames(r.definition).group, r]));
    const reading = await this.#reader.read([...byGroup.keys()], nowMs);
    if (this.#stopped) return;
    this.#crossings.keepOnly(new Set(records.map((r) => r.definition.name)));
    const points: HeadroomPoint[] = [];
    const due: Promise<void>[] = [];
    for (const [group, partitions] of reading.groups) {
      const record = byGroup.get(group);
      if (record === undefined || reading.retention === null) continue;
      for (const p of partitions) {
        if (p.headroom?.kind !== 'bounded' || p.committed === null) continue;
        const subscriber = record.definition.name;
        points.push({ subscriber, topic: eventsTopic, partition: p.partition, seconds: p.headroom.seconds });
        const warningMs = record.definition.retentionWarningMs ?? DEFAULT_RETENTION_WARNING_MS;
        // Nothing owed is never at risk, whatever the retention: the next record has all of it.
        const owed = p.recordTimestampMs !== null || p.headroom.seconds === 0;
        const place = { subscriber, topic: eventsTopic, partition: p.partition };
        const crossed = this.#crossings.look(
          place,
          p.committed,
          owed && p.headroom.seconds * 1000 < warningMs,
        );
        if (crossed !== null) due.push(this.#notify(record, p, reading.retention, warningMs, nowMs));
      }
    }
    this.#points = points;
    await Promise.all(due);
    this.#lookedAtMs = nowMs;
  }

  /** Best effort: one that cannot be sent is tried again at the next look, under the same id. */
  async #notify(
    record: SubscriberRecord,
    p: PartitionHeadroom,
    retention: TopicRetention,
    warningMs: number,
    nowMs: number,
  ): Promise<void> {
    const { eventsTopic, log, notices } = this.#options;
    const subscriber = record.definition.name;
    const place = { subscriber, topic: eventsTopic, partition: p.partition };
    const offset = p.committed ?? 0;
    if (p.headroom?.kind !== 'bounded') return;
    const data: EventDataByType['subscriber.retention_at_risk'] = {
      subscriber,
      state: record.state.kind,
      topic: eventsTopic,
      partition: p.partition,
      offset: String(offset),
      record_timestamp: p.recordTimestampMs === null ? null : new Date(p.recordTimestampMs).toISOString(),
      headroom_seconds: p.headroom.seconds,
      basis: p.headroom.basis,
      retention_ms: retention.retentionMs,
      retention_bytes: retention.retentionBytes,
      warning_ms: warningMs,
      seen_at: new Date(nowMs).toISOString(),
      events_topic: eventsTopic,
    };
    const where = {
      subscriber,
      state: record.state.kind,
      topic: eventsTopic,
      partition: p.partition,
      offset,
      headroomSeconds: p.headroom.seconds,
      basis: p.headroom.basis,
      warningMs,
    };
    if (notices === null) {
      log('warn', 'retention headroom below the warning threshold', where);
      return;
    }
    try {
      await (await notices()).publish(
        'subscriber.retention_at_risk',
        data,
        noticeOptions(retentionNoticeId(place, offset), record.definition),
      );
      log(
        'warn',
        'retention headroom below the warning threshold; subscriber.retention_at_risk published',
        where,
      );
    } catch (err) {
      // This process already sent that id (the same crossing, seen again after a recovery at the
      // same offset): the subscriber has it; its data differs only by when it was seen.
      if ((err as { code?: unknown }).code === 'ID_CONFLICT') return;
      this.#crossings.unsent(place);
      log(
        'warn',
        'retention headroom below the warning threshold; its notice could not be published (tried again)',
        {
          ...where,
          error: err instanceof Error ? err.message : String(err),
        },
      );
    }
  }
}
