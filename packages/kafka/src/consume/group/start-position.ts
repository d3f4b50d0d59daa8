import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, Kafka } from 'kafkajs';
import { commitEmptyGroupOffsets, type TopicPositions } from '../../admin/empty-group-commit.ts';
import { isCommitted } from '../../admin/group-offsets.ts';
import { retryRetriable } from '../../admin/retriable.ts';

/** Where a brand-new group begins; an existing group always resumes from its ledger. */
export type StartFrom = 'earliest' | 'latest' | { readonly timestampMs: number };

export type StartedFrom = 'ledger' | 'earliest' | 'latest' | 'timestamp';

/**
 * Prepares the group before it joins. A group with no committed offset on the topic gets the
 * start position committed explicitly for every partition, so its ledger exists from the first
 * moment: a 'latest' subscriber that restarts before receiving anything on some partition then
 * resumes where it began instead of skipping to the new end. Partitions without a commit in an
 * existing group (partitions added later) are read from the beginning, so nothing is skipped.
 * `alsoTopics` (a subscriber's notices topic) begin at the same position as the topic for a
 * brand-new group, and are read like added partitions in an existing one.
 */
export async function prepareStart(
  kafka: Kafka,
  admin: Admin,
  groupId: string,
  topic: string,
  start: StartFrom,
  alsoTopics: readonly string[] = [],
): Promise<StartedFrom> {
  if (await hasLedger(admin, groupId, topic)) return 'ledger';
  const positions: TopicPositions[] = [];
  for (const t of [topic, ...alsoTopics])
    positions.push({ topic: t, partitions: await startOffsets(admin, t, start) });
  try {
    await commitEmptyGroupOffsets(kafka, groupId, positions);
  } catch (err) {
    // Several instances of a brand-new subscriber starting together: kafkajs refuses to position
    // a group that another instance has already joined. That instance positions it; wait for its
    // ledger and resume from it.
    if (await waitForLedger(admin, groupId, topic, LEDGER_WAIT_MS)) return 'ledger';
    throw err;
  }
  return typeof start === 'string' ? start : 'timestamp';
}

const LEDGER_WAIT_MS = 30_000;

async function startOffsets(admin: Admin, topic: string, start: StartFrom) {
  if (start === 'earliest' || start === 'latest') {
    const offsets = await retryRetriable(() => admin.fetchTopicOffsets(topic));
    return offsets.map((p) => ({ partition: p.partition, offset: start === 'earliest' ? p.low : p.high }));
  }
  const offsets = await retryRetriable(() => admin.fetchTopicOffsetsByTimestamp(topic, start.timestampMs));
  return offsets.map(({ partition, offset }) => ({ partition, offset }));
}

/** A -2 (kafkajs's "earliest") is a ledger: positioning the group again would move it. */
export async function hasLedger(admin: Admin, groupId: string, topic: string): Promise<boolean> {
  const [committed] = await retryRetriable(() => admin.fetchOffsets({ groupId, topics: [topic] }));
  return (committed?.partitions ?? []).some((p) => isCommitted(p.offset));
}

async function waitForLedger(
  admin: Admin,
  groupId: string,
  topic: string,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await hasLedger(admin, groupId, topic)) return true;
    await sleep(250);
  }
  return false;
}
