import type { OutcomeClass } from '@hookstream/delivery';
import type { DeliveryOutcome, RecordContext } from './delivery-outcome.ts';

/** Running totals of what a subscriber's records became. */
export interface DeliveryCounts {
  acknowledged: number;
  filtered: number;
  retries: number;
  deadLettered: number;
  poison: number;
  abandoned: number;
}

export function emptyCounts(): DeliveryCounts {
  return { acknowledged: 0, filtered: 0, retries: 0, deadLettered: 0, poison: 0, abandoned: 0 };
}

/**
 * Everything the delivery handler tells the outside world, in four calls. The handler decides;
 * an observer records (counts, spans, metrics, logs, the attempt log), so the handler has one
 * place to report to and tests can watch it with a fake.
 */
export interface DeliveryObserver {
  /** An attempt got its slot after waiting this long for the destination's limits. */
  limiterWaited(ctx: RecordContext, ms: number): void;
  /** One HTTP attempt ended: its class, status (null: no response) and duration. */
  attempted(ctx: RecordContext, outcomeClass: OutcomeClass, status: number | null, durationMs: number): void;
  /** The record cannot be decoded yet (the registry is unavailable); it waits waitMs and tries again. */
  decodeWaiting(ctx: RecordContext, detail: string, waitMs: number): void;
  /** The record's end, exactly once per handled record (also when handling threw). */
  recorded(ctx: RecordContext, step: DeliveryOutcome): void;
}
