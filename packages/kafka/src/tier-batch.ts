import { Semaphore } from '@hookstream/concurrency';
import type { EachBatchPayload } from 'kafkajs';
import { BatchWatchdog } from './batch-watchdog.ts';
import { toConsumedRecord } from './consumed-record.ts';
import type { DueGate } from './due-gate.ts';
import type { LogFn } from './log.ts';
import { OffsetTracker } from './offset-tracker.ts';
import { type HandlerOutcome, type RecordHandler, runInKeyOrder } from './record-handler.ts';

export interface TierBatchDeps {
  readonly gate: DueGate | null;
  readonly handle: RecordHandler;
  readonly ordering: 'none' | 'key';
  readonly window: number;
  readonly log: LogFn;
  /** Offset → Kafka timestamp of the partition's records begun and not settled. */
  readonly held: Map<number, number>;
  /** The settled prefix grew: `next` is the offset the group should read next. */
  readonly committable: (next: number) => void;
  /** True once the consumer stops or drains: no record is begun after that. */
  readonly mustStop: () => boolean;
}

/**
 * One fetched batch of a retry tier (or of the events topic without lanes): due records start,
 * records not yet due are left begun-but-unsettled so the committed prefix stops before them,
 * and the batch ends only when every record it began has ended, because kafkajs fetches again
 * from the last resolved offset.
 */
export async function runTierBatch(deps: TierBatchDeps, payload: EachBatchPayload): Promise<void> {
  const { batch, resolveOffset, pause } = payload;
  const { gate, held, log } = deps;
  const watchdog = new BatchWatchdog(payload, deps.mustStop);
  const signal = watchdog.controller.signal;
  const tracker = new OffsetTracker();
  const slots = new Semaphore(deps.window);
  const inFlight = new Set<Promise<void>>();
  const keyTails = new Map<string, Promise<HandlerOutcome>>();
  const ahead = gate?.settledAhead(batch.topic, batch.partition, Number(batch.firstOffset() ?? 0));
  const settle = (offset: number) => {
    held.delete(offset);
    const prefix = tracker.settle(offset);
    if (prefix !== null) {
      resolveOffset(String(prefix));
      deps.committable(prefix + 1);
    }
    if (prefix === null || prefix < offset) ahead?.add(offset);
  };
  let earliestWaiting: number | null = null;
  let started = 0;
  const horizon = gate?.horizon() ?? 0;
  try {
    for (const message of batch.messages) {
      if (watchdog.shouldStop()) break;
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
        if (!(await gate.waitUntilDue(record, signal))) break;
      }
      const waiting = slots.acquire();
      if (waiting) await waiting;
      if (watchdog.shouldStop()) {
        slots.release();
        break;
      }
      tracker.begin(offset);
      held.set(offset, record.timestampMs);
      started++;
      const task = runInKeyOrder(deps.handle, deps.ordering, record, signal, keyTails).then(
        (outcome) => {
          if (outcome === 'settled') settle(offset);
        },
        (err: unknown) =>
          log('error', 'record handler failed; the record stays unsettled', {
            topic: batch.topic,
            partition: batch.partition,
            offset,
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
    watchdog.fail(err);
  }
  // Paused only when this batch started nothing: otherwise records past the end of this batch
  // may be due already, and the next fetch (from the prefix) looks at them.
  if (gate && earliestWaiting !== null && started === 0 && watchdog.failure === null)
    gate.pauseUntil(pause, earliestWaiting);
  await Promise.all(inFlight);
  if (tracker.unsettled > 0 && earliestWaiting === null)
    log('info', 'batch ended with unsettled records; they will be delivered again', {
      topic: batch.topic,
      partition: batch.partition,
      unsettled: tracker.unsettled,
      committable: tracker.committable,
    });
  watchdog.end();
}
