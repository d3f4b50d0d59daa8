import { setTimeout as sleep } from 'node:timers/promises';
import { ATTEMPT_LOG_TOPIC, type AttemptLogEntry, attemptEntriesOf, type LogFn } from '@hookstream/contracts';
import { type FollowedBatch, KafkaAdmin, type KafkaConnection, TopicFollower } from '@hookstream/kafka';
import type { ApplyResult } from './contracts.ts';
import { DEFAULT_RETENTION_MS, type PortalStore } from './portal-store.ts';

/** How often the indexer drops messages past the retention (and once when it has caught up). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** How often a missing attempt log is looked for (the first pusher to start makes it). */
const TOPIC_LOOK_EVERY_MS = 2000;

export interface AttemptIndexerOptions {
  readonly store: PortalStore;
  /** Default ATTEMPT_LOG_TOPIC. */
  readonly topic?: string;
  /** Records that are not attempt log entries (skipped and counted), and failed prunes. */
  readonly log?: LogFn;
  /** Messages whose latest step is older are pruned (default DEFAULT_RETENTION_MS). */
  readonly retentionMs?: number;
  /** How long an idle fetch waits (default 500 ms). */
  readonly maxWaitTimeInMs?: number;
  /**
   * A partition the store has no position for starts at its first record at or after this time
   * (ms), not at the log's start: a new index of a long log, or a test's, reads only the recent part.
   */
  readonly sinceMs?: number;
}

/** How far indexing has come. */
export interface IndexerProgress {
  /** Entries indexed (replays of stored ones not counted). */
  readonly applied: number;
  readonly duplicates: number;
  /** Entries of events without a tenant, not kept. */
  readonly untenanted: number;
  /** Records that were not attempt log entries. */
  readonly invalid: number;
  /** Records the log holds that are not indexed yet, as of the latest fetch of each partition. */
  readonly lag: number;
}

/**
 * Follows the attempt log into a PortalStore. It resumes where the store's positions say: the
 * positions commit in the same transaction as the rows (PortalStore.apply), so nothing is
 * indexed twice or skipped across restarts, with no consumer group offsets involved (its group
 * is throwaway and never commits). Each API process keeps its own index from the same log.
 */
export class AttemptIndexer {
  readonly #store: PortalStore;
  readonly #topic: string;
  readonly #follower: TopicFollower;
  readonly #options: AttemptIndexerOptions;
  readonly #behind = new Map<number, bigint>();
  #counts = { applied: 0, duplicates: 0, untenanted: 0, invalid: 0 };
  #pruneTimer: NodeJS.Timeout | undefined;
  readonly #stopping = new AbortController();
  readonly #connection: KafkaConnection;
  /** Where each partition starts: the store's positions, and `sinceMs`'s for the others. */
  readonly #startAt: Map<number, string>;

  constructor(connection: KafkaConnection, options: AttemptIndexerOptions) {
    this.#store = options.store;
    this.#topic = options.topic ?? ATTEMPT_LOG_TOPIC;
    this.#options = options;
    this.#connection = connection;
    this.#startAt = this.#store.positions(this.#topic);
    this.#follower = new TopicFollower(connection, {
      topic: this.#topic,
      purpose: 'portal-index',
      startAt: this.#startAt,
      onBatch: (batch) => this.#index(batch),
      ...(options.maxWaitTimeInMs === undefined ? {} : { maxWaitTimeInMs: options.maxWaitTimeInMs }),
    });
  }

  /**
   * Resolves once the log as it was at the call is indexed; prunes then and every hour. On a
   * stack where no pusher has run yet there is no attempt log: it waits for one (or stop()).
   */
  async start(): Promise<void> {
    if (!(await this.#topicMade())) return;
    if (this.#options.sinceMs !== undefined) await this.#startSince(this.#options.sinceMs);
    await this.#follower.start();
    void this.#prune();
    this.#pruneTimer = setInterval(() => void this.#prune(), PRUNE_EVERY_MS).unref();
  }

  async #startSince(sinceMs: number): Promise<void> {
    const admin = this.#connection.admin();
    await admin.connect();
    try {
      for (const { partition, offset } of await admin.offsetsAt(this.#topic, sinceMs))
        if (!this.#startAt.has(partition)) this.#startAt.set(partition, offset);
    } finally {
      await admin.disconnect();
    }
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    clearInterval(this.#pruneTimer);
    await this.#follower.stop();
  }

  /**
   * Applies the batch, trying again (1 s, doubling to 30 s) while the store refuses it (a full
   * disk, a locked file): the partition waits, and nothing is skipped, since its position moves
   * only with its rows. Null when stopped first.
   */
  async #stored(entries: readonly AttemptLogEntry[], batch: FollowedBatch): Promise<ApplyResult | null> {
    const position = { topic: this.#topic, partition: batch.partition, nextOffset: batch.nextOffset };
    for (let waitMs = 1000; ; waitMs = Math.min(waitMs * 2, 30_000)) {
      try {
        return this.#store.apply(entries, [position]);
      } catch (err) {
        this.#options.log?.('error', 'portal index: a batch could not be stored; trying again', {
          partition: batch.partition,
          nextOffset: batch.nextOffset,
          retryInMs: waitMs,
          error: err instanceof Error ? err.message : String(err),
        });
        if (await this.#stoppedWithin(waitMs)) return null;
      }
    }
  }

  /** Waits; true when stop() came first. */
  async #stoppedWithin(ms: number): Promise<boolean> {
    return sleep(ms, false, { signal: this.#stopping.signal }).catch(() => true);
  }

  /** True once the topic exists; false when stopped first. */
  async #topicMade(): Promise<boolean> {
    const admin = new KafkaAdmin(this.#connection);
    await admin.connect();
    try {
      while (!(await admin.topicExists(this.#topic)))
        if (await this.#stoppedWithin(TOPIC_LOOK_EVERY_MS)) return false;
      return !this.#stopping.signal.aborted;
    } finally {
      await admin.disconnect();
    }
  }

  async #prune(): Promise<void> {
    try {
      await this.#store.prune(this.#options.retentionMs ?? DEFAULT_RETENTION_MS);
    } catch (err) {
      this.#options.log?.('warn', 'portal index: pruning failed; it is tried again within the hour', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  progress(): IndexerProgress {
    return { ...this.#counts, lag: this.lag() };
  }

  /** Records behind the log's end, as of each partition's latest fetch. */
  lag(): number {
    let sum = 0n;
    for (const behind of this.#behind.values()) sum += behind;
    return Number(sum);
  }

  async #index(batch: FollowedBatch): Promise<void> {
    const entries: AttemptLogEntry[] = [];
    for (const record of batch.records) {
      const read = attemptEntriesOf(record.value);
      entries.push(...read.entries);
      if (read.why !== undefined) {
        this.#counts.invalid += read.invalid;
        this.#options.log?.(
          'warn',
          'portal index: an attempt log record held something that is not an entry; skipped',
          {
            topic: this.#topic,
            partition: batch.partition,
            offset: record.offset,
            why: read.why,
          },
        );
      }
    }
    const result = await this.#stored(entries, batch);
    if (result === null) return;
    this.#counts.applied += result.applied;
    this.#counts.duplicates += result.duplicates;
    this.#counts.untenanted += result.untenanted;
    const behind = BigInt(batch.highWatermark) - BigInt(batch.nextOffset);
    this.#behind.set(batch.partition, behind > 0n ? behind : 0n);
  }
}
