import type { Admin } from 'kafkajs';

/** Where a brand-new group begins; an existing group always resumes from its ledger. */
export type StartFrom = 'earliest' | 'latest' | { readonly timestampMs: number };

export type StartedFrom = 'ledger' | 'earliest' | 'latest' | 'timestamp';

/**
 * Prepares the group before it joins. A group with no committed offset on the topic gets the
 * start position committed explicitly for every partition, so its ledger exists from the first
 * moment: a 'latest' subscriber that restarts before receiving anything on some partition then
 * resumes where it began instead of skipping to the new end. Partitions without a commit in an
 * existing group (partitions added later) are read from the beginning, so nothing is skipped.
 */
export async function prepareStart(
  admin: Admin,
  groupId: string,
  topic: string,
  start: StartFrom,
): Promise<StartedFrom> {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const hasLedger = (committed?.partitions ?? []).some((p) => Number(p.offset) >= 0);
  if (hasLedger) return 'ledger';
  let partitions: { partition: number; offset: string }[];
  if (start === 'earliest' || start === 'latest') {
    const offsets = await admin.fetchTopicOffsets(topic);
    partitions = offsets.map((p) => ({
      partition: p.partition,
      offset: start === 'earliest' ? p.low : p.high,
    }));
  } else {
    const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, start.timestampMs);
    partitions = offsets.map(({ partition, offset }) => ({ partition, offset }));
  }
  try {
    await admin.setOffsets({ groupId, topic, partitions });
  } catch (err) {
    // Another instance of the subscriber joined first and positioned the group; its ledger wins.
    if (
      !/not empty|active|REBALANCE|UNKNOWN_MEMBER/i.test(`${(err as Error).message} ${JSON.stringify(err)}`)
    )
      throw err;
    return 'ledger';
  }
  return typeof start === 'string' ? start : 'timestamp';
}
