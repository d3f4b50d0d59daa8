import { setTimeout as sleep } from 'node:timers/promises';
import { Semaphore } from '@hookstream/concurrency';
import type { Batch, Consumer, EachBatchPayload } from 'kafkajs';
import { type ConsumedRecord, toConsumedRecord } from './consumed-record.ts';
import { DueGate } from './due-gate.ts';
import { explained, explainKafkaError } from './kafka-access-error.ts';
import type { KafkaConnection } from './kafka-connection.ts';
import { OffsetTracker } from './offset-tracker.ts';
import { accessOf, kafkaOf } from './raw-client.ts';
import { prepareStart, type StartedFrom, type StartFrom } from './start-position.ts';

/**
 * `settled`: the record's outcome is durable (acknowledged, or handed to a retry tier or the
 * DLQ) and may enter the ledger. `abandoned`: work stopped (shutdown, rebalance) before that;
 * the record stays below the ledger and is delivered again by whoever owns the partition next.
 */
export type HandlerOutcome = 'settled' | 'abandoned';

export type RecordHandler = (record: ConsumedRecord, signal: AbortSignal) => Promise<HandlerOutcome>;

export type LogFn = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

export interface SubscriberConsumerOptions {
  readonly kafka: KafkaConnection;
  readonly groupId: string;
  /** The events topic; its start position is prepared for a brand-new group. */
  readonly topic: string;
  /**
   * More topics the same group reads (a subscriber's retry tiers), from their beginning when the
   * group has no ledger entry for them yet.
   */
  readonly extraTopics?: readonly string[];
  /**
   * When a record may be handed over (ms since epoch), or null for at once. A partition whose
   * next record is not due yet is paused until it is, so waiting never holds a fetch slot.
   */
  readonly dueAtMs?: (record: ConsumedRecord) => number | null;
  readonly start: StartFrom;
  /** `key`: at most one record per key in flight, so one key's records settle in order. */
  readonly ordering: 'none' | 'key';
  /** Records of one partition in flight at once. */
  readonly maxInFlightPerPartition: number;
  readonly partitionsConsumedConcurrently?: number;
  readonly handle: RecordHandler;
  readonly log: LogFn;
  /** Called when kafkajs gives up (a crash it will not restart from); the process should exit. */
  readonly onFatal: (error: Error) => void;
  /** How long a fetch waits for data; small keeps latency low when partitions are idle. */
  readonly maxWaitTimeInMs?: number;
  /**
   * At most this many bytes per fetch response (kafkajs default 10 MiB, 1 MiB per partition).
   * Every group holds its own fetched batches, so a process with many groups bounds this.
   */
  readonly fetchMaxBytes?: number | undefined;
  readonly sessionTimeoutMs?: number;
}

const COMMIT_EVERY_MS = 1000;
const DRAIN_POLL_MS = 50;
const HEARTBEAT_EVERY_MS = 1000;

/**
 * One subscriber's consumer group on the events topic. Records of a partition run concurrently
 * (or one per key), and the ledger only ever moves over the contiguous settled prefix, so a crash
 * at any moment can cause redelivery but never loss.
 */
export class SubscriberConsumer {
  readonly #options: SubscriberConsumerOptions;
  readonly #consumer: Consumer;
  readonly #batches = new Set<AbortController>();
  readonly #gate: DueGate | null;
  /**
   * Unsettled records this instance holds, per `topic:partition`: offset → Kafka timestamp of
   * records begun and not settled, including tier records waiting until due. Only read when
   * metrics are scraped; entries of abandoned records stay until the record settles or the group
   * rebalances (the partition may have moved).
   */
  readonly #pending = new Map<string, { topic: string; records: Map<number, number> }>();
  #stopping = false;
  /** Rejects start() while it waits for the first fetch. */
  #startFailed: ((error: Error) => void) | null = null;
  #draining = false;

  constructor(options: SubscriberConsumerOptions) {
    this.#options = options;
    this.#gate = options.dueAtMs ? new DueGate(options.dueAtMs) : null;
    this.#consumer = kafkaOf(options.kafka).consumer({
      groupId: options.groupId,
      maxWaitTimeInMs: options.maxWaitTimeInMs ?? 500,
      ...(options.fetchMaxBytes === undefined
        ? {}
        : { maxBytes: options.fetchMaxBytes, maxBytesPerPartition: options.fetchMaxBytes }),
      sessionTimeout: options.sessionTimeoutMs ?? 30_000,
      // Short heartbeats keep rebalances quick when an instance joins or leaves.
      heartbeatInterval: 3000,
    });
    const { CRASH, GROUP_JOIN, REBALANCING } = this.#consumer.events;
    this.#consumer.on(CRASH, ({ payload }) => {
      options.log('error', 'consumer crashed', { error: payload.error.message, restart: payload.restart });
      if (payload.restart) return;
      const action = `read topic ${options.topic} as group ${options.groupId}`;
      const error = explainKafkaError(payload.error, accessOf(options.kafka, action)) ?? payload.error;
      this.#startFailed?.(error);
      options.onFatal(error);
    });
    this.#consumer.on(GROUP_JOIN, ({ payload }) =>
      options.log('info', 'joined group', { groupId: payload.groupId, assignment: payload.memberAssignment }),
    );
    this.#consumer.on(REBALANCING, () => {
      this.#pending.clear();
      options.log('info', 'group is rebalancing');
    });
  }

  /**
   * Per topic, the Kafka timestamp (ms) of the oldest record this instance holds unsettled: in
   * flight, or waiting in a tier until due. Topics with none are absent.
   */
  oldestUnsettled(): Map<string, number> {
    const oldest = new Map<string, number>();
    for (const { topic, records } of this.#pending.values())
      for (const ts of records.values()) {
        const seen = oldest.get(topic);
        if (seen === undefined || ts < seen) oldest.set(topic, ts);
      }
    return oldest;
  }

  /** Joins the group (after positioning a brand-new one) and starts consuming. */
  async start(): Promise<StartedFrom> {
    const { kafka, groupId, topic, start } = this.#options;
    const admin = kafkaOf(kafka).admin();
    await explained(() => admin.connect(), accessOf(kafka, 'connect'));
    let startedFrom: StartedFrom;
    try {
      startedFrom = await prepareStart(kafkaOf(kafka), admin, groupId, topic, start);
    } finally {
      await admin.disconnect();
    }
    await explained(() => this.#consumer.connect(), accessOf(kafka, 'connect'));
    // Only partitions without a ledger entry use this: those added after the group began.
    await this.#consumer.subscribe({
      topics: [topic, ...(this.#options.extraTopics ?? [])],
      fromBeginning: true,
    });
    // The first completed fetch means the group was joined and every partition's position
    // resolved: from here on a 'latest' subscriber sees everything produced.
    // A crash before then (a missing ACL, say) fails start() instead of leaving it waiting.
    const fetched = new Promise<void>((resolve, reject) => {
      this.#startFailed = reject;
      const remove = this.#consumer.on(this.#consumer.events.FETCH, () => {
        remove();
        resolve();
      });
    });
    await this.#consumer.run({
      eachBatchAutoResolve: false,
      autoCommitInterval: COMMIT_EVERY_MS,
      partitionsConsumedConcurrently: this.#options.partitionsConsumedConcurrently ?? 4,
      eachBatch: (payload) => this.#eachBatch(payload),
    });
    try {
      await fetched;
    } finally {
      this.#startFailed = null;
    }
    return startedFrom;
  }

  /**
   * Stops taking work, abandons waits (in-flight HTTP attempts finish within their timeout),
   * commits the settled prefix and leaves the group.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#draining = true;
    this.#gate?.stop();
    for (const controller of this.#batches) controller.abort();
    await this.#consumer.disconnect();
  }

  /**
   * Starts no more records and waits until every record begun has ended on its own (nothing is
   * aborted), so a stop right after abandons nothing: for leaving the group to rejoin it with
   * other topics without repeating work. Records not begun are fetched again after the rejoin.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    while (this.#batches.size > 0) await sleep(DRAIN_POLL_MS);
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary, pause } = payload;
    const controller = new AbortController();
    this.#batches.add(controller);
    let failure: unknown = null;
    const shouldStop = () => this.#stopping || failure !== null || !isRunning() || isStale();
    let lastBeat = Date.now();
    let beating = false;
    // kafkajs heartbeats and commits only when eachBatch calls it, and a batch may run for long
    // (retry delays, a slow limiter), so the watchdog does both about once a second: the ledger
    // then trails deliveries by a second, not by a whole batch. A failed heartbeat or commit means
    // the group is rebalancing: the batch stops and the error goes back to kafkajs, which rejoins.
    // Waits inside handlers end as soon as the batch must stop.
    const watchdog = setInterval(() => {
      if (shouldStop()) controller.abort();
      else if (!beating && Date.now() - lastBeat >= HEARTBEAT_EVERY_MS) {
        lastBeat = Date.now();
        beating = true;
        heartbeat()
          .then(() => commitOffsetsIfNecessary())
          .catch((err: unknown) => {
            failure ??= err;
            controller.abort();
          })
          .finally(() => {
            beating = false;
          });
      }
    }, 200);
    const tracker = new OffsetTracker();
    const partitionKey = `${batch.topic}:${batch.partition}`;
    let pending = this.#pending.get(partitionKey);
    if (!pending) {
      pending = { topic: batch.topic, records: new Map() };
      this.#pending.set(partitionKey, pending);
    }
    const held = pending.records;
    const slots = new Semaphore(this.#options.maxInFlightPerPartition);
    const inFlight = new Set<Promise<void>>();
    const keyTails = new Map<string, Promise<unknown>>();
    const gate = this.#gate;
    const ahead = gate?.settledAhead(batch.topic, batch.partition, Number(batch.firstOffset() ?? 0));
    const settle = (offset: number) => {
      held.delete(offset);
      const prefix = tracker.settle(offset);
      if (prefix !== null) resolveOffset(String(prefix));
      if (prefix === null || prefix < offset) ahead?.add(offset);
    };
    let earliestWaiting: number | null = null;
    let started = 0;
    const horizon = gate?.horizon() ?? 0;
    try {
      for (const message of batch.messages) {
        if (shouldStop() || this.#draining) break;
        const offset = Number(message.offset);
        const record = toConsumedRecord(batch.topic, batch.partition, message);
        if (gate) {
          if (ahead?.has(offset)) {
            tracker.begin(offset);
            settle(offset);
            continue;
          }
          const dueAt = gate.dueLater(record, horizon);
          if (dueAt !== null) {
            // Begun and left unsettled: the committed prefix stops here until it is delivered.
            tracker.begin(offset);
            held.set(offset, record.timestampMs);
            earliestWaiting = Math.min(earliestWaiting ?? dueAt, dueAt);
            continue;
          }
          if (!(await gate.waitUntilDue(record, controller.signal))) break;
        }
        const waiting = slots.acquire();
        if (waiting) await waiting;
        if (shouldStop() || this.#draining) {
          slots.release();
          break;
        }
        tracker.begin(offset);
        held.set(offset, record.timestampMs);
        started++;
        const task = this.#run(record, controller.signal, keyTails).then(
          (outcome) => {
            if (outcome === 'settled') settle(offset);
          },
          (err: unknown) =>
            this.#options.log('error', 'record handler failed; the record stays unsettled', {
              ...where(batch, offset),
              error: err instanceof Error ? err.message : String(err),
            }),
        );
        const tracked = task.finally(() => {
          slots.release();
          inFlight.delete(tracked);
        });
        inFlight.add(tracked);
      }
    } catch (err) {
      failure ??= err;
      controller.abort();
    }
    // Paused only when this batch started nothing: otherwise records past the end of this batch
    // may be due already, and the next fetch (from the prefix) looks at them.
    if (gate && earliestWaiting !== null && started === 0 && failure === null)
      gate.pauseUntil(pause, earliestWaiting);
    // The next fetch starts after the last resolved offset, so every begun record must end here.
    await Promise.all(inFlight);
    clearInterval(watchdog);
    this.#batches.delete(controller);
    if (tracker.unsettled > 0 && earliestWaiting === null)
      this.#options.log('info', 'batch ended with unsettled records; they will be delivered again', {
        topic: batch.topic,
        partition: batch.partition,
        unsettled: tracker.unsettled,
        committable: tracker.committable,
      });
    if (failure !== null) throw failure;
  }

  #run(
    record: ConsumedRecord,
    signal: AbortSignal,
    keyTails: Map<string, Promise<unknown>>,
  ): Promise<HandlerOutcome> {
    if (this.#options.ordering === 'none' || record.key === null) return this.#options.handle(record, signal);
    const key = record.key;
    const previous = keyTails.get(key);
    // The next record of the key starts only after this one ended (settled or abandoned);
    // once one is abandoned, later ones of the key must not overtake it.
    const run: Promise<HandlerOutcome> = previous
      ? previous.then((prev) =>
          prev === 'settled' ? this.#options.handle(record, signal) : ('abandoned' as const),
        )
      : this.#options.handle(record, signal);
    const tail = run.catch(() => 'abandoned' as const);
    keyTails.set(key, tail);
    void tail.then(() => {
      if (keyTails.get(key) === tail) keyTails.delete(key);
    });
    return run;
  }
}

function where(batch: Batch, offset: number): Record<string, unknown> {
  return { topic: batch.topic, partition: batch.partition, offset };
}
