import { EventSelection } from '@hookstream/contracts';
import { createKafka, type PartitionGap } from '@hookstream/kafka';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EndOffsetWatch } from '../../src/consume/end-offset-watch.ts';
import {
  SubscriberConsumer,
  type SubscriberConsumerOptions,
  type Subscription,
  type UnsettledRange,
} from '../../src/consume/subscriber-consumer.ts';
import { Deliveries, FakeCluster, FakeLedger, FakeMember, settle } from './fake-group.ts';

const EVENTS = 'events';
const TIER_1 = 'sub.retry.1';
const TIER_2 = 'sub.retry.2';

interface Logged {
  readonly level: string;
  readonly message: string;
}

/** Options as a test changes them: the subscription's fields one by one, the rest as given. */
type Overrides = Partial<Omit<SubscriberConsumerOptions, 'subscription'>> & {
  readonly subscription?: Partial<Subscription>;
};

/** A consumer on a fake group: no broker. The connection is never used (it connects nothing). */
function consumerOn(cluster: FakeCluster, { subscription, ...options }: Overrides = {}) {
  const member = new FakeMember(cluster);
  const ledger = new FakeLedger(cluster);
  const deliveries = new Deliveries();
  const logged: Logged[] = [];
  const fatal: Error[] = [];
  const consumer = new SubscriberConsumer(
    {
      subscription: {
        groupId: 'hookstream.sub.unit',
        eventsTopic: EVENTS,
        noticesTopic: null,
        selection: EventSelection.of({}),
        ordering: 'none',
        fairness: null,
        maxInFlightPerPartition: 4,
        dueAtMs: () => null,
        ...subscription,
      },
      process: { kafka: createKafka({ brokers: ['127.0.0.1:1'], clientId: 'unit', quiet: true }) },
      start: 'earliest',
      handle: deliveries.handle,
      log: (level, message) => logged.push({ level, message }),
      onFatal: (error) => fatal.push(error),
      ...options,
    },
    { member, ledger },
  );
  return { consumer, member, ledger, deliveries, logged, fatal };
}

/** A consumer started on a fake group whose first join gives it `assignment`. */
async function running(
  cluster: FakeCluster,
  options: Overrides = {},
  assignment: Record<string, number[]> = { [EVENTS]: [0] },
): Promise<ReturnType<typeof consumerOn>> {
  const setup = consumerOn(cluster, options);
  const starting = setup.consumer.start();
  await settle();
  setup.member.assign(assignment);
  await starting;
  return setup;
}

/** stop(), with the records whose waits it aborted ending as abandoned, as the delivery's do. */
async function stopped({ consumer, deliveries }: ReturnType<typeof consumerOn>): Promise<void> {
  const stopping = consumer.stop();
  await settle();
  await deliveries.endAborted();
  await stopping;
}

/** One commit tick (the consumer commits about every second). */
async function tick(): Promise<void> {
  await vi.advanceTimersByTimeAsync(1000);
  await settle();
}

describe('SubscriberConsumer on a fake group member', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => vi.useRealTimers());

  it('assign → revoke → reassign: a record in flight is never begun twice at once, and the new lane starts from the ledger past what the revoked one settled', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 8);
    // As a pusher commits: with openSince (a ledger without it is another writer's, see below).
    cluster.commit(EVENTS, 5, 1_000_005);
    const setup = await running(cluster);
    const { member, deliveries } = setup;
    // Paused while the ledger is read, then read from the committed offset.
    expect(member.take()).toEqual([`pause ${EVENTS}:0`, `seek ${EVENTS}:0@5`, `resume ${EVENTS}:0`]);
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual(['events@5', 'events@6', 'events@7']);
    await deliveries.end('events@6');

    member.rebalance();
    // Revoked: its fetch paused; the records in flight go on within the hand-over's bound.
    expect(member.take()).toEqual([`pause ${EVENTS}:0`]);
    expect(deliveries.signals.get('events@5')?.aborted).toBe(false);
    member.assign({ [EVENTS]: [0] });
    await settle();
    // 5 and 7 are still running in the revoked lane: the new lane waits for them.
    expect(member.take()).toEqual([`pause ${EVENTS}:0`]);
    await deliveries.end('events@5', 'abandoned');
    await deliveries.end('events@7', 'abandoned');
    await settle();
    // Nothing was committed, so the new lane reads from 5 again; 6, settled here and not
    // committed, is passed over (a rejoin without the hand-over used to send it again).
    expect(member.take()).toEqual([`seek ${EVENTS}:0@5`, `resume ${EVENTS}:0`]);
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual(['events@5', 'events@6', 'events@7', 'events@5', 'events@7']);
    for (const id of ['events@5', 'events@7']) await deliveries.end(id);
    await tick();
    expect(member.take()).toEqual([`commit ${EVENTS}:0@8`]);
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(8);
  });

  it("a rebalance holds the rejoin until the revoked lane's requests in flight end, and commits what they settled first", async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    const { member, deliveries } = await running(cluster);
    member.fetch(EVENTS);
    await deliveries.end('events@0');
    // events@1 and events@2 are on the wire when the group rebalances.
    let rejoined = false;
    const rejoin = member.rebalance().then(() => {
      rejoined = true;
    });
    await settle();
    expect(rejoined).toBe(false);
    expect(cluster.committed.get(`${EVENTS}:0`)).toBeUndefined();
    await deliveries.end('events@1');
    await deliveries.end('events@2');
    await rejoin;
    // Committed while this member's generation still counts: the partition's next owner starts at 3.
    expect(member.take()).toContain(`commit ${EVENTS}:0@3`);
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(3);
  });

  it("a rebalance lets its records' waits go on (an abandoned one left a hole its next owner resent above)", async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    const { member, deliveries } = await running(cluster);
    member.fetch(EVENTS);
    // events@0 waits in the limiter while events@1 and events@2 are answered.
    await deliveries.end('events@1');
    await deliveries.end('events@2');
    const rejoin = member.rebalance();
    await settle();
    expect(deliveries.signals.get('events@0')?.aborted).toBe(false);
    await deliveries.end('events@0');
    await rejoin;
    // The whole partition committed: nothing above a hole for the next owner to send again.
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(3);
  });

  it('a second rebalance heard while the first still waits holds its rejoin for the first lanes too', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    const { member, deliveries } = await running(cluster);
    member.fetch(EVENTS);
    await deliveries.end('events@0');
    // events@1 and events@2 are on the wire; kafkajs hears "rebalancing" twice and rejoins twice.
    const rejoined: string[] = [];
    const first = member.rebalance().then(() => rejoined.push('first'));
    const second = member.rebalance().then(() => rejoined.push('second'));
    await settle();
    expect(rejoined).toEqual([]);
    await deliveries.end('events@1');
    await deliveries.end('events@2');
    await Promise.all([first, second]);
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(3);
  });

  it('a commit refused as from a stale generation is logged; the next generation passes over what this member settled and commits past it', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    const setup = await running(cluster);
    const { member, deliveries, logged, fatal } = setup;
    member.fetch(EVENTS);
    for (const id of ['events@0', 'events@1', 'events@2']) await deliveries.end(id);
    member.holdCommits = true;
    await tick();
    expect(member.take()).toContain(`commit ${EVENTS}:0@3`);
    // The group moves on while the commit is on its way; the broker refuses it.
    member.rebalance();
    member.assign({ [EVENTS]: [0] });
    await settle();
    // Refused, and so is the hand-over's commit of the revoked lane, which waited behind it.
    for (let refused = 0; refused < 2; refused++) {
      member.pendingCommits
        .shift()
        ?.reject(new Error('The provided generation id is not the current generation'));
      await settle();
    }
    expect(member.pendingCommits).toEqual([]);
    expect(logged).toContainEqual({ level: 'debug', message: 'commit failed; trying again' });
    expect(fatal).toEqual([]);
    // The new lane starts from the ledger as the broker holds it, passes over the records this
    // member settled there, and commits past them.
    member.holdCommits = false;
    member.fetch(EVENTS);
    expect(deliveries.started.slice(3)).toEqual([]);
    await tick();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(3);
  });

  it('an assignment still being set up when the next join comes is dropped: no lane of a stale generation', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 2);
    cluster.produce(TIER_1, 0, 2);
    const setup = await running(cluster, { tiers: [TIER_1] }, { [EVENTS]: [0] });
    const { member, ledger } = setup;
    member.take();
    const release = ledger.hold();
    member.rebalance();
    member.assign({ [EVENTS]: [0], [TIER_1]: [0] });
    await settle();
    member.rebalance();
    member.assign({ [TIER_1]: [0] });
    await settle();
    release();
    await settle();
    // Only the latest generation's partition became a lane.
    expect(member.take().filter((c) => c.startsWith('seek'))).toEqual([`seek ${TIER_1}:0@0`]);
    expect(setup.consumer.laneModes().size).toBe(0);
  });

  it('a rebalance heard while an assignment is still being set up drops it: no lane starts that the hand-over did not see', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    const setup = await running(cluster);
    const { member, ledger, deliveries } = setup;
    member.take();
    // The next join's ledger read is slow; the group rebalances again meanwhile.
    const release = ledger.hold();
    member.rebalance();
    member.assign({ [EVENTS]: [0] });
    await settle();
    const rejoin = member.rebalance();
    release();
    await settle();
    await rejoin;
    // Its lanes would have sent 0..2 with nothing to commit them before the rejoin, and the
    // partition's next owner (this member again, 24 ms later in the CI run that found it) would
    // have read a ledger below them and sent them again.
    expect(member.take().filter((c) => c.startsWith('seek'))).toEqual([]);
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual([]);
    member.assign({ [EVENTS]: [0] });
    await settle();
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual(['events@0', 'events@1', 'events@2']);
    for (const id of deliveries.started.slice()) await deliveries.end(id);
    await stopped(setup);
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(3);
  });

  it('a rejoin without a hand-over (the coordinator forgot the member) gives the partition back: what this member settled is not sent again, even across a dropped assignment', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 4);
    const setup = await running(cluster);
    const { member, ledger, deliveries } = setup;
    member.fetch(EVENTS);
    for (const id of ['events@0', 'events@1', 'events@3']) await deliveries.end(id);
    // No hand-over first (kafkajs rejoins at once after UNKNOWN_MEMBER_ID): events@2 is abandoned
    // and nothing was committed.
    const release = ledger.hold();
    member.assign({ [EVENTS]: [0] });
    await settle();
    await deliveries.endAborted();
    // That join's set-up is dropped by a rebalance; the next join gives the partition back.
    member.rebalance();
    release();
    await settle();
    member.assign({ [EVENTS]: [0] });
    await settle();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBeUndefined();
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual(['events@0', 'events@1', 'events@2', 'events@3', 'events@2']);
    await deliveries.end('events@2');
    await tick();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(4);
    await stopped(setup);
  });

  it("a ledger another writer moved (an operator's rewind) is not overruled by what the revoked lanes settled", async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    const { member, deliveries } = await running(cluster);
    member.fetch(EVENTS);
    for (const id of ['events@0', 'events@1', 'events@2']) await deliveries.end(id);
    // The group rejoins without a hand-over; meanwhile a rewind moved the ledger back to 0.
    cluster.commit(EVENTS, 0, undefined, { untilOffset: 3, atMs: 1_000_000, by: 'alice' });
    member.assign({ [EVENTS]: [0] });
    await settle();
    member.fetch(EVENTS);
    expect(deliveries.started.slice(3)).toEqual(['events@0', 'events@1', 'events@2']);
    expect(['events@0', 'events@1', 'events@2'].map((id) => deliveries.rewoundBy.get(id))).toEqual([
      'alice',
      'alice',
      'alice',
    ]);
  });

  it('stop() makes a final commit of everything that moved, records passed over included, then leaves', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 1);
    cluster.produce(EVENTS, 1, 3, 'other.type');
    const setup = await running(cluster, {
      subscription: { selection: EventSelection.of({ eventTypes: ['shipment.updated'] }) },
    });
    const { consumer, member, deliveries } = setup;
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual(['events@0']);
    await deliveries.end('events@0');
    await tick();
    expect(member.take()).toContain(`commit ${EVENTS}:0@4`);
    // Records of other types only: the periodic commit waits out its quiet period.
    cluster.produce(EVENTS, 4, 2, 'other.type');
    cluster.produce(EVENTS, 6, 1);
    member.fetch(EVENTS);
    await tick();
    expect(member.take()).toEqual([]);
    // A periodic commit still on its way when stop() comes is waited for, then the final one goes.
    member.holdCommits = true;
    await deliveries.end('events@6');
    await tick();
    expect(member.take()).toEqual([`commit ${EVENTS}:0@7`]);
    cluster.produce(EVENTS, 7, 2, 'other.type');
    member.fetch(EVENTS);
    const stopping = consumer.stop();
    await settle();
    expect(member.take()).toEqual([`pause ${EVENTS}:0`]);
    member.holdCommits = false;
    member.pendingCommits.shift()?.resolve();
    await stopping;
    expect(member.take()).toEqual([`commit ${EVENTS}:0@9`, 'leave']);
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(9);
  });

  it("a tenant's consumer hands over only its tenant's records; the others are passed over and committed past", async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 1, 'shipment.updated', 'acme');
    cluster.produce(EVENTS, 1, 1, 'shipment.updated', 'globex');
    cluster.produce(EVENTS, 2, 1);
    cluster.produce(EVENTS, 3, 1, 'shipment.updated', 'acme');
    const setup = await running(cluster, {
      subscription: { selection: EventSelection.of({ tenant: 'acme' }) },
    });
    const { member, deliveries } = setup;
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual(['events@0', 'events@3']);
    await deliveries.end('events@0');
    await deliveries.end('events@3');
    await tick();
    expect(member.take()).toContain(`commit ${EVENTS}:0@4`);
    await stopped(setup);
  });

  it('stop() leaves a record it abandoned below the ledger', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    const setup = await running(cluster);
    const { member, deliveries } = setup;
    member.fetch(EVENTS);
    await deliveries.end('events@0');
    await deliveries.end('events@2');
    await stopped(setup);
    expect(member.take()).toEqual([
      `pause ${EVENTS}:0`,
      `seek ${EVENTS}:0@0`,
      `resume ${EVENTS}:0`,
      `pause ${EVENTS}:0`,
      `commit ${EVENTS}:0@1`,
      'leave',
    ]);
  });

  it('a committed offset below the log start at join is a gap: recorded first, then committed past, and the lane starts at the log start', async () => {
    const cluster = new FakeCluster();
    // Retention deleted 0..9; the group had read up to 3.
    cluster.produce(EVENTS, 10, 3);
    cluster.commit(EVENTS, 3);
    const gaps: PartitionGap[] = [];
    const setup = await running(cluster, { onGap: async (gap) => void gaps.push(gap) });
    const { member, deliveries } = setup;
    expect(gaps).toEqual([
      expect.objectContaining({ topic: EVENTS, partition: 0, lostFrom: 3, lostTo: 9, lostCount: 7 }),
    ]);
    expect(member.take()).toEqual([
      `pause ${EVENTS}:0`,
      `commit ${EVENTS}:0@10`,
      `seek ${EVENTS}:0@10`,
      `resume ${EVENTS}:0`,
    ]);
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual(['events@10', 'events@11', 'events@12']);
    for (const id of deliveries.started.slice()) await deliveries.end(id);
    await tick();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(13);
  });

  it('a gap on a tier partition is recorded the same way; a gap that cannot be recorded is fatal and nothing moves past it', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 1);
    cluster.commit(EVENTS, 0);
    // Never committed on: a tier is the subscriber's own, so its records from 0 were its to read.
    cluster.produce(TIER_1, 5, 2);
    const failing = await running(
      cluster,
      { tiers: [TIER_1], onGap: async () => Promise.reject(new Error('DLQ away')) },
      { [EVENTS]: [0], [TIER_1]: [0] },
    );
    await tick();
    expect(failing.fatal.map((e) => e.message)).toEqual([
      `could not record the gap ${TIER_1}:0 0..4: DLQ away`,
    ]);
    expect(cluster.committed.get(`${TIER_1}:0`)).toBeUndefined();
    expect(failing.member.take().filter((c) => c.startsWith('commit') || c.startsWith('seek'))).toEqual([]);

    const gaps: PartitionGap[] = [];
    const setup = await running(
      cluster,
      { tiers: [TIER_1], onGap: async (gap) => void gaps.push(gap) },
      { [EVENTS]: [0], [TIER_1]: [0] },
    );
    expect(gaps.map((g) => [g.topic, g.lostFrom, g.lostTo, g.lostCount])).toEqual([[TIER_1, 0, 4, 5]]);
    expect(cluster.committed.get(`${TIER_1}:0`)).toBe(5);
    expect(setup.member.take()).toContain(`seek ${TIER_1}:0@5`);
  });

  it("reads exactly the tiers it is built with: a tier added is read from its log start, one left out is not read (which tiers to give it, unsettled ones included, is OwnTopics.tiersToRead's choice)", async () => {
    const cluster = new FakeCluster();
    cluster.produce(TIER_1, 0, 2);
    cluster.produce(TIER_2, 0, 2);
    // First with tier 1 only.
    const one = await running(cluster, { tiers: [TIER_1] }, { [EVENTS]: [0], [TIER_1]: [0] });
    expect(one.member.topics).toEqual([EVENTS, TIER_1]);
    one.member.fetch(TIER_1);
    expect(one.deliveries.started).toEqual([`${TIER_1}@0`, `${TIER_1}@1`]);
    await one.deliveries.end(`${TIER_1}@0`);
    await one.deliveries.end(`${TIER_1}@1`);
    await stopped(one);
    expect(cluster.committed.get(`${TIER_1}:0`)).toBe(2);

    // Grown to two tiers (a new definition starts a new consumer): tier 2 is read from its log
    // start, tier 1 from its ledger.
    const two = await running(
      cluster,
      { tiers: [TIER_1, TIER_2] },
      { [EVENTS]: [0], [TIER_1]: [0], [TIER_2]: [0] },
    );
    expect(two.member.topics).toEqual([EVENTS, TIER_1, TIER_2]);
    expect(two.member.take().filter((c) => c.startsWith('seek'))).toEqual([
      `seek ${EVENTS}:0@0`,
      `seek ${TIER_1}:0@2`,
      `seek ${TIER_2}:0@0`,
    ]);
    two.member.fetch(TIER_1);
    two.member.fetch(TIER_2);
    expect(two.deliveries.started).toEqual([`${TIER_2}@0`, `${TIER_2}@1`]);
    await stopped(two);
    expect(cluster.committed.get(`${TIER_2}:0`)).toBeUndefined();

    // Built with tier 1 only: tier 2's two unsettled records are not read. The runner never
    // builds it so while tier 2 holds them (pusher-core's OwnTopics).
    const three = await running(cluster, { tiers: [TIER_1] }, { [EVENTS]: [0], [TIER_1]: [0] });
    expect(three.member.topics).toEqual([EVENTS, TIER_1]);
    three.member.fetch(TIER_2);
    expect(three.deliveries.started).toEqual([]);
    expect(three.logged.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  it('a tier with nothing above its ledger is not fetched until the end-offset watch sees a record arrive; a revoke cancels the wait', async () => {
    const cluster = new FakeCluster();
    cluster.produce(TIER_1, 0, 2);
    cluster.commit(TIER_1, 2);
    const endWatch = new EndOffsetWatch({
      ends: async (topics) =>
        new Map(
          topics.map((t) => {
            const log = cluster.log(t, 0);
            return [t, new Map([[0, (log?.logStart ?? 0) + (log?.records.length ?? 0)]])] as const;
          }),
        ),
      everyMs: 5,
      log: () => undefined,
    });
    const kafka = createKafka({ brokers: ['127.0.0.1:1'], clientId: 'unit', quiet: true });
    const setup = await running(
      cluster,
      { tiers: [TIER_1], process: { kafka, endWatch } },
      { [EVENTS]: [0], [TIER_1]: [0] },
    );
    expect(setup.member.take()).toContain(`seek ${TIER_1}:0@2`);
    expect(setup.member.calls).not.toContain(`resume ${TIER_1}:0`);
    expect(endWatch.waiting).toBe(1);

    cluster.produce(TIER_1, 2, 1);
    await vi.waitFor(() => expect(setup.member.calls).toContain(`resume ${TIER_1}:0`));
    setup.member.fetch(TIER_1);
    expect(setup.deliveries.started).toEqual([`${TIER_1}@2`]);
    await setup.deliveries.end(`${TIER_1}@2`);
    await stopped(setup);
    expect(cluster.committed.get(`${TIER_1}:0`)).toBe(3);

    // A new assignment whose tier sleeps, then a rebalance: the wait ends with the lane.
    const again = await running(
      cluster,
      { tiers: [TIER_1], process: { kafka, endWatch } },
      { [EVENTS]: [0], [TIER_1]: [0] },
    );
    expect(endWatch.waiting).toBe(1);
    again.member.assign({ [EVENTS]: [0] });
    await settle();
    expect(endWatch.waiting).toBe(0);
    await stopped(again);
    endWatch.stop();
  });

  it('a crash kafkajs restarts from revokes the lanes; one it does not restart from is fatal', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 1);
    const setup = await running(cluster);
    const { member, deliveries, fatal, consumer } = setup;
    member.fetch(EVENTS);
    member.crash(new Error('broker went away'), true);
    expect(deliveries.signals.get('events@0')?.aborted).toBe(true);
    expect(consumer.laneModes().size).toBe(0);
    expect(fatal).toEqual([]);
    member.crash(new Error('not authorized'), false);
    expect(fatal.map((e) => e.message)).toEqual(['not authorized']);
  });

  it('each commit says since when copies of the records above it may exist: when the oldest unsettled record was taken, else the commit', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    const setup = await running(cluster);
    const { member, deliveries } = setup;
    const taken = Date.now();
    member.fetch(EVENTS);
    await deliveries.end('events@0');
    await deliveries.end('events@2');
    await tick();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(1);
    // This process's clock when record 1 was taken, not its Kafka timestamp (1_000_000 + offset in
    // the fake): a backlog's or a rewind's records were produced long before their chain began.
    const since = cluster.openSince.get(`${EVENTS}:0`) ?? 0;
    expect(since).toBeGreaterThanOrEqual(taken);
    expect(since).toBeLessThanOrEqual(Date.now());
    await deliveries.end('events@1');
    await tick();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(3);
    expect(cluster.openSince.get(`${EVENTS}:0`)).toBeGreaterThanOrEqual(since);
  });

  it('at a join, records above the ledger whose copy is already downstream are passed over, not attempted again, and the ledger moves over them', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 8);
    cluster.produce(TIER_1, 0, 4);
    // A member killed after copying 3 and 5 (events) and 1 (tier 1) on, before committing them.
    cluster.commit(EVENTS, 2, 1_000_002);
    cluster.commit(TIER_1, 1, 1_000_001);
    const asked: UnsettledRange[][] = [];
    const copies = async (ranges: readonly UnsettledRange[]) => {
      asked.push([...ranges]);
      return new Map([
        [`${EVENTS}:0`, [3, 5]],
        [`${TIER_1}:0`, [1]],
      ]);
    };
    const setup = await running(cluster, { copies, tiers: [TIER_1] }, { [EVENTS]: [0], [TIER_1]: [0] });
    const { member, deliveries, logged } = setup;
    expect(asked).toEqual([
      [
        { topic: EVENTS, partition: 0, from: 2, to: 8, sinceMs: 1_000_002 },
        { topic: TIER_1, partition: 0, from: 1, to: 4, sinceMs: 1_000_001 },
      ],
    ]);
    expect(logged.map((l) => l.message)).toContain(
      'records whose copy is already downstream are passed over',
    );
    member.fetch(EVENTS);
    member.fetch(TIER_1);
    await settle();
    expect(deliveries.started).toEqual([
      'events@2',
      'events@4',
      'events@6',
      'events@7',
      `${TIER_1}@2`,
      `${TIER_1}@3`,
    ]);
    for (const id of deliveries.started.slice()) await deliveries.end(id);
    await tick();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(8);
    expect(cluster.committed.get(`${TIER_1}:0`)).toBe(4);
  });

  it('a ledger whose commit does not say openSince (a new group, another writer, a rewind) starts a new chain: nothing is asked, every record is attempted, and the ledger is stamped first', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 4);
    cluster.commit(EVENTS, 1);
    const copies = vi.fn(async () => new Map([[`${EVENTS}:0`, [2]]]));
    const before = Date.now();
    const { member, deliveries } = await running(cluster, { copies });
    expect(member.take()).toEqual([
      `pause ${EVENTS}:0`,
      `commit ${EVENTS}:0@1`,
      `seek ${EVENTS}:0@1`,
      `resume ${EVENTS}:0`,
    ]);
    // A kill from here on leaves a ledger the next join looks for copies by.
    expect(cluster.openSince.get(`${EVENTS}:0`)).toBeGreaterThanOrEqual(before - 1000);
    member.fetch(EVENTS);
    expect(copies).not.toHaveBeenCalled();
    expect(deliveries.started).toEqual(['events@1', 'events@2', 'events@3']);
  });

  it('a look for copies that fails is logged and the join goes on: the records are attempted (a repeat, never a loss)', async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 3);
    cluster.commit(EVENTS, 1, 1_000_001);
    const copies = async (): Promise<Map<string, number[]>> => {
      throw new Error('Kafka away');
    };
    const { member, deliveries, logged, fatal } = await running(cluster, { copies });
    member.fetch(EVENTS);
    expect(deliveries.started).toEqual(['events@1', 'events@2']);
    expect(logged).toContainEqual({
      level: 'warn',
      message: 'could not look for copies already downstream; records above the ledger are attempted again',
    });
    expect(fatal).toEqual([]);
  });

  it("a rewind's mark: records below its offset reach the handler marked, commits carry it while below, and a member joining mid-range marks the rest", async () => {
    const cluster = new FakeCluster();
    cluster.produce(EVENTS, 0, 8);
    // The rewind moved the ledger from 6 back to 2; its commit carries no openSince.
    const rewind = { untilOffset: 6, atMs: Date.parse('2026-12-04T10:00:00Z'), by: 'alice' };
    cluster.commit(EVENTS, 2, undefined, rewind);
    const copies = vi.fn(async () => new Map<string, number[]>());
    const first = await running(cluster, { copies, subscription: { maxInFlightPerPartition: 2 } });
    // The join's stamp keeps the mark.
    expect(cluster.rewind.get(`${EVENTS}:0`)).toEqual(rewind);
    first.member.fetch(EVENTS);
    await first.deliveries.end('events@2');
    await first.deliveries.end('events@3');
    await tick();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(4);
    expect(cluster.rewind.get(`${EVENTS}:0`)).toEqual(rewind);
    // A restart mid-range: the next member reads the mark from the ledger.
    await stopped(first);
    const second = await running(cluster, { copies });
    second.member.fetch(EVENTS);
    expect(second.deliveries.started).toEqual(['events@4', 'events@5', 'events@6', 'events@7']);
    const marks = (d: typeof first.deliveries) =>
      d.started.map((id) => `${id} ${d.rewoundBy.get(id) ?? 'no mark'}`);
    expect([...marks(first.deliveries), ...marks(second.deliveries)]).toEqual([
      'events@2 alice',
      'events@3 alice',
      'events@4 alice',
      'events@5 alice',
      'events@4 alice',
      'events@5 alice',
      'events@6 no mark',
      'events@7 no mark',
    ]);
    await second.deliveries.end('events@4');
    await tick();
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(5);
    expect(cluster.rewind.get(`${EVENTS}:0`)).toEqual(rewind);
    for (const id of ['events@5', 'events@6', 'events@7']) await second.deliveries.end(id);
    await tick();
    // Past the range: the mark is dropped.
    expect(cluster.committed.get(`${EVENTS}:0`)).toBe(8);
    expect(cluster.rewind.has(`${EVENTS}:0`)).toBe(false);
  });
});
