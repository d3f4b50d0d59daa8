import type { Admin } from 'kafkajs';

/** Where a brand-new group begins; an existing group always resumes from its ledger. */
export type StartFrom = 'earliest' | 'latest' | { readonly timestampMs: number };

export type StartedFrom = 'ledger' | 'earliest' | 'latest' | 'timestamp';

/**
 * Prepares the group before it joins: when it has no committed offset on the topic, a
 * timestamp start commits the offsets of that moment (the group is still empty, so setOffsets
 * is allowed); earliest/latest are left to the consumer's fromBeginning. Returns what happened
 * and whether the consumer should subscribe fromBeginning.
 */
export async function prepareStart(
  admin: Admin,
  groupId: string,
  topic: string,
  start: StartFrom,
): Promise<{ startedFrom: StartedFrom; fromBeginning: boolean }> {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const hasLedger = (committed?.partitions ?? []).some((p) => Number(p.offset) >= 0);
  if (hasLedger) return { startedFrom: 'ledger', fromBeginning: false };
  if (start === 'earliest') return { startedFrom: 'earliest', fromBeginning: true };
  if (start === 'latest') return { startedFrom: 'latest', fromBeginning: false };
  const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, start.timestampMs);
  await admin.setOffsets({
    groupId,
    topic,
    partitions: offsets.map(({ partition, offset }) => ({ partition, offset })),
  });
  return { startedFrom: 'timestamp', fromBeginning: false };
}
