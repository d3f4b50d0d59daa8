import type { Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { encodeCommitMetadata } from '../../src/admin/commit-metadata.ts';
import { fetchCommittedOffsets } from '../../src/admin/group-offsets.ts';
import { hasLedger } from '../../src/consume/group/start-position.ts';

/** An admin that answers fetchOffsets and fetchTopicOffsets only, as Kafka would. */
function adminAnswering(
  partitions: readonly { partition: number; offset: string; metadata?: string | null }[],
  low = '15',
): Admin {
  const fake = {
    fetchOffsets: async () => [{ topic: 't', partitions: partitions.map((p) => ({ metadata: null, ...p })) }],
    fetchTopicOffsets: async () =>
      partitions.map((p) => ({ partition: p.partition, offset: '25', high: '25', low })),
  };
  // Only the two calls above are made; the rest of Admin is never touched.
  return fake as unknown as Admin;
}

describe('fetchCommittedOffsets', () => {
  it('reads -2 (kafkajs’s "earliest", committed by its reset) as a ledger at the log start, never as none', async () => {
    const read = await fetchCommittedOffsets(adminAnswering([{ partition: 0, offset: '-2' }]), 'g', 't');
    expect(read).toEqual([{ partition: 0, offset: '15' }]);
  });

  it('reads -1 as no commit, and a commit’s time from the metadata the ledger committer writes', async () => {
    const at = Date.parse('2026-12-03T07:00:00.000Z');
    const read = await fetchCommittedOffsets(
      adminAnswering([
        { partition: 1, offset: '7', metadata: encodeCommitMetadata(at) },
        { partition: 0, offset: '-1' },
        { partition: 2, offset: '3', metadata: 'written by someone else' },
      ]),
      'g',
      't',
    );
    expect(read).toEqual([
      { partition: 0, offset: null },
      { partition: 1, offset: '7', committedAtMs: at },
      { partition: 2, offset: '3' },
    ]);
  });

  it('reads openSince beside the commit time (an older pusher wrote only committedAt)', async () => {
    const at = Date.parse('2026-12-03T07:00:00.000Z');
    const since = at - 5000;
    expect(encodeCommitMetadata(at, { openSinceMs: since })).toBe(
      'committedAt=2026-12-03T07:00:00.000Z;openSince=2026-12-03T06:59:55.000Z',
    );
    const read = await fetchCommittedOffsets(
      adminAnswering([
        { partition: 0, offset: '7', metadata: encodeCommitMetadata(at, { openSinceMs: since }) },
        { partition: 1, offset: '8', metadata: encodeCommitMetadata(at) },
        { partition: 2, offset: '9', metadata: 'committedAt=2026-12-03T07:00:00.000Z;openSince=never' },
      ]),
      'g',
      't',
    );
    expect(read).toEqual([
      { partition: 0, offset: '7', committedAtMs: at, openSinceMs: since },
      { partition: 1, offset: '8', committedAtMs: at },
      { partition: 2, offset: '9', committedAtMs: at },
    ]);
  });

  it("reads a rewind's mark beside the times", async () => {
    const at = Date.parse('2026-12-03T07:00:00.000Z');
    const rewind = { untilOffset: 40, atMs: at - 60_000, by: 'alice' };
    const read = await fetchCommittedOffsets(
      adminAnswering([
        { partition: 0, offset: '7', metadata: encodeCommitMetadata(at, { rewind }) },
        { partition: 1, offset: '8', metadata: encodeCommitMetadata(at, { openSinceMs: at, rewind }) },
      ]),
      'g',
      't',
    );
    expect(read).toEqual([
      { partition: 0, offset: '7', committedAtMs: at, rewind },
      { partition: 1, offset: '8', committedAtMs: at, openSinceMs: at, rewind },
    ]);
  });
});

describe('hasLedger', () => {
  it('counts a -2 as a ledger (a brand-new group is positioned; this one must not be)', async () => {
    expect(await hasLedger(adminAnswering([{ partition: 0, offset: '-2' }]), 'g', 't')).toBe(true);
    expect(await hasLedger(adminAnswering([{ partition: 0, offset: '-1' }]), 'g', 't')).toBe(false);
  });
});
