import { setTimeout as sleep } from 'node:timers/promises';
import type { DeadLetterReason, LogFn } from '@hookstream/contracts';
import {
  type Decision,
  type DeliveryTrail,
  deadLetterHeaders,
  retryHeaders,
  type TraceHeaders,
} from '@hookstream/delivery';
import type { ConsumedRecord, OutgoingRecord, RecordPosition, RecordSender } from '@hookstream/kafka';
import { MicroBatcher } from '@hookstream/producer';
import type { SubscriberTopology } from './subscriber-topology.ts';

export type RetryDecision = Extract<Decision, { action: 'retry' }>;

/**
 * What becomes of a record after a failed attempt. The ledger rule binds every implementation:
 * return `settled` only once the record's future is durable elsewhere; `abandoned` when the work
 * was stopped first (the record stays unsettled and is consumed again).
 */
export interface OutcomeRouter {
  /**
   * A retryable outcome with attempts left: the record waits in retry tier `decision.tier`.
   * `trace` is the hand-off span's context, which the written record carries instead of its own.
   */
  retry(
    record: ConsumedRecord,
    trail: DeliveryTrail,
    decision: RetryDecision,
    dueAtMs: number,
    signal: AbortSignal,
    trace?: TraceHeaders,
  ): Promise<'settled' | 'abandoned'>;
  /** A terminal, exhausted, expired or poison record. */
  deadLetter(
    record: ConsumedRecord,
    trail: DeliveryTrail,
    reason: DeadLetterReason,
    signal: AbortSignal,
    trace?: TraceHeaders,
  ): Promise<'settled' | 'abandoned'>;
}

const BACKOFF_MS = [200, 500, 1000, 2000, 5000] as const;
/** Under Kafka's 1 MiB record-batch limit with room for headers. */
const MAX_WRITE_BYTES = 512 * 1024;

/**
 * Hands failed records to the subscriber's retry tier topics and DLQ with the original key,
 * value and headers plus the delivery trail, and settles only after Kafka acknowledged the
 * write (acks=all). While Kafka cannot take the write it keeps trying; the record stays
 * unsettled, so a crash meanwhile means the attempt is repeated, never that the event is lost.
 * Concurrent failures to one topic share a write: a broker answers one request per connection
 * at a time, so a burst of single-record writes (retries falling due together) would queue.
 */
export class KafkaOutcomeRouter implements OutcomeRouter {
  readonly #topology: SubscriberTopology;
  readonly #sender: RecordSender;
  readonly #log: LogFn;
  readonly #ensureTopics: () => Promise<void>;
  readonly #writers = new Map<string, MicroBatcher<OutgoingRecord, RecordPosition>>();

  /**
   * `ensureTopics` makes sure the tier and DLQ topics exist before a write (see OwnTopics: made
   * when the subscriber starts, so settled from then on).
   */
  constructor(
    topology: SubscriberTopology,
    sender: RecordSender,
    log: LogFn,
    ensureTopics: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.#topology = topology;
    this.#sender = sender;
    this.#log = log;
    this.#ensureTopics = ensureTopics;
  }

  retry(
    record: ConsumedRecord,
    trail: DeliveryTrail,
    decision: RetryDecision,
    dueAtMs: number,
    signal: AbortSignal,
    trace: TraceHeaders = {},
  ): Promise<'settled' | 'abandoned'> {
    const topic = this.#topology.tierTopics[decision.tier - 1];
    if (topic === undefined)
      throw new RangeError(`no retry tier ${decision.tier} for ${this.#topology.name}`);
    return this.#write(topic, record, retryHeaders(record.headers, trail, dueAtMs, trace), signal);
  }

  deadLetter(
    record: ConsumedRecord,
    trail: DeliveryTrail,
    reason: DeadLetterReason,
    signal: AbortSignal,
    trace: TraceHeaders = {},
  ): Promise<'settled' | 'abandoned'> {
    const topic = this.#topology.dlqTopic;
    const headers = deadLetterHeaders(record.headers, trail, reason, Date.now(), trace);
    return this.#write(topic, record, headers, signal);
  }

  async #write(
    topic: string,
    record: ConsumedRecord,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<'settled' | 'abandoned'> {
    // The first write goes ahead even when stopping: the attempt was made, and making its
    // outcome durable now spares the endpoint a repeat. Only a write that keeps failing gives up.
    for (let failures = 0; ; failures++) {
      if (failures > 0 && signal.aborted) return 'abandoned';
      try {
        await this.#ensureTopics();
        await this.#writer(topic).submit([{ key: record.key, value: record.value, headers }]);
        return 'settled';
      } catch (err) {
        const wait = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)] ?? 5000;
        this.#log('warn', 'cannot hand the record on yet; it stays unsettled and is retried', {
          topic,
          from: `${record.topic}:${record.partition}:${record.offset}`,
          error: err instanceof Error ? err.message : String(err),
          retryInMs: wait,
        });
        try {
          await sleep(wait, undefined, { signal });
        } catch {
          return 'abandoned';
        }
      }
    }
  }

  #writer(topic: string): MicroBatcher<OutgoingRecord, RecordPosition> {
    let writer = this.#writers.get(topic);
    if (!writer) {
      const sender = this.#sender;
      writer = new MicroBatcher({
        flush: (records) => sender.send(topic, records),
        sizeOf: recordBytes,
        maxBatchBytes: MAX_WRITE_BYTES,
      });
      this.#writers.set(topic, writer);
    }
    return writer;
  }
}

/** About what a record weighs in a batch: a tier or DLQ record carries a score of headers. */
function recordBytes(record: OutgoingRecord): number {
  let bytes = (record.value?.length ?? 0) + (record.key?.length ?? 0) + 64;
  for (const name in record.headers) bytes += name.length + (record.headers[name]?.length ?? 0) + 8;
  return bytes;
}
