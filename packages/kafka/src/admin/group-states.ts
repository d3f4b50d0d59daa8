import type { Admin } from 'kafkajs';
import { retryRetriable } from './retriable.ts';

/** A consumer group as its coordinator describes it: its state and how many members it has. */
export interface GroupState {
  readonly groupId: string;
  /**
   * Kafka's group state: Stable (every member has its assignment), PreparingRebalance,
   * CompletingRebalance, Empty (no member; offsets may remain) or Dead (no such group).
   */
  readonly state: string;
  readonly members: number;
}

/** Group ids per DescribeGroups request, so a thousand groups do not make one huge request. */
const PER_REQUEST = 100;

/** Each group's state and member count, in the order asked. Describing never joins a group. */
export async function describeGroupStates(admin: Admin, groupIds: readonly string[]): Promise<GroupState[]> {
  const states: GroupState[] = [];
  for (let i = 0; i < groupIds.length; i += PER_REQUEST) {
    const chunk = groupIds.slice(i, i + PER_REQUEST);
    const { groups } = await retryRetriable(() => admin.describeGroups(chunk));
    const byId = new Map(groups.map((g) => [g.groupId, g]));
    for (const groupId of chunk) {
      const group = byId.get(groupId);
      states.push({ groupId, state: group?.state ?? 'Dead', members: group?.members.length ?? 0 });
    }
  }
  return states;
}
