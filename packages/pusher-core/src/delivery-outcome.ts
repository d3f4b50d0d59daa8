import type { DeadLetterReason, RecordLocation } from '@hookstream/contracts';
import type { Classification, DeliveryTrail } from '@hookstream/delivery';
import type { ConsumedRecord } from '@hookstream/kafka';
import type { ProcessSpan } from '@hookstream/telemetry';

/** One HTTP attempt, as the steps after it need it. */
export interface AttemptSummary {
  /** 1 for the first try of the current budget. */
  readonly number: number;
  readonly classification: Classification;
  readonly durationMs: number;
  /** The batch request that carried it (its `webhook-id`); absent for a request of one event. */
  readonly batchId?: string;
  /**
   * The start of the endpoint's answer, its credentials redacted (HttpClient); absent when the
   * endpoint answered no body, or did not answer. A batch's answer is each member's.
   */
  readonly excerpt?: string;
}

/**
 * What became of one consumed record: the single fact the observer fans out to counts, the
 * record's span, metrics, log lines and the attempt log. `abandoned` means work stopped before
 * the outcome was durable; the record stays below the ledger and comes again.
 */
export type DeliveryOutcome =
  /** `by`: the part of the subscriber's filter that refused it (absent: its type or tenant). */
  | { readonly kind: 'filtered'; readonly by?: string }
  | { readonly kind: 'delivered'; readonly attempt: AttemptSummary }
  | {
      readonly kind: 'retry-scheduled';
      readonly attempt: AttemptSummary;
      readonly tier: number;
      readonly dueAtMs: number;
    }
  | {
      readonly kind: 'dead-lettered';
      readonly reason: DeadLetterReason;
      readonly trail: DeliveryTrail;
      /** The attempt that led here; none for poison and expired records. */
      readonly attempt?: AttemptSummary;
    }
  | { readonly kind: 'abandoned'; readonly attempt?: AttemptSummary };

export type DeliveryOutcomeKind = DeliveryOutcome['kind'];

/** One record while it is handled: created when it arrives, passed instead of its parts. */
export interface RecordContext {
  readonly record: ConsumedRecord;
  /** Aborted when the consumer stops or loses the partition. */
  readonly signal: AbortSignal;
  readonly span: ProcessSpan;
  /** Where this record was read. */
  readonly here: RecordLocation;
  readonly eventId: string | undefined;
  readonly type: string | undefined;
  /** Its `ce_tenant` when that is a tenant name; undefined for an event without one. */
  readonly tenant: string | undefined;
  /** The events topic record this delivery started from (a tier record's origin header). */
  origin: RecordLocation;
}
