import { setTimeout as sleep } from 'node:timers/promises';
import type { KafkaAdmin } from '@hookstream/kafka';
import type { RunControl } from './run-control.ts';

export interface OwnedWaitOptions extends RunControl {
  /** performance.now() of the disruption: what the time counts from. */
  readonly since: number;
  readonly timeoutMs: number;
  /** Why waiting is pointless (an instance that should run ended), or null. */
  readonly failed: () => string | null;
}

export interface OwnedWait {
  /** Seconds from `since` until every group was Stable with its live members; null: not in time. */
  readonly seconds: number | null;
  /** Groups not there yet when the wait ended. */
  readonly pending: number;
}

const POLL_MS = 500;
const REPORT_MS = 10_000;

/**
 * Asks the broker (DescribeGroups) until every group is Stable with exactly the number of members
 * `expected` gives it: under the eager protocol a Stable group has all its partitions assigned,
 * and the member count rules out a killed instance's member, which stays listed (owning its
 * partitions, fetching nothing) until its session times out.
 */
export async function waitUntilOwned(
  admin: KafkaAdmin,
  expected: ReadonlyMap<string, number>,
  options: OwnedWaitOptions,
): Promise<OwnedWait> {
  const elapsed = () => performance.now() - options.since;
  let pending = [...expected.keys()];
  let reportedAt = elapsed();
  for (;;) {
    const states = await admin.groupStates(pending);
    pending = states
      .filter((g) => !(g.state === 'Stable' && g.members === expected.get(g.groupId)))
      .map((g) => g.groupId);
    if (pending.length === 0) return { seconds: Math.round(elapsed() / 100) / 10, pending: 0 };
    const failed = options.failed();
    if (failed !== null) throw new Error(failed);
    if (elapsed() > options.timeoutMs) return { seconds: null, pending: pending.length };
    if (elapsed() - reportedAt >= REPORT_MS) {
      options.progress(
        `${expected.size - pending.length}/${expected.size} groups owned by their live members`,
      );
      reportedAt = elapsed();
    }
    await sleep(POLL_MS, undefined, options.signal ? { signal: options.signal } : {});
  }
}
