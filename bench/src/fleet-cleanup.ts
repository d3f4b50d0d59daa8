import { setTimeout as sleep } from 'node:timers/promises';
import { subscriberGroupId } from '@hookstream/contracts';
import type { KafkaAdmin, KafkaConnection } from '@hookstream/kafka';
import type { FleetChild } from './fleet-child.ts';
import { subscribersLeft } from './fleet-subscribers.ts';
import type { RunControl } from './run-control.ts';

export interface CleanupReport {
  readonly fleet: 'stopped' | 'killed' | 'had ended' | 'not started';
  /** What the run left behind, looked up afterwards: all 0 when the cleanup worked. */
  readonly recordsLeft: number;
  readonly topicsLeft: number;
  readonly groupsLeft: number;
  readonly errors: readonly string[];
}

/** How long a SIGTERM'd fleet gets to commit and leave every group before SIGKILL. */
const STOP_GRACE_MS = 60_000;

/**
 * Stops the fleet (each subscriber commits and leaves its group). A fleet that had to be killed
 * left members behind, which Kafka drops after the session timeout: their groups can be deleted
 * only then, so this waits for them.
 */
export async function stopFleet(
  fleet: FleetChild,
  admin: KafkaAdmin,
  names: readonly string[],
  { progress, signal }: RunControl,
  failed: (text: string) => void,
): Promise<CleanupReport['fleet']> {
  progress('stopping the fleet (SIGTERM)');
  const how = await fleet.stop(STOP_GRACE_MS);
  // A Ctrl-C on a terminal reaches the fleet too, which then stops by itself.
  if (how === 'had ended' && !signal?.aborted)
    failed(`the fleet had ended: ${fleet.ended}; its last lines:\n${fleet.tail()}`);
  if (how === 'stopped') return how;
  const groups = names.map((n) => subscriberGroupId(n));
  const deadline = performance.now() + 45_000;
  while (performance.now() < deadline) {
    const states = await admin.groupStates(groups).catch(() => []);
    if (states.every((g) => g.members === 0)) break;
    await sleep(1000);
  }
  return how;
}

/** Looks up what the run left on the broker: records, topics and groups of its names. */
export async function whatIsLeft(
  kafka: KafkaConnection,
  prefix: string,
  eventsTopic: string,
): Promise<Pick<CleanupReport, 'recordsLeft' | 'topicsLeft' | 'groupsLeft'>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter(
      (t) => t === eventsTopic || t.startsWith(`hookstream.sub.${prefix}`),
    );
    return {
      recordsLeft: await subscribersLeft(kafka, prefix),
      topicsLeft: topics.length,
      groupsLeft: (await admin.listGroupIds(subscriberGroupId(prefix))).length,
    };
  } finally {
    await admin.disconnect();
  }
}
