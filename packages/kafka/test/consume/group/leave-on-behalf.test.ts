import { describe, expect, it } from 'vitest';
import { leaveOnBehalf } from '../../../src/consume/group/evict-member.ts';

/** A cluster whose coordinator answers LeaveGroup with each of `answers` in turn (the last repeats). */
function clusterAnswering(...answers: (Error | 'ok')[]) {
  const leaves: { groupId: string; memberId: string }[] = [];
  let refreshes = 0;
  const cluster = {
    connect: async () => undefined,
    refreshMetadata: async () => {
      refreshes++;
    },
    findGroupCoordinator: async () => ({
      leaveGroup: async (request: { groupId: string; memberId: string }) => {
        leaves.push(request);
        const answer = answers[Math.min(leaves.length, answers.length) - 1];
        if (answer instanceof Error) throw answer;
      },
    }),
  };
  return { cluster, leaves, refreshes: () => refreshes };
}

const kafkaError = (type: string) => Object.assign(new Error(type), { type });
const member = { groupId: 'g', memberId: 'hookstream-1-dead' };

describe('leaveOnBehalf: a crashed member taken out of its group', () => {
  it('is `left` when the coordinator takes the leave, sent for that member of that group', async () => {
    const { cluster, leaves } = clusterAnswering('ok');
    expect(await leaveOnBehalf(cluster, { ...member, deadline: Date.now() + 5000 })).toBe('left');
    expect(leaves).toEqual([member]);
  });

  it('is `gone` when the member left already or the group is no more, without trying again', async () => {
    for (const type of ['UNKNOWN_MEMBER_ID', 'GROUP_ID_NOT_FOUND']) {
      const { cluster, leaves } = clusterAnswering(kafkaError(type));
      expect(await leaveOnBehalf(cluster, { ...member, deadline: Date.now() + 5000 })).toBe('gone');
      expect(leaves).toHaveLength(1);
    }
  });

  it('tries again with fresh metadata while the coordinator is away or moving', async () => {
    const { cluster, leaves, refreshes } = clusterAnswering(
      kafkaError('NOT_COORDINATOR'),
      new Error('Connection refused'),
      'ok',
    );
    expect(await leaveOnBehalf(cluster, { ...member, deadline: Date.now() + 5000 })).toBe('left');
    expect(leaves).toHaveLength(3);
    expect(refreshes()).toBe(2);
  });

  it('is `timed-out` once the deadline passes with no answer, and stops asking', async () => {
    const { cluster, leaves } = clusterAnswering(kafkaError('COORDINATOR_NOT_AVAILABLE'));
    const startedAt = Date.now();
    expect(await leaveOnBehalf(cluster, { ...member, deadline: startedAt + 1200 })).toBe('timed-out');
    // Every half second within the 1.2 s: three tries, or two when a loaded machine's timers run late.
    expect(leaves.length).toBeGreaterThanOrEqual(2);
    expect(leaves.length).toBeLessThanOrEqual(3);
    expect(Date.now() - startedAt).toBeLessThan(4000);
  });

  it('asks nothing once the deadline is past', async () => {
    const { cluster, leaves } = clusterAnswering('ok');
    expect(await leaveOnBehalf(cluster, { ...member, deadline: Date.now() - 1 })).toBe('timed-out');
    expect(leaves).toHaveLength(0);
  });
});
