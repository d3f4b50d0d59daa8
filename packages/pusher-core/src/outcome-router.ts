import { setTimeout as sleep } from 'node:timers/promises';
import type { DeadLetterReason } from '@hookstream/contracts';
import {
  type Decision,
  type DeliveryTrail,
  deadLetterHeaders,
  retryHeaders,
  type TraceHeaders,
} from '@hookstream/delivery';
import type { ConsumedRecord, LogFn, RecordSender } from '@hookstream/kafka';
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

/**
 * Hands failed records to the subscriber's retry tier topics and DLQ with the original key,
 * value and headers plus the delivery trail, and settles only after Kafka acknowledged the
 * write (acks=all). While Kafka cannot take the write it keeps trying; the record stays
 * unsettled, so a crash meanwhile means the attempt is repeated, never that the event is lost.
 */
export class KafkaOutcomeRouter implements OutcomeRouter {
  readonly #topology: SubscriberTopology;
  readonly #sender: RecordSender;
  readonly #log: LogFn;

  constructor(topology: SubscriberTopology, sender: RecordSender, log: LogFn) {
    this.#topology = topology;
    this.#sender = sender;
    this.#log = log;
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
    for (let failures = 0; ; failures++) {
      if (signal.aborted) return 'abandoned';
      try {
        await this.#sender.send(topic, [{ key: record.key, value: record.value, headers }]);
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
}
