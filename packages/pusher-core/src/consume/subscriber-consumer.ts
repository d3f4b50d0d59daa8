import { setTimeout as sleep } from 'node:timers/promises';
import type { EventSelection, LogFn } from '@hookstream/contracts';
import {
  AdminGroupLedger,
  type Assignment,
  type ConsumedRecord,
  carriedRewind,
  type GroupLedger,
  type GroupMember,
  gapAt,
  joinPosition,
  type KafkaAdmin,
  type KafkaConnection,
  KafkajsGroupMember,
  type LedgerRewind,
  type MemberBatch,
  type MemberCrash,
  type PartitionGap,
  type PartitionOffset,
  type PartitionReading,
  type StartedFrom,
  type StartFrom,
} from '@hookstream/kafka';
import type { EndOffsetWatch } from './end-offset-watch.ts';
import { EventsLane, type LaneMode, type LaneOwner } from './lanes/events-lane.ts';
import type { Lane } from './lanes/lane.ts';
import { MemberLanes } from './lanes/member-lanes.ts';
import { TierLane } from './lanes/tier-lane.ts';
import { LedgerCommitter } from './ledger/ledger-committer.ts';
import { mergedSettled, type SettledOffsets } from './ledger/settled-offsets.ts';
import type { MemoryBudget } from './memory-budget.ts';
import type { RecordHandler } from './record-handler.ts';
import type { EventsTap } from './tap/events-tap.ts';

/**
 * What one subscriber consumes, and how: fixed when its definition loads (pusher-core's
 * SubscriberTopology builds it once), so the consumer takes one object, not its parts.
 */
export interface Subscription {
  readonly groupId: string;
  /** The events topic; its start position is prepared for a brand-new group. */
  readonly eventsTopic: string;
  /** The subscriber's notices topic, read by the same group and begun where its events begin; null: none. */
  readonly noticesTopic: string | null;
  /**
   * The records the subscriber takes, by type and tenant (EventSelection): others are passed
   * over undecoded, and a tenant's subscriber never sees another tenant's record.
   */
  readonly selection: EventSelection;
  /** `key`: at most one record per key in flight, so one key's records settle in order. */
  readonly ordering: 'none' | 'key';
  /**
   * `tenant`: an events lane's records waiting behind its window run a tenant at a time, in
   * turn, and the lane reads ahead within the budget (see EventsLane). null: oldest first.
   */
  readonly fairness: 'tenant' | null;
  /** Records of one partition in flight at once. */
  readonly maxInFlightPerPartition: number;
  /**
   * When a record of a retry tier may be handed over (ms since epoch), or null for at once. Each
   * waits in its tier's lane on a timer, so waiting never holds a fetch.
   */
  dueAtMs(record: ConsumedRecord): number | null;
}

/** What the process shares with every subscriber's consumer. */
export interface ConsumerProcess {
  readonly kafka: KafkaConnection;
  /** A connected admin, for the ledger's offsets at every join; else one of its own each time. */
  readonly admin?: KafkaAdmin | undefined;
  /**
   * The process's shared fetch of the events topic: while this subscriber keeps up, its own
   * fetch of the events topic stays paused and the tap hands it its records; behind it, the tap's
   * catch-up reader reads for it. Without one, the group member fetches everything itself.
   */
  readonly tap?: EventsTap | null;
  /**
   * The process's memory budget: records queued behind an events lane's window and a tier lane's
   * records are charged to it, and a lane without room pauses its fetch.
   */
  readonly budget?: MemoryBudget | null;
  /**
   * The process's watch of partitions nobody fetches: a retry tier with no record above the
   * ledger at a join is not fetched until it has one. Without it, every tier is fetched.
   */
  readonly endWatch?: EndOffsetWatch | null;
  /** How long a fetch waits for data; small keeps latency low when partitions are idle. */
  readonly maxWaitTimeInMs?: number | undefined;
  /**
   * At most this many bytes per fetch response (kafkajs default 10 MiB, 1 MiB per partition).
   * Every group holds its own fetched batches, so a process with many groups bounds this.
   */
  readonly fetchMaxBytes?: number | undefined;
  readonly sessionTimeoutMs?: number | undefined;
  readonly partitionsConsumedConcurrently?: number | undefined;
}

export interface SubscriberConsumerOptions {
  readonly subscription: Subscription;
  readonly process: ConsumerProcess;
  /**
   * The subscriber's retry tiers this consumer reads, in tier order: the same group reads them,
   * each partition a lane that starts records when `dueAtMs` says, from their beginning when
   * the group has no ledger entry for them yet.
   */
  readonly tiers?: readonly string[];
  readonly start: StartFrom;
  /** Where each record goes: the subscriber's delivery, which says when it settled. */
  readonly handle: RecordHandler;
  readonly log: LogFn;
  /** Called when kafkajs gives up (a crash it will not restart from); the process should exit. */
  readonly onFatal: (error: Error) => void;
  /**
   * A partition's ledger was found below its log start at a join (retention deleted what the
   * group had not read): resolves once the gap is durable (a dead letter), before the lane
   * starts at the log start and that is committed. A rejection is fatal: the next start looks
   * again. Without one the gap is only logged, as an error.
   */
  readonly onGap?: (gap: PartitionGap) => Promise<void>;
  /**
   * The records above the ledger whose copy is already downstream (a retry tier, the DLQ) by
   * `topic:partition`: a member killed after a copy was acknowledged and before its offset was
   * committed. Asked at each join for the partitions with records above a ledger whose commit
   * says `openSince` (the ledger committer writes it, and the join stamps a ledger without it);
   * those records are settled (passed over), so one event keeps one retry chain.
   * A rejection is logged and the join goes on without (a repeat, never a loss).
   */
  readonly copies?: (ranges: readonly UnsettledRange[]) => Promise<ReadonlyMap<string, readonly number[]>>;
}

/** Records of one partition above its ledger at a join, and since when a copy of one may exist. */
export interface UnsettledRange {
  readonly topic: string;
  readonly partition: number;
  /** The committed offset: the first record above the ledger. */
  readonly from: number;
  /** The partition's end offset at the join (excluded). */
  readonly to: number;
  /** No copy of these records is older than this (ms; the last commit's `openSince`). */
  readonly sinceMs: number;
}

/** The group as the consumer drives it; by default kafkajs's consumer and Kafka's admin API. */
export interface ConsumerGroup {
  readonly member: GroupMember;
  readonly ledger: GroupLedger;
}

/** Settled records reach the committed ledger within about this long. */
const COMMIT_EVERY_MS = 1000;
/** A stop's last commit waits at most this long (kafkajs retries a failing commit for seconds). */
const FINAL_COMMIT_MS = 5000;
/** A retry-tier lane holds at least this many records waiting for their due time (or in flight). */
const TIER_CAPACITY_MIN = 512;
/** Reads of the ledger at a join, a second apart, before the member gives up. */
const LEDGER_READS = 3;
/**
 * How long a rebalance's rejoin waits for the revoked lanes' requests in flight, at most: the
 * member sends no heartbeat meanwhile, so it stays well within the session timeout.
 */
const HANDOVER_MAX_MS = 10_000;
/** What the hand-over's commit gets when the wait used up the bound: one round trip. */
const HANDOVER_COMMIT_MIN_MS = 1000;
const DEFAULT_SESSION_TIMEOUT_MS = 30_000;

/**
 * One subscriber's consumer group: its committed offsets are the subscriber's ledger, and the
 * group protocol shares its partitions among the instances running it. Each events-topic
 * partition it holds is an EventsLane, fed by the process's tap while it keeps up and by this
 * member's own fetch otherwise; retry tiers are fetched by the member itself. Records run
 * concurrently (or one per key), and the ledger only ever moves over the contiguous settled
 * prefix, so a crash at any moment can cause redelivery but never loss.
 */
export class SubscriberConsumer {
  readonly #options: SubscriberConsumerOptions;
  readonly #sub: Subscription;
  readonly #process: ConsumerProcess;
  /** The topics the group reads besides the events topic: the notices topic, then the tiers. */
  readonly #extraTopics: readonly string[];
  readonly #member: GroupMember;
  readonly #ledger: GroupLedger;
  readonly #lanes = new MemberLanes();
  /** Lanes revoked and not yet folded into `#revokedSettled` (their records may still be in flight). */
  #revoked: Lane[] = [];
  /**
   * Per `topic:partition`, what the lanes revoked since lanes last started settled: it bounds a
   * gap found next, and the next lanes of those partitions start past it. Kept until lanes start
   * again, not before: an assignment dropped while being set up started none.
   */
  #revokedSettled = new Map<string, SettledOffsets>();
  /**
   * Bumped at every revoke (a join, a rebalance heard, a crash, lanes lost), so an assignment
   * still being set up then is dropped: its lanes would start after the hand-over looked for
   * lanes to commit, and the next join would start from a ledger without their records.
   */
  #generation = 0;
  #assigned: Promise<void> = Promise.resolve();
  readonly #committer: LedgerCommitter;
  #commitTimer: NodeJS.Timeout | undefined;
  #stopping = false;
  /** Rejects start() while it waits for the first fetch. */
  #startFailed: ((error: Error) => void) | null = null;
  readonly #owner: LaneOwner;
  /** Cancels the end-offset watch's wake-ups of this assignment's sleeping tier lanes. */
  readonly #wakeups: (() => void)[] = [];
  /** The hand-over of the latest rebalance while it runs: a rejoin after it waits for it too. */
  #handingOver: Promise<void> | null = null;
  /** Ends this subscriber's claim on the tap's recent records of its types. */
  #unwant: () => void = () => undefined;

  /** When this consumer started: no copy it made downstream is older. A stamp at a join says this as `openSince`. */
  readonly startedAtMs: number;

  constructor(options: SubscriberConsumerOptions, group: ConsumerGroup = kafkajsGroup(options)) {
    this.#options = options;
    this.#sub = options.subscription;
    this.#process = options.process;
    const notices = this.#sub.noticesTopic;
    this.#extraTopics = [...(notices === null ? [] : [notices]), ...(options.tiers ?? [])];
    this.startedAtMs = Date.now();
    this.#member = group.member;
    this.#ledger = group.ledger;
    this.#committer = new LedgerCommitter({
      member: this.#member,
      lanes: () => this.#lanes.current(),
      generation: () => this.#generation,
      log: options.log,
    });
    const topic = this.#sub.eventsTopic;
    // kafkajs refuses seek/pause/resume while it restarts a crashed member: the lanes then stop
    // (the next join makes new ones) rather than let an error escape into the tap's dispatch.
    this.#owner = {
      readOwn: (partition, offset) => {
        if (this.#stopping) return;
        try {
          this.#member.seek(topic, partition, offset);
          this.#member.resume(topic, [partition]);
        } catch (err) {
          this.#lost('could not read a partition itself', err);
        }
      },
      pauseOwn: (partition) => this.#pauseFetch(topic, partition),
    };
  }

  /**
   * Per topic, the Kafka timestamp (ms) of the oldest record this instance holds unsettled: in
   * flight, or waiting in a tier until due. Topics with none are absent.
   */
  oldestUnsettled(): Map<string, number> {
    return this.#lanes.oldestUnsettled();
  }

  /**
   * Where each events partition this member holds gets its records: `riding` the process's
   * tap, its `own` fetch, or `held` (stopping).
   */
  laneModes(): Map<number, LaneMode> {
    return this.#lanes.modes();
  }

  /** Joins the group (after positioning a brand-new one) and starts consuming. */
  async start(): Promise<StartedFrom> {
    const startedFrom = await this.#ledger.prepare();
    this.#unwant = this.#process.tap?.want(this.#sub.selection.types) ?? (() => undefined);
    // The first completed fetch means the group was joined and every partition's position
    // resolved: from here on a 'latest' subscriber sees everything produced.
    // A crash before then (a missing ACL, say) fails start() instead of leaving it waiting.
    let fetchedFirst: () => void = () => undefined;
    const fetched = new Promise<void>((resolve, reject) => {
      this.#startFailed = reject;
      fetchedFirst = resolve;
    });
    // Awaited below; a crash while the member is still joining must not count as unhandled.
    fetched.catch(() => undefined);
    try {
      // Only partitions without a ledger entry start from the beginning: those added after the
      // group began, and tiers never committed on.
      await this.#member.join([this.#sub.eventsTopic, ...this.#extraTopics], {
        joined: (assignment) => {
          this.#options.log('info', 'joined group', { groupId: this.#sub.groupId, assignment });
          this.#assign(assignment);
        },
        rebalancing: (why) => {
          const revoked = this.#lanes.current();
          // Records waiting (limiter, breaker) are sent within the hand-over's bound: one
          // abandoned here left a hole below records settled after it, which the partition's next
          // owner, starting at the hole, sent again.
          this.#revokeLanes(false);
          this.#options.log('info', why === 'rebalance' ? 'group is rebalancing' : 'rejoining the group', {
            lanes: revoked.length,
          });
          return this.#handOverAfter(revoked);
        },
        crashed: (crash) => this.#crashed(crash),
        evicted: ({ memberId, outcome, ms }) =>
          this.#options.log(
            outcome === 'timed-out' ? 'warn' : 'info',
            'crashed member taken out of the group',
            {
              groupId: this.#sub.groupId,
              memberId,
              outcome,
              ms,
            },
          ),
        firstFetch: () => fetchedFirst(),
        batch: (batch) => this.#batch(batch),
      });
      await fetched;
      await this.#assigned;
    } finally {
      this.#startFailed = null;
    }
    this.#commitTimer = setInterval(() => void this.#committer.commit(false), COMMIT_EVERY_MS);
    this.#commitTimer.unref();
    return startedFrom;
  }

  /**
   * Stops taking work, abandons waits (in-flight HTTP attempts finish within their timeout),
   * commits the settled prefix and leaves the group.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#commitTimer);
    for (const cancel of this.#wakeups.splice(0)) cancel();
    this.#unwant();
    this.#lanes.holdAll();
    await this.#lanes.idle();
    await Promise.race([this.#committer.commit(true), sleep(FINAL_COMMIT_MS)]);
    await this.#member.leave();
  }

  #crashed({ error, explained, restart }: MemberCrash): void {
    this.#options.log('error', 'consumer crashed', { error: error.message, restart });
    // Restarted or not, the member leaves the group: its partitions may go elsewhere.
    this.#revokeLanes();
    if (restart) return;
    this.#startFailed?.(explained);
    this.#options.onFatal(explained);
  }

  /**
   * A new assignment: every partition starts paused, then each becomes a lane at the group's
   * committed offset (a partition without one: its log start), past the records whose copy is
   * already downstream and what this member's revoked lanes of it settled (`settledAbove`).
   * Events lanes ride the tap when it has seen that far; tier lanes read from an explicit seek.
   * Lanes of the previous assignment end first, so a record still in flight there is never begun
   * again beside itself, and no lane trusts the member's fetch position: it moves past records a
   * lane took and had not settled.
   */
  #assign(assignment: Assignment): void {
    this.#revokeLanes();
    const generation = this.#generation;
    const held = Object.entries(assignment).filter(([, partitions]) => partitions.length > 0);
    if (held.length === 0) {
      // Nothing to start: the revoked lanes shrink to what they settled once their records end.
      void this.#lanes.revokedIdle().then(() => this.#foldRevoked());
      return;
    }
    for (const [topic, partitions] of held) this.#member.pause(topic, partitions);
    this.#assigned = (async () => {
      // Where the time between the join and the lanes' start went: the group's events wait meanwhile.
      const at = { assignedAt: Date.now(), revokedMs: 0, ledgerMs: 0, copiesMs: 0, stampMs: 0 };
      const since = (from: number) => Date.now() - from;
      // A revoke meanwhile (a rebalance heard, the next join, a crash) voids this assignment.
      const dropped = () => {
        if (this.#stopping) return true;
        if (generation === this.#generation) return false;
        this.#options.log('info', 'assignment dropped before its lanes started', {
          afterMs: since(at.assignedAt),
        });
        return true;
      };
      await this.#lanes.revokedIdle();
      at.revokedMs = since(at.assignedAt);
      this.#foldRevoked();
      const settledBefore = this.#revokedSettled;
      const ledgers = await this.#readLedger(held.map(([topic]) => topic));
      at.ledgerMs = since(at.assignedAt) - at.revokedMs;
      if (dropped()) return;
      if (ledgers === null) {
        this.#options.onFatal(new Error(`could not read the ledger of group ${this.#sub.groupId}`));
        return;
      }
      const gaps = held.flatMap(([topic, partitions]) =>
        partitions.flatMap(
          (p) => gapAt(topic, this.#gapReading(topic, p, ledgers, settledBefore), Date.now()) ?? [],
        ),
      );
      if (gaps.length > 0 && !(await this.#recordGaps(gaps, ledgers))) return;
      if (dropped()) return;
      let stepAt = Date.now();
      const copied = await this.#copied(held, ledgers);
      at.copiesMs = since(stepAt);
      if (dropped()) return;
      stepAt = Date.now();
      await this.#stamp(held, ledgers);
      at.stampMs = since(stepAt);
      if (dropped()) return;
      const { assignedAt, ...steps } = at;
      this.#options.log('info', 'lanes starting', { ...steps, totalMs: since(assignedAt) });
      this.#revokedSettled = new Map();
      for (const [topic, partitions] of held) {
        const readings = ledgers.get(topic) ?? [];
        for (const partition of partitions) {
          const reading = readings.find((r) => r.partition === partition);
          const ledger = joinPosition(reading);
          const key = `${topic}:${partition}`;
          // Only a ledger this group's pushers wrote last (openSince, no rewind) or none yet: after
          // an operator's rewind the revoked lanes' offsets are a chain the rewind meant to repeat.
          const ours = reading?.committed == null || (reading.openSinceMs != null && reading.rewind == null);
          const settled = settledAbove(ledger, copied.get(key), ours ? settledBefore.get(key) : undefined);
          if (topic === this.#sub.eventsTopic)
            this.#startEventsLane(partition, ledger, settled, carriedRewind(reading?.rewind, ledger));
          else this.#startTierLane(topic, partition, ledger, settled, reading?.logEnd ?? null);
        }
      }
    })().catch((err: unknown) => this.#lost('could not set up the assignment', err));
  }

  /** `rewind`: the ledger is in a rewound range, whose records the lane marks (LedgerRewind). */
  #startEventsLane(
    partition: number,
    ledger: number,
    settled: SettledOffsets | null,
    rewind: LedgerRewind | null,
  ): void {
    const lane = new EventsLane({
      topic: this.#sub.eventsTopic,
      partition,
      ledger,
      settled,
      rewind,
      tap: this.#process.tap ?? null,
      catchUp: this.#process.tap?.catchUp ?? null,
      owner: this.#owner,
      handle: this.#options.handle,
      ordering: this.#sub.ordering,
      window: this.#sub.maxInFlightPerPartition,
      selection: this.#sub.selection,
      fairness: this.#sub.fairness,
      budget: this.#process.budget ?? null,
      log: this.#options.log,
    });
    this.#lanes.addEvents(lane);
    lane.start();
  }

  /**
   * `logEnd` at or below the ledger: the tier holds nothing to read, so its fetch waits for the
   * process's end-offset watch to see a record arrive (most tiers never hold one, and a member
   * whose partitions are all paused sleeps instead of polling).
   */
  #startTierLane(
    topic: string,
    partition: number,
    ledger: number,
    settled: SettledOffsets | null,
    logEnd: number | null,
  ): void {
    const lane = new TierLane({
      topic,
      partition,
      ledger,
      settled,
      dueAtMs: (record) => this.#sub.dueAtMs(record),
      handle: this.#options.handle,
      ordering: this.#sub.ordering,
      window: this.#sub.maxInFlightPerPartition,
      capacity: Math.max(TIER_CAPACITY_MIN, this.#sub.maxInFlightPerPartition * 4),
      fetch: {
        pause: () => this.#pauseFetch(topic, partition),
        resume: () => this.#resumeFetch(topic, partition),
      },
      budget: this.#process.budget ?? null,
      log: this.#options.log,
    });
    this.#lanes.addTier(lane);
    this.#member.seek(topic, partition, lane.from);
    const watch = this.#process.endWatch ?? null;
    if (watch === null || logEnd === null || logEnd > lane.from) {
      this.#member.resume(topic, [partition]);
      return;
    }
    // Cancelled at the next revoke and at stop, so a wake-up only ever reaches this lane's fetch.
    this.#wakeups.push(watch.whenPast(topic, partition, logEnd, () => this.#resumeFetch(topic, partition)));
  }

  /**
   * The reading a gap is judged by. A retry tier the group never committed on is read from its
   * offset 0: the subscriber's own topic, every record of it is the subscriber's, so records
   * retention deleted below the log start were never read. The events topic and the positioned
   * ones (notices) without a commit start where they start.
   */
  #gapReading(
    topic: string,
    partition: number,
    ledgers: ReadonlyMap<string, readonly PartitionReading[]>,
    settledBefore: ReadonlyMap<string, SettledOffsets>,
  ): PartitionReading | undefined {
    const reading = ledgers.get(topic)?.find((r) => r.partition === partition);
    if (reading === undefined) return undefined;
    const own = topic !== this.#sub.eventsTopic && topic !== this.#sub.noticesTopic;
    const committed = reading.committed ?? (own ? 0 : null);
    // A rejoin mid-run (kafkajs's fetch refused below the log start): what this member's lanes
    // settled and had not committed yet was delivered, not lost.
    const settled = settledBefore.get(`${topic}:${partition}`)?.before;
    if (committed === null || settled === undefined || settled <= committed) return { ...reading, committed };
    return { ...reading, committed: settled, committedAtMs: null };
  }

  /**
   * Offsets above the ledger whose copy is downstream (`options.copies`), by `topic:partition`.
   * Only partitions with records above a ledger whose commit says `openSince` are asked about:
   * a commit without it (another writer, a rewind, an older pusher) starts a new chain.
   */
  async #copied(
    held: readonly (readonly [string, readonly number[]])[],
    ledgers: ReadonlyMap<string, readonly PartitionReading[]>,
  ): Promise<ReadonlyMap<string, readonly number[]>> {
    const copies = this.#options.copies;
    if (copies === undefined) return new Map();
    const ranges: UnsettledRange[] = [];
    for (const [topic, partitions] of held)
      for (const partition of partitions) {
        const r = ledgers.get(topic)?.find((x) => x.partition === partition);
        const from = r?.committed ?? null;
        const to = r?.logEnd ?? null;
        const sinceMs = r?.openSinceMs ?? null;
        if (from !== null && to !== null && sinceMs !== null && to > from)
          ranges.push({ topic, partition, from, to, sinceMs });
      }
    if (ranges.length === 0) return new Map();
    try {
      const found = await copies(ranges);
      const count = [...found.values()].reduce((n, offsets) => n + offsets.length, 0);
      if (count > 0)
        this.#options.log('info', 'records whose copy is already downstream are passed over', {
          groupId: this.#sub.groupId,
          count,
        });
      return found;
    } catch (err) {
      this.#options.log(
        'warn',
        'could not look for copies already downstream; records above the ledger are attempted again',
        {
          groupId: this.#sub.groupId,
          error: err instanceof Error ? err.message : String(err),
        },
      );
      return new Map();
    }
  }

  /**
   * With `options.copies`: a partition whose ledger does not say `openSince` (a brand-new group
   * positioned by prepare(), a tier never committed on, a rewind, an older pusher) gets its join
   * position committed with `openSince` this consumer's start, before any record begins here. A member killed
   * before its committer's first commit then leaves a ledger the next join can look for copies
   * by. A failed commit is only logged: that join's look falls back to none.
   */
  async #stamp(
    held: readonly (readonly [string, readonly number[]])[],
    ledgers: ReadonlyMap<string, readonly PartitionReading[]>,
  ): Promise<void> {
    if (this.#options.copies === undefined) return;
    const now = this.startedAtMs;
    const offsets: PartitionOffset[] = [];
    for (const [topic, partitions] of held)
      for (const partition of partitions) {
        const r = ledgers.get(topic)?.find((x) => x.partition === partition);
        if (r === undefined || (r.openSinceMs ?? null) !== null) continue;
        const offset = joinPosition(r);
        // A rewind's own commit has no openSince: the stamp keeps its mark.
        offsets.push({ topic, partition, offset, openSinceMs: now, rewind: carriedRewind(r.rewind, offset) });
      }
    if (offsets.length === 0) return;
    try {
      await this.#member.commit(offsets);
    } catch (err) {
      this.#options.log('debug', 'could not stamp the ledger for the look for copies; the next commit does', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * Folds what the revoked lanes settled into `#revokedSettled` and lets the lanes go: facts about
   * records (their outcomes are durable), whichever generation settled them. Call it once they
   * are idle, when what they settled is final.
   */
  #foldRevoked(): void {
    for (const lane of this.#revoked) {
      const key = `${lane.topic}:${lane.partition}`;
      const mine = lane.settled();
      const seen = this.#revokedSettled.get(key);
      this.#revokedSettled.set(key, seen === undefined ? mine : mergedSettled(seen, mine));
    }
    this.#revoked = [];
  }

  /**
   * Ends this generation: its lanes, and an assignment still being set up. `abort`: the waits of
   * their records in flight end at once (see MemberLanes.revoke).
   */
  #revokeLanes(abort = true): void {
    this.#generation++;
    for (const cancel of this.#wakeups.splice(0)) cancel();
    this.#revoked.push(...this.#lanes.current());
    this.#lanes.revoke(abort);
  }

  /**
   * Before the member rejoins a rebalancing group: the revoked lanes' requests already sent end
   * (bounded), and what they settled is committed while this member's generation still counts.
   * The partitions' next owners then start past those records instead of sending them again
   * beside requests still on the wire here. Records only waiting (limiter, breaker) were
   * abandoned at the revoke: no attempt of theirs is repeated.
   */
  /**
   * The barrier of this rebalance: this hand-over and any still under way. kafkajs can say
   * "rebalancing" again while the first rejoin waits (its fetch loop runs on and hears it too),
   * and starts a second rejoin; with only its own, empty hand-over that one went ahead while the
   * first lanes' requests were on the wire, and their next owner sent them again.
   */
  #handOverAfter(lanes: readonly Lane[]): Promise<void> {
    const pending = this.#handingOver;
    const handOver = Promise.all([pending, this.#handOver(lanes)]).then(() => undefined);
    this.#handingOver = handOver;
    void handOver.finally(() => {
      if (this.#handingOver === handOver) this.#handingOver = null;
    });
    return handOver;
  }

  async #handOver(lanes: readonly Lane[]): Promise<void> {
    // Also while stopping: stop() commits only the current lanes, and these were revoked.
    if (lanes.length === 0) return;
    // One deadline for both steps: the member sends no heartbeat until it rejoins.
    const boundMs = Math.min(
      HANDOVER_MAX_MS,
      (this.#process.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS) / 3,
    );
    const deadline = Date.now() + boundMs;
    const ended = await Promise.race([
      Promise.all(lanes.map((lane) => lane.idle())).then(() => true),
      sleep(boundMs, false, { ref: false }),
    ]);
    if (!ended) {
      this.#options.log(
        'warn',
        'requests still in flight when the group rejoined; their next owner may send them again',
        {
          groupId: this.#sub.groupId,
          waitedMs: boundMs,
        },
      );
      // What still waits (a limiter, an open breaker) is not sent now: its next owner sends it.
      for (const lane of lanes) lane.hold(true);
    }
    const commitMs = Math.max(HANDOVER_COMMIT_MIN_MS, deadline - Date.now());
    await Promise.race([this.#committer.commitLanes(lanes), sleep(commitMs, undefined, { ref: false })]);
  }

  /**
   * Each gap made durable (`onGap`), then the ledger moved to the log start past it, so the next
   * join does not find it again (if that commit is lost, the gap's record is found instead).
   * False: a gap could not be recorded, and the subscriber ends (onFatal).
   */
  async #recordGaps(
    gaps: readonly PartitionGap[],
    ledgers: ReadonlyMap<string, readonly PartitionReading[]>,
  ): Promise<boolean> {
    const { onGap, log } = this.#options;
    const { groupId } = this.#sub;
    for (const gap of gaps) {
      try {
        if (onGap) await onGap(gap);
        else
          log('error', 'events lost: retention deleted them before the subscriber read them', {
            groupId,
            ...gap,
          });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        this.#options.onFatal(
          new Error(
            `could not record the gap ${gap.topic}:${gap.partition} ${gap.lostFrom}..${gap.lostTo}: ${why}`,
          ),
        );
        return false;
      }
    }
    try {
      await this.#member.commit(
        gaps.map(({ topic, partition, lostTo }) => {
          // A rewind to before the log start: the range past the gap is still the rewind's.
          const rewind = ledgers.get(topic)?.find((r) => r.partition === partition)?.rewind;
          return { topic, partition, offset: lostTo + 1, rewind: carriedRewind(rewind, lostTo + 1) };
        }),
      );
    } catch (err) {
      // A rebalance meanwhile: the next join finds the gap's record and counts it once.
      log('debug', 'commit past a gap failed; the next join looks again', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
    return true;
  }

  /** The ledger of `topics`, read up to LEDGER_READS times a second apart; null: unreadable. */
  async #readLedger(
    topics: readonly string[],
  ): Promise<ReadonlyMap<string, readonly PartitionReading[]> | null> {
    for (let attempt = 1; attempt <= LEDGER_READS; attempt++) {
      try {
        return await this.#ledger.read(topics);
      } catch (err) {
        this.#options.log('warn', 'could not read the ledger; trying again', {
          attempt,
          error: err instanceof Error ? err.message : String(err),
        });
        if (attempt < LEDGER_READS) await sleep(1000);
      }
    }
    return null;
  }

  /** The member cannot go on with its lanes; the next join (or a restart) makes new ones. */
  #lost(what: string, err: unknown): void {
    this.#options.log('warn', `${what}; its lanes stop until the group is joined again`, {
      error: err instanceof Error ? err.message : String(err),
    });
    this.#revokeLanes();
  }

  #batch(batch: MemberBatch): void {
    if (batch.topic === this.#sub.eventsTopic) {
      this.#eventsBatch(batch);
      return;
    }
    // No lane: the assignment is being set up (its partitions are paused and seeked when their
    // lanes start) or was lost; nothing is taken.
    const tier = this.#lanes.tier(batch.topic, batch.partition);
    if (tier === undefined || !batch.current()) return;
    for (let i = 0; i < batch.size; i++) {
      if (this.#stopping) return;
      const record = batch.record(i);
      if (tier.offer(record) !== 'taken') return;
      batch.resolve(record);
    }
  }

  /**
   * The member's own fetch of an events partition (its lane fell behind, or has no tap): records
   * are begun (or passed over) and resolved at once, so the next fetch does not wait for their
   * deliveries; the batch ends early when the lane can ride the tap again or its window is full.
   * Nothing here waits: the member fetches again only once every batch of a fetch has returned.
   */
  #eventsBatch(batch: MemberBatch): void {
    const lane = this.#lanes.events(batch.partition);
    if (lane === undefined || lane.mode !== 'own') return;
    try {
      for (let i = 0; i < batch.size; i++) {
        if (this.#stopping || !batch.current()) break;
        const record = batch.record(i);
        if (lane.fromOwnFetch(record) === 'stop') break;
        batch.resolve(record);
      }
    } finally {
      lane.afterOwnBatch();
    }
  }

  #pauseFetch(topic: string, partition: number): void {
    try {
      this.#member.pause(topic, [partition]);
    } catch {
      // Not running: it fetches nothing anyway.
    }
  }

  #resumeFetch(topic: string, partition: number): void {
    try {
      this.#member.resume(topic, [partition]);
    } catch {
      // Not running: the next run starts unpaused.
    }
  }
}

/** The kafkajs consumer and the admin API behind a subscriber's group. */
function kafkajsGroup({ subscription, process: shared, start }: SubscriberConsumerOptions): ConsumerGroup {
  const { groupId, eventsTopic: topic, noticesTopic } = subscription;
  return {
    member: new KafkajsGroupMember({
      kafka: shared.kafka,
      groupId,
      topic,
      maxWaitTimeInMs: shared.maxWaitTimeInMs,
      fetchMaxBytes: shared.fetchMaxBytes,
      sessionTimeoutMs: shared.sessionTimeoutMs,
      partitionsConsumedConcurrently: shared.partitionsConsumedConcurrently,
    }),
    ledger: new AdminGroupLedger({
      kafka: shared.kafka,
      groupId,
      topic,
      start,
      positionedTopics: noticesTopic === null ? [] : [noticesTopic],
      admin: shared.admin,
    }),
  };
}

/**
 * Where a lane starts past its ledger, and what it passes over: records whose copy is already
 * downstream (`copies`), and what this member's revoked lanes of the partition settled and had
 * not committed. A rejoin without a hand-over (the coordinator forgot the member, a crash, a
 * hand-over cut short by its bound) gives a member its own partitions back; starting at the
 * ledger sent its last second's deliveries again. null: the ledger alone.
 */
function settledAbove(
  ledger: number,
  copies: readonly number[] | undefined,
  revoked: SettledOffsets | undefined,
): SettledOffsets | null {
  if (copies === undefined && revoked === undefined) return null;
  return mergedSettled({ before: ledger, ahead: copies ?? [] }, revoked ?? { before: ledger, ahead: [] });
}
