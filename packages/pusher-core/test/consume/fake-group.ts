import type {
  Assignment,
  ConsumedRecord,
  GroupLedger,
  GroupMember,
  LedgerRewind,
  MemberBatch,
  MemberListener,
  PartitionOffset,
  PartitionReading,
  RejoinCause,
  StartedFrom,
} from '@hookstream/kafka';
import type { HandlerOutcome } from '../../src/consume/record-handler.ts';

export function record(
  topic: string,
  offset: number,
  type = 'shipment.updated',
  tenant?: string,
): ConsumedRecord {
  return {
    topic,
    partition: 0,
    offset: String(offset),
    key: null,
    value: Buffer.from('x'),
    headers: tenant === undefined ? { ce_type: type } : { ce_type: type, ce_tenant: tenant },
    timestampMs: 1_000_000 + offset,
  };
}

const key = (topic: string, partition: number) => `${topic}:${partition}`;

/** A partition's log as the fake broker holds it: records from `logStart` on. */
interface Log {
  logStart: number;
  records: ConsumedRecord[];
}

/**
 * The broker side of a fake group: each partition's log and the group's committed offsets.
 * Shared by the members of successive consumers, as Kafka is.
 */
export class FakeCluster {
  readonly #logs = new Map<string, Log>();
  readonly committed = new Map<string, number>();
  /** Each commit's `openSince` (see PartitionOffset.openSinceMs), where it said one. */
  readonly openSince = new Map<string, number>();
  /** Each commit's rewind mark (see LedgerRewind), where it carried one. */
  readonly rewind = new Map<string, LedgerRewind>();

  /** Appends records to a partition (offsets from `from`); earlier ones were deleted by retention. */
  /** `tenant`: the records' `ce_tenant` header (absent: none). */
  produce(topic: string, from: number, count: number, type = 'shipment.updated', tenant?: string): void {
    const log = this.#logs.get(key(topic, 0)) ?? { logStart: from, records: [] };
    for (let i = 0; i < count; i++) log.records.push(record(topic, from + i, type, tenant));
    this.#logs.set(key(topic, 0), log);
  }

  commit(topic: string, offset: number, openSinceMs?: number, rewind?: LedgerRewind | null): void {
    this.committed.set(key(topic, 0), offset);
    if (openSinceMs === undefined) this.openSince.delete(key(topic, 0));
    else this.openSince.set(key(topic, 0), openSinceMs);
    if (rewind == null) this.rewind.delete(key(topic, 0));
    else this.rewind.set(key(topic, 0), rewind);
  }

  log(topic: string, partition: number): Log | undefined {
    return this.#logs.get(key(topic, partition));
  }
}

/** GroupLedger over a FakeCluster; `hold()` keeps the next read waiting until released. */
export class FakeLedger implements GroupLedger {
  readonly #cluster: FakeCluster;
  reads = 0;
  #held: { gate: Promise<void>; release: () => void } | null = null;

  constructor(cluster: FakeCluster) {
    this.#cluster = cluster;
  }

  async prepare(): Promise<StartedFrom> {
    return 'ledger';
  }

  /** The next read waits until the returned function is called. */
  hold(): () => void {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#held = { gate, release };
    return release;
  }

  async read(topics: readonly string[]): Promise<ReadonlyMap<string, readonly PartitionReading[]>> {
    this.reads++;
    const held = this.#held;
    this.#held = null;
    // What the broker holds when asked, even if the answer arrives later.
    const readings = new Map(
      topics.map((topic) => [
        topic,
        [
          {
            partition: 0,
            committed: this.#cluster.committed.get(key(topic, 0)) ?? null,
            logStart: this.#cluster.log(topic, 0)?.logStart ?? 0,
            logEnd:
              (this.#cluster.log(topic, 0)?.logStart ?? 0) +
              (this.#cluster.log(topic, 0)?.records.length ?? 0),
            openSinceMs: this.#cluster.openSince.get(key(topic, 0)) ?? null,
            rewind: this.#cluster.rewind.get(key(topic, 0)) ?? null,
          },
        ],
      ]),
    );
    if (held) await held.gate;
    return readings;
  }
}

interface PendingCommit {
  readonly offsets: readonly PartitionOffset[];
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * A GroupMember without a broker: the test says when the group assigns, rebalances or crashes,
 * and when a partition is fetched. Fetches follow kafkajs: a paused partition gives nothing, and
 * a position below the log start moves to the log start (kafkajs's reset after
 * OFFSET_OUT_OF_RANGE). Commits land on the cluster at once unless `holdCommits` is set.
 */
export class FakeMember implements GroupMember {
  readonly #cluster: FakeCluster;
  /** Every call, in order: `pause t:0`, `seek t:0@5`, `commit t:0@7`, `leave`… */
  readonly calls: string[] = [];
  topics: readonly string[] = [];
  #listener: MemberListener | null = null;
  #fetched = false;
  readonly #paused = new Set<string>();
  readonly #position = new Map<string, number>();
  #generation = 0;
  holdCommits = false;
  readonly pendingCommits: PendingCommit[] = [];
  readonly resolved: string[] = [];

  constructor(cluster: FakeCluster) {
    this.#cluster = cluster;
  }

  get generation(): number {
    return this.#generation;
  }

  async join(topics: readonly string[], listener: MemberListener): Promise<void> {
    this.topics = topics;
    this.#listener = listener;
  }

  /** The group's join completed with this assignment; the first one is followed by a fetch. */
  assign(assignment: Assignment): void {
    this.#generation++;
    this.#listener?.joined(assignment);
    if (this.#fetched) return;
    this.#fetched = true;
    this.#listener?.firstFetch();
  }

  /** What the member's rejoin would wait for: the group rebalances, or (`rejoin`) its client rejoins on its own. */
  rebalance(why: RejoinCause = 'rebalance'): Promise<void> {
    return this.#listener?.rebalancing(why) ?? Promise.resolve();
  }

  crash(error: Error, restart: boolean): void {
    this.#listener?.crashed({ error, explained: error, restart });
  }

  /** Hands the partition's records from its position, as one batch; none while paused. */
  fetch(topic: string, partition = 0): void {
    const k = key(topic, partition);
    const log = this.#cluster.log(topic, partition);
    if (this.#paused.has(k) || log === undefined || this.#listener === null) return;
    let from = this.#position.get(k) ?? log.logStart;
    if (from < log.logStart) from = log.logStart;
    const records = log.records.filter((r) => Number(r.offset) >= from);
    if (records.length === 0) return;
    const last = records[records.length - 1] as ConsumedRecord;
    this.#position.set(k, Number(last.offset) + 1);
    const batch: MemberBatch = {
      topic,
      partition,
      size: records.length,
      record: (i) => records[i] as ConsumedRecord,
      resolve: (r) => this.resolved.push(`${k}@${r.offset}`),
      current: () => true,
    };
    this.#listener.batch(batch);
  }

  pause(topic: string, partitions: readonly number[]): void {
    this.calls.push(`pause ${topic}:${partitions.join(',')}`);
    for (const p of partitions) this.#paused.add(key(topic, p));
  }

  resume(topic: string, partitions: readonly number[]): void {
    this.calls.push(`resume ${topic}:${partitions.join(',')}`);
    for (const p of partitions) this.#paused.delete(key(topic, p));
  }

  seek(topic: string, partition: number, offset: number): void {
    this.calls.push(`seek ${topic}:${partition}@${offset}`);
    this.#position.set(key(topic, partition), offset);
  }

  commit(offsets: readonly PartitionOffset[]): Promise<void> {
    this.calls.push(`commit ${offsets.map((o) => `${o.topic}:${o.partition}@${o.offset}`).join(' ')}`);
    const land = () => {
      for (const o of offsets) this.#cluster.commit(o.topic, o.offset, o.openSinceMs, o.rewind);
    };
    if (!this.holdCommits) {
      land();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) =>
      this.pendingCommits.push({
        offsets,
        resolve: () => {
          land();
          resolve();
        },
        reject,
      }),
    );
  }

  async leave(): Promise<void> {
    this.calls.push('leave');
  }

  /** The calls since the last look. */
  take(): string[] {
    return this.calls.splice(0);
  }
}

/** A record handler whose records end when the test says so. */
export class Deliveries {
  readonly started: string[] = [];
  readonly #ends = new Map<string, (o: HandlerOutcome) => void>();
  readonly signals = new Map<string, AbortSignal>();
  /** The rewind mark each record was handed with (`by`), by `topic@offset`; absent: none. */
  readonly rewoundBy = new Map<string, string>();

  readonly handle = (r: ConsumedRecord, signal: AbortSignal): Promise<HandlerOutcome> => {
    const id = `${r.topic}@${r.offset}`;
    this.started.push(id);
    this.signals.set(id, signal);
    if (r.rewound === undefined) this.rewoundBy.delete(id);
    else this.rewoundBy.set(id, r.rewound.by);
    return new Promise((resolve) => this.#ends.set(id, resolve));
  };

  /** Ends the latest run of `topic@offset`. */
  async end(id: string, outcome: HandlerOutcome = 'settled'): Promise<void> {
    const end = this.#ends.get(id);
    if (end === undefined) throw new Error(`${id} is not running`);
    this.#ends.delete(id);
    end(outcome);
    await settle();
  }

  /** Ends every record still running whose wait was aborted, as the delivery does. */
  async endAborted(): Promise<void> {
    for (const [id, signal] of this.signals)
      if (signal.aborted && this.#ends.has(id)) await this.end(id, 'abandoned');
  }
}

/** Lets promise chains run (a lane's settle, a ledger read, a commit). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
