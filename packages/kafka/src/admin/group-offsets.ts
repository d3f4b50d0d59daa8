import type { Admin, Kafka } from 'kafkajs';
import { commitEmptyGroupOffsets } from './empty-group-commit.ts';
import { retryRetriable } from './retriable.ts';

/** A partition's committed offset: the next record the group will read; null when none. */
export interface CommittedOffset {
  readonly partition: number;
  readonly offset: string | null;
}

/** The group's committed offsets on one topic, per partition. Reading them never joins the group. */
export async function fetchCommittedOffsets(
  admin: Admin,
  groupId: string,
  topic: string,
): Promise<CommittedOffset[]> {
  const [committed] = await retryRetriable(() => admin.fetchOffsets({ groupId, topics: [topic] }));
  return (committed?.partitions ?? [])
    .map((p) => ({ partition: p.partition, offset: Number(p.offset) >= 0 ? p.offset : null }))
    .sort((a, b) => a.partition - b.partition);
}

/** Group ids that start with `prefix` (e.g. every subscriber's `hookstream.sub.`), sorted. */
export async function listGroupIds(admin: Admin, prefix: string): Promise<string[]> {
  const { groups } = await retryRetriable(() => admin.listGroups());
  return groups
    .map((g) => g.groupId)
    .filter((id) => id.startsWith(prefix))
    .sort();
}

/**
 * Commits offsets for a group that has no live member (kafkajs refuses otherwise): positioning
 * a subscriber by hand, or a test setting up a ledger.
 */
export async function commitGroupOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
  partitions: readonly { readonly partition: number; readonly offset: string }[],
): Promise<void> {
  await retryRetriable(() => commitEmptyGroupOffsets(kafka, groupId, [{ topic, partitions }]));
}

/** Deletes groups, best effort: a group that is already gone counts as deleted. */
export async function deleteGroups(admin: Admin, groupIds: readonly string[]): Promise<void> {
  if (groupIds.length === 0) return;
  try {
    await retryRetriable(() => admin.deleteGroups([...groupIds]), 10, 200);
  } catch (err) {
    if (!/GROUP_ID_NOT_FOUND|does not exist/i.test(JSON.stringify(err) + String(err))) throw err;
  }
}
