import { setTimeout as sleep } from 'node:timers/promises';
import type { KafkaAdmin } from '@hookstream/kafka';
import type { RunControl } from './run-control.ts';

export interface JoinWaitOptions extends RunControl {
  /** performance.now() when the process that joins them started: what the time counts from. */
  readonly since: number;
  readonly timeoutMs: number;
  /** Why waiting is pointless (the process ended), or null while it runs. */
  readonly failed: () => string | null;
}

export interface JoinWait {
  readonly groups: number;
  /** Groups seen Stable with a member (each counted from its first time). */
  readonly joined: number;
  /** Seconds from `since` until all of them were, as often as the broker was asked; null: not in time. */
  readonly seconds: number | null;
  /**
   * Groups seen with more than one member: another fleet (a `push --all` without --match on the
   * same broker) runs them too, and the figures are not this process's alone.
   */
  readonly shared: number;
}

const REPORT_MS = 5000;

/**
 * Asks the broker (DescribeGroups, which joins nothing) until every group has been Stable with at
 * least one member: its partitions assigned, its consumer fetching. Only groups not seen joined
 * yet are asked again, and less often the more there are: kafkajs looks up each group's
 * coordinator per call, and a thousand lookups a second would load the broker being measured.
 */
export async function waitUntilJoined(
  admin: KafkaAdmin,
  groupIds: readonly string[],
  options: JoinWaitOptions,
): Promise<JoinWait> {
  const elapsed = () => performance.now() - options.since;
  const pollMs = Math.min(2000, Math.max(500, groupIds.length * 2));
  const pending = new Set(groupIds);
  const shared = new Set<string>();
  const result = (seconds: number | null) => ({
    groups: groupIds.length,
    joined: groupIds.length - pending.size,
    seconds,
    shared: shared.size,
  });
  let reportedAt = elapsed();
  for (;;) {
    for (const g of await admin.groupStates([...pending])) {
      if (g.state === 'Stable' && g.members > 0) pending.delete(g.groupId);
      if (g.members > 1) shared.add(g.groupId);
    }
    if (pending.size === 0) return result(Math.round(elapsed() / 100) / 10);
    const failed = options.failed();
    if (failed !== null)
      throw new Error(`the fleet ended (${failed}) with ${result(null).joined} groups joined`);
    if (elapsed() > options.timeoutMs) return result(null);
    if (elapsed() - reportedAt >= REPORT_MS) {
      options.progress(
        `${result(null).joined}/${groupIds.length} groups joined after ${Math.round(elapsed() / 1000)} s`,
      );
      reportedAt = elapsed();
    }
    await sleep(pollMs, undefined, options.signal ? { signal: options.signal } : {});
  }
}
