import type { ConsumedRecord } from '@hookstream/kafka';

/**
 * `settled`: the record's outcome is durable (acknowledged, or handed to a retry tier or the
 * DLQ) and may enter the ledger. `abandoned`: work stopped (shutdown, rebalance) before that;
 * the record stays below the ledger and is delivered again by whoever owns the partition next.
 */
export type HandlerOutcome = 'settled' | 'abandoned';

export type RecordHandler = (record: ConsumedRecord, signal: AbortSignal) => Promise<HandlerOutcome>;

/**
 * Runs `handle` on the record; with ordering `key`, only after the previous record of its key
 * ended (settled or abandoned), and once one is abandoned later ones of the key are abandoned
 * too, so they never overtake it. `tails` holds each key's last run.
 */
export function runInKeyOrder(
  handle: RecordHandler,
  ordering: 'none' | 'key',
  record: ConsumedRecord,
  signal: AbortSignal,
  tails: Map<string, Promise<HandlerOutcome>>,
): Promise<HandlerOutcome> {
  if (ordering === 'none' || record.key === null) return handle(record, signal);
  const key = record.key;
  const previous = tails.get(key);
  const run: Promise<HandlerOutcome> = previous
    ? previous.then((prev) => (prev === 'settled' ? handle(record, signal) : ('abandoned' as const)))
    : handle(record, signal);
  const tail = run.catch(() => 'abandoned' as const);
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}
