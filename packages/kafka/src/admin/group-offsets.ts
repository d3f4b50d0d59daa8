import type { Admin, Kafka } from 'kafkajs';
import type { LedgerRewind } from '../consume/group/ledger-rewind.ts';
import { isUnknownTopic } from '../errors.ts';
import { decodeCommitMetadata, encodeCommitMetadata } from './commit-metadata.ts';
import { commitEmptyGroupOffsets } from './empty-group-commit.ts';
import type { GroupsOffsets } from './group-batch-offsets.ts';
import { retryRetriable } from './retriable.ts';

/** A partition's committed offset: the next record the group will read; null when none. */
export interface CommittedOffset {
  readonly partition: number;
  readonly offset: string | null;
  /** When the commit was made (ms), where its metadata says (the ledger committer writes it). */
  readonly committedAtMs?: number;
  /**
   * The earliest time a copy (tier, DLQ) of a record at or above the offset may have been
   * written, where the metadata says: the Kafka timestamp of the oldest record then unsettled.
   */
  readonly openSinceMs?: number;
  /** The rewind whose range the offset is in, where the metadata says (see LedgerRewind). */
  readonly rewind?: LedgerRewind;
}

/** Kafka's answer for a partition the group committed nothing on. */
const NO_COMMIT = '-1';
/** kafkajs's "earliest" (its reset after OFFSET_OUT_OF_RANGE commits it): a ledger at the log start. */
const EARLIEST = '-2';

/** Whether Kafka's answer for a partition is a commit (-2, "earliest", is one; only -1 is none). */
export function isCommitted(offset: string): boolean {
  return offset !== NO_COMMIT && Number(offset) >= -2;
}

/**
 * The group's committed offsets on one topic, per partition. Reading them never joins the group.
 * A -2 is a ledger at the partition's log start (kafkajs committed it), never "no ledger": it is
 * answered with that log start.
 */
export async function fetchCommittedOffsets(
  admin: Admin,
  groupId: string,
  topic: string,
): Promise<CommittedOffset[]> {
  let fetched: Awaited<ReturnType<Admin['fetchOffsets']>>;
  try {
    fetched = await retryRetriable(() => admin.fetchOffsets({ groupId, topics: [topic] }));
  } catch (err) {
    // A topic that does not exist holds no ledger: that is an answer, not a failure (and kafkajs's
    // protocol error must not leave this package).
    if (isUnknownTopic(err)) return [];
    throw err;
  }
  const [committed] = fetched;
  const partitions = committed?.partitions ?? [];
  const lows = partitions.some((p) => p.offset === EARLIEST)
    ? await lowOffsets(admin, topic)
    : new Map<number, string>();
  return committedOffsetsOf(partitions, lows);
}

/**
 * Many groups' committed offsets on one topic, as fetchCommittedOffsets gives each: the groups
 * the batch answered (group-batch-offsets.ts), and the rest asked one by one, 8 at a time.
 */
export async function committedOffsetsOfGroups(
  admin: Admin,
  batch: () => Promise<GroupsOffsets>,
  groupIds: readonly string[],
  topic: string,
  counts?: { batched: number; single: number },
): Promise<Map<string, CommittedOffset[]>> {
  // A failed batch (a broker without these versions, a lost connection) costs only the batch.
  const { answers, unanswered } = await batch().catch(
    (): GroupsOffsets => ({ answers: new Map(), unanswered: [...groupIds] }),
  );
  if (counts !== undefined) {
    counts.batched += answers.size;
    counts.single += unanswered.length;
  }
  const out = new Map<string, CommittedOffset[]>();
  const earliest = [...answers.values()].some((ps) => ps.some((p) => p.offset === EARLIEST));
  const lows = earliest ? await lowOffsets(admin, topic) : new Map<number, string>();
  for (const [groupId, partitions] of answers) out.set(groupId, committedOffsetsOf(partitions, lows));
  for (let i = 0; i < unanswered.length; i += 8)
    await Promise.all(
      unanswered.slice(i, i + 8).map(async (g) => out.set(g, await fetchCommittedOffsets(admin, g, topic))),
    );
  return out;
}

async function lowOffsets(admin: Admin, topic: string): Promise<Map<number, string>> {
  return new Map(
    (await retryRetriable(() => admin.fetchTopicOffsets(topic))).map((r) => [r.partition, r.low]),
  );
}

export function committedOffsetsOf(
  partitions: readonly { partition: number; offset: string; metadata: string | null }[],
  lows: ReadonlyMap<number, string>,
): CommittedOffset[] {
  return partitions
    .map((p) => {
      const offset = p.offset === EARLIEST ? (lows.get(p.partition) ?? '0') : p.offset;
      const { committedAtMs, openSinceMs, rewind } = decodeCommitMetadata(p.metadata);
      return {
        partition: p.partition,
        offset: isCommitted(p.offset) && Number(offset) >= 0 ? offset : null,
        ...(committedAtMs === null ? {} : { committedAtMs }),
        ...(openSinceMs === null ? {} : { openSinceMs }),
        ...(rewind === null ? {} : { rewind }),
      };
    })
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

/** Where a partition's ledger is to be committed, and the rewind it is in, if any. */
export interface GroupOffsetCommit {
  readonly partition: number;
  readonly offset: string;
  /** A rewind moved it here: its commit says so (see LedgerRewind); the fleet marks the range. */
  readonly rewind?: LedgerRewind;
}

/**
 * Commits offsets for a group that has no live member (kafkajs refuses otherwise): positioning
 * a subscriber by hand, a rewind, or a test setting up a ledger. A rewind's commit says which
 * rewind, and when it was made; others carry no metadata, as before.
 */
export async function commitGroupOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
  partitions: readonly GroupOffsetCommit[],
): Promise<void> {
  const now = Date.now();
  const positions = partitions.map(({ partition, offset, rewind }) =>
    rewind === undefined
      ? { partition, offset }
      : { partition, offset, metadata: encodeCommitMetadata(now, { rewind }) },
  );
  await retryRetriable(() => commitEmptyGroupOffsets(kafka, groupId, [{ topic, partitions: positions }]));
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
