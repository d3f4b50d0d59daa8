import { setTimeout as sleep } from 'node:timers/promises';
import type { KafkaAdmin } from '@hookstream/kafka';

export interface JoinWaitOptions {
  /** performance.now() when the process that joins them started: what the time counts from. */
  readonly since: number;
  readonly timeoutMs: number;
  readonly progress: (line: string) => void;
  /** Why waiting is pointless (the process ended), or null while it runs. */
  readonly failed: () => string | null;
  readonly signal?: AbortSignal | undefined;
}

export interface JoinWait {
  readonly groups: number;
  /** Groups Stable with a member at the last look. */
  readonly joined: number;
  /** Seconds from `since` until all of them were, as often as the broker was asked; null: not in time. */
  readonly seconds: number | null;
}

const POLL_MS = 500;
const REPORT_MS = 5000;

/**
 * Asks the broker (DescribeGroups, which joins nothing) until every group is Stable with at least
 * one member: its partitions are assigned and its consumer fetches.
 */
export async function waitUntilJoined(
  admin: KafkaAdmin,
  groupIds: readonly string[],
  options: JoinWaitOptions,
): Promise<JoinWait> {
  const elapsed = () => performance.now() - options.since;
  let joined = 0;
  let reportedAt = elapsed();
  for (;;) {
    const states = await admin.groupStates(groupIds);
    joined = states.filter((g) => g.state === 'Stable' && g.members > 0).length;
    if (joined === groupIds.length)
      return { groups: groupIds.length, joined, seconds: Math.round(elapsed() / 100) / 10 };
    const failed = options.failed();
    if (failed !== null) throw new Error(`the fleet ended (${failed}) with ${joined} groups joined`);
    if (elapsed() > options.timeoutMs) return { groups: groupIds.length, joined, seconds: null };
    if (elapsed() - reportedAt >= REPORT_MS) {
      options.progress(`${joined}/${groupIds.length} groups joined after ${Math.round(elapsed() / 1000)} s`);
      reportedAt = elapsed();
    }
    await sleep(POLL_MS, undefined, options.signal ? { signal: options.signal } : {});
  }
}
