import { createRequire } from 'node:module';
import type { Kafka } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { createKafka } from '../../../src/connection/kafka-connection.ts';
import { bindKafkaClient } from '../../../src/connection/raw-client.ts';
import { evictMember } from '../../../src/consume/group/evict-member.ts';
import type { MemberListener, RejoinCause } from '../../../src/consume/group/group-member.ts';
import { KafkajsGroupMember } from '../../../src/consume/group/kafkajs-group-member.ts';
import { patchKafkajsRejoinBarrier } from '../../../src/kafkajs-patches/rejoin-barrier.ts';

// The eviction's own loop is leave-on-behalf.test.ts's; here, only whom the member evicts and when.
vi.mock('../../../src/consume/group/evict-member.ts', () => ({ evictMember: vi.fn(async () => 'left') }));
const evict = vi.mocked(evictMember);

const EVENTS = { CRASH: 'crash', FETCH: 'fetch', GROUP_JOIN: 'join', REBALANCING: 'rebalancing' } as const;

/** A kafkajs consumer that does nothing but let the test emit its instrumentation events. */
function fakeConsumer() {
  const listeners = new Map<string, Set<(event: { payload: unknown }) => void>>();
  return {
    events: EVENTS,
    on(event: string, fn: (event: { payload: unknown }) => void) {
      const set = listeners.get(event) ?? new Set();
      set.add(fn);
      listeners.set(event, set);
      return () => set.delete(fn);
    },
    emit(event: string, payload: unknown) {
      for (const fn of listeners.get(event) ?? []) fn({ payload });
    },
    connect: async () => undefined,
    subscribe: async () => undefined,
    run: async () => undefined,
    disconnect: async () => undefined,
  };
}

function memberOnFake(sessionTimeoutMs?: number) {
  const consumer = fakeConsumer();
  const kafka = createKafka({ brokers: ['127.0.0.1:1'], clientId: 'unit', quiet: true });
  bindKafkaClient(kafka, { consumer: () => consumer } as unknown as Kafka, {});
  const member = new KafkajsGroupMember({
    kafka,
    groupId: 'group-a',
    topic: 'events',
    ...(sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs }),
  });
  const heard: string[] = [];
  const listener: MemberListener = {
    joined: (assignment) => heard.push(`joined ${JSON.stringify(assignment)}`),
    rebalancing: async (why: RejoinCause) => void heard.push(`rebalancing ${why}`),
    crashed: (crash) => heard.push(`crashed restart=${crash.restart}`),
    evicted: (e) => heard.push(`evicted ${e.memberId} ${e.outcome}`),
    firstFetch: () => heard.push('first fetch'),
    batch: () => undefined,
  };
  const join = (memberId: string) =>
    consumer.emit(EVENTS.GROUP_JOIN, { memberId, memberAssignment: { events: [0] } });
  const crash = (restart: boolean) =>
    consumer.emit(EVENTS.CRASH, { error: new Error('Connection refused'), restart });
  return { kafka, member, listener, heard, join, crash };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('KafkajsGroupMember: the member a crash leaves behind', () => {
  it("takes the crashed member's last joined id out of its group, once, within the session timeout", async () => {
    evict.mockClear();
    const { kafka, member, listener, heard, join, crash } = memberOnFake(12_000);
    await member.join(['events'], listener);
    join('member-1');
    crash(true);
    await settled();
    expect(evict.mock.calls).toEqual([
      [{ kafka, groupId: 'group-a', memberId: 'member-1', withinMs: 12_000 }],
    ]);
    expect(heard).toEqual(['joined {"events":[0]}', 'crashed restart=true', 'evicted member-1 left']);
    // A restart that crashes again before it joined left no member of its own.
    crash(true);
    await settled();
    expect(evict).toHaveBeenCalledTimes(1);
    // The restart's own join is the next one a crash leaves behind.
    join('member-2');
    crash(true);
    await settled();
    expect(evict.mock.calls.map(([options]) => options.memberId)).toEqual(['member-1', 'member-2']);
    await member.leave();
  });

  it('evicts nothing when kafkajs does not restart, or before any join', async () => {
    evict.mockClear();
    const first = memberOnFake();
    await first.member.join(['events'], first.listener);
    first.crash(true);
    const second = memberOnFake();
    await second.member.join(['events'], second.listener);
    second.join('member-9');
    second.crash(false);
    await settled();
    expect(evict).not.toHaveBeenCalled();
    expect(second.heard).toEqual(['joined {"events":[0]}', 'crashed restart=false']);
  });

  it('reports an eviction that threw as timed out', async () => {
    evict.mockClear();
    evict.mockRejectedValueOnce(new Error('no broker'));
    const { member, listener, heard, join, crash } = memberOnFake();
    await member.join(['events'], listener);
    join('member-1');
    crash(true);
    await vi.waitFor(() => expect(heard).toContain('evicted member-1 timed-out'));
  });
});

const require = createRequire(import.meta.url);
const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as {
  prototype: { joinAndSync(this: unknown): Promise<void> };
};

describe("KafkajsGroupMember: kafkajs's own rejoins", () => {
  it("hands over before kafkajs rejoins under the member's id on its own, until the member leaves", async () => {
    patchKafkajsRejoinBarrier();
    const { member, listener, heard, join } = memberOnFake();
    await member.join(['events'], listener);
    join('member-7');
    // kafkajs's ConsumerGroup of that member, rejoining after stale metadata (no REBALANCING).
    const group = Object.create(ConsumerGroup.prototype) as { retrier: unknown; memberId: string | null };
    group.retrier = async () => void heard.push('kafkajs rejoined');
    group.memberId = 'member-7';
    await ConsumerGroup.prototype.joinAndSync.call(group);
    expect(heard.slice(1)).toEqual(['rebalancing rejoin', 'kafkajs rejoined']);
    await member.leave();
    await ConsumerGroup.prototype.joinAndSync.call(group);
    expect(heard.slice(1)).toEqual(['rebalancing rejoin', 'kafkajs rejoined', 'kafkajs rejoined']);
  });
});
