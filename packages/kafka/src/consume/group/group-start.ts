import type { KafkaAdmin } from '../../admin/kafka-admin.ts';
import type { KafkaConnection } from '../../connection/kafka-connection.ts';
import { AdminGroupLedger } from './admin-group-ledger.ts';
import type { StartedFrom, StartFrom } from './start-position.ts';

/** A group to position before anything consumes it: its topic and where a new ledger begins. */
export interface GroupStart {
  readonly groupId: string;
  readonly topic: string;
  readonly start: StartFrom;
  /** Further topics a brand-new group begins at `start` too; those that do not exist are left out. */
  readonly alsoTopics: readonly string[];
}

/**
 * Commits a brand-new group's start position on every partition of its topics, so its ledger
 * exists before its first member joins; a group with a ledger keeps it ('ledger'). Null when the
 * topic does not exist yet: there is nothing to position, and nothing published to skip.
 */
export async function commitGroupStart(
  kafka: KafkaConnection,
  admin: KafkaAdmin,
  group: GroupStart,
): Promise<StartedFrom | null> {
  if ((await admin.partitionCount(group.topic)) === null) return null;
  const also: string[] = [];
  for (const topic of group.alsoTopics) if ((await admin.partitionCount(topic)) !== null) also.push(topic);
  const ledger = new AdminGroupLedger({
    kafka,
    groupId: group.groupId,
    topic: group.topic,
    start: group.start,
    positionedTopics: also,
  });
  return ledger.prepare();
}
