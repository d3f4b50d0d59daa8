import type { OutcomeClass } from '@hookstream/delivery';
import type { SampledIds } from '@hookstream/telemetry';
import type { DeliveryOutcomeKind } from './delivery-outcome.ts';

/** What a subscriber's observer reports for metrics; every value it passes is from a bounded set. */
export interface DeliveryMetrics {
  /** One HTTP attempt ended: its class and status (null: no response) and how long it took. */
  attempted(outcomeClass: OutcomeClass, status: number | null, durationMs: number): void;
  /**
   * A first attempt (attempt 1) failed: its class and status. `trace`: the record's span ids when
   * it is sampled, the series' exemplar (retries and dead letters are always traced; a first
   * attempt only as the sampler says, so this is where every failing one is counted).
   */
  firstAttemptFailed(
    outcomeClass: Exclude<OutcomeClass, 'ack'>,
    status: number | null,
    trace: SampledIds | undefined,
  ): void;
  /** How long an attempt waited for the destination's limiter. */
  limiterWaited(ms: number): void;
  /** What became of a consumed record; `deadLetterReason` for dead-lettered ones. */
  ended(outcome: DeliveryOutcomeKind, deadLetterReason?: string): void;
  /** A record waited because the schema registry could not be asked. */
  registryWaited(): void;
}

/** 2xx … 5xx, or `none` when no response arrived (timeout, connection error). */
export function statusClass(status: number | null): string {
  if (status === null) return 'none';
  return `${Math.floor(status / 100)}xx`;
}
