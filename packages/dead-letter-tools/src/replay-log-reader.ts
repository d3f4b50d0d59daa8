import { replayLogTopicName, type SubscriberName } from '@hookstream/contracts';
import { type ConsumedRecord, type KafkaConnection, KafkaReadError, readTopic } from '@hookstream/kafka';
import { type ReplayLease, supersedingLease } from '@hookstream/replay';

/** How long a fenced run looks for the lease of the run that fenced it. */
const HOLDER_WAIT_MS = 10_000;
const HOLDER_POLL_MS = 500;

/** The subscriber's replay log, committed records only; empty when nothing was ever replayed. */
export async function readReplayLog(
  kafka: KafkaConnection,
  subscriber: SubscriberName,
): Promise<ConsumedRecord[]> {
  try {
    return await readTopic(kafka, { topic: replayLogTopicName(subscriber), purpose: 'replays' });
  } catch (err) {
    // No replay log yet: nothing was ever replayed for this subscriber.
    if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return [];
    throw err;
  }
}

/**
 * The lease of the run that took over from `replayId` (supersedingLease): the run that fenced
 * it commits its lease just after, so it is looked for `waitMs` (default 10 s). Null when none
 * shows up (the broker timed out this run's transaction, or the other run stopped at once).
 */
export async function fencingHolder(
  kafka: KafkaConnection,
  subscriber: SubscriberName,
  replayId: string,
  waitMs = HOLDER_WAIT_MS,
): Promise<ReplayLease | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lease = await readReplayLog(kafka, subscriber).then(
      (log) => supersedingLease(log, replayId),
      () => null,
    );
    if (lease !== null || Date.now() >= deadline) return lease;
    await new Promise((resolve) => setTimeout(resolve, HOLDER_POLL_MS));
  }
}
