import { forEachLimited } from '@hookstream/concurrency';
import type { CredentialName, InstanceSubscriberStatus, LogFn } from '@hookstream/contracts';
import type { BreakerPhase } from '@hookstream/delivery';
import type { GroupState } from '@hookstream/kafka';

import type { DeliveryCounts } from './delivery-observer.ts';
import type { KnownRegistration } from './ledger-registrations.ts';
import type { PusherResources } from './pusher-resources.ts';
import type { RecentAttemptCounts } from './recent-attempts.ts';
import { SubscriberRunner } from './subscriber-runner.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

/** Starts at once into groups other instances already run (FleetOptions.liveStartConcurrency). */
const LIVE_START_CONCURRENCY = 10;

/** One subscriber the fleet should be running, as the catalog says right now. */
export interface FleetMember {
  readonly topology: SubscriberTopology;
  /** The current key first; empty: unsigned. */
  readonly signingKeys: readonly Buffer[];
  /** The definition's `{ "managed": true }` header values, opened from the record's seals. */
  readonly managedHeaders: Readonly<Record<string, string>>;
  /** The definition's `{ "managed": true }` outbound credentials, opened from the record's seals. */
  readonly managedCredentials?: Readonly<Partial<Record<CredentialName, string>>>;
  /** Changes whenever something that needs a restart changes (definition, secret). */
  readonly fingerprint: string;
  readonly registration: KnownRegistration;
}

export interface FleetOptions {
  readonly resources: PusherResources;
  /** The log of one subscriber (every line carries its name). */
  readonly logFor: (name: string) => LogFn;
  /** The fleet's own log. */
  readonly log: LogFn;
  readonly sessionTimeoutMs?: number | undefined;
  readonly lagPollMs?: number | undefined;
  /**
   * Subscribers started at once (default 100): a start mostly waits for its group's other members
   * to notice the join at their next heartbeat, not for this process's CPU.
   */
  readonly startConcurrency?: number;
  /**
   * Subscribers whose group already has members (another instance runs them) started at once
   * (default 10): each such start stops every member of that group until it rejoins (Kafka's
   * eager protocol), so a hundred at a time stopped a hundred groups' deliveries at once while
   * this process's starts took the CPU their rejoins needed.
   */
  readonly liveStartConcurrency?: number;
  /** A subscriber that failed to start or crashed is tried again after this long (default 5 s). */
  readonly retryAfterMs?: number;
}

/** What the fleet runs, for `subscribers list` and health. */
export interface FleetEntry {
  readonly name: string;
  readonly state: 'starting' | 'running' | 'failed';
  readonly error?: string;
  readonly counts: Readonly<DeliveryCounts> | null;
  /** Kafka timestamp of the oldest record it holds unsettled; null: none. */
  readonly oldestUnsettledAt: string | null;
  /** The destination's circuit breaker while it runs; null otherwise. */
  readonly breaker: BreakerPhase | null;
  /** HTTP attempts and 2xx answers of the last minutes while it runs; null otherwise. */
  readonly recent: RecentAttemptCounts | null;
}

interface Running {
  readonly member: FleetMember;
  readonly runner: SubscriberRunner;
  state: 'starting' | 'running' | 'failed';
  error?: string;
  failedAtMs?: number;
  /** Settles when the start ended (either way), so a stop never races a start. */
  started: Promise<void>;
}

/**
 * Many subscribers in one process, each its own consumer group on shared resources. The
 * desired set comes in whole (`reconcile`), and only the difference acts: a new member starts,
 * a changed one restarts (stop commits its settled prefix, the restart resumes from the ledger),
 * a missing one stops. One subscriber failing to start or crashing never stops the others; it is
 * tried again on a later reconcile.
 */
export class Fleet {
  readonly #options: FleetOptions;
  readonly #running = new Map<string, Running>();
  #desired: readonly FleetMember[] = [];
  #chain: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: FleetOptions) {
    this.#options = options;
  }

  /** Makes the running set match `desired`; calls queue, so the last desired set wins. */
  reconcile(desired: readonly FleetMember[]): Promise<void> {
    this.#desired = desired;
    this.#chain = this.#chain
      .then(() => this.#reconcile())
      .catch((err: unknown) => {
        this.#options.log('error', 'reconcile failed', {
          error: err instanceof Error ? err.message : String(err),
        });
      });
    return this.#chain;
  }

  /** Settles once every reconcile asked so far has run. */
  whenIdle(): Promise<void> {
    return this.#chain;
  }

  /** Retries subscribers that failed, against the last desired set. */
  retryFailed(): Promise<void> {
    return this.reconcile(this.#desired);
  }

  /** The members started, by name (a failed one included: it is tried again). */
  members(): ReadonlyMap<string, FleetMember> {
    return new Map([...this.#running].map(([name, r]) => [name, r.member]));
  }

  entries(): FleetEntry[] {
    return [...this.#running.values()].map((r) => ({
      name: r.member.topology.name,
      state: r.state,
      ...(r.error === undefined ? {} : { error: r.error }),
      counts: r.state === 'running' ? r.runner.counts : null,
      oldestUnsettledAt: r.state === 'running' ? r.runner.oldestUnsettledAt() : null,
      breaker: r.state === 'running' ? r.runner.breaker : null,
      recent: r.state === 'running' ? r.runner.recentAttempts() : null,
    }));
  }

  /** What this instance runs, as `hookstream.instances` records it. */
  statuses(): InstanceSubscriberStatus[] {
    return this.entries().map((e) => ({
      name: e.name,
      state: e.state,
      oldestUnsettledAt: e.oldestUnsettledAt,
      ...(e.breaker === null ? {} : { breaker: e.breaker }),
      ...(e.recent === null ? {} : { recent: e.recent }),
      ...(e.error === undefined ? {} : { error: e.error.slice(0, 500) }),
    }));
  }

  /** Stops every subscriber (each commits its settled prefix); the shared resources stay open. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#chain;
    await Promise.all([...this.#running.keys()].map((name) => this.#stopOne(name)));
  }

  async #reconcile(): Promise<void> {
    if (this.#stopped) return;
    const desired = new Map(this.#desired.map((m) => [m.topology.name, m]));
    const stops: Promise<void>[] = [];
    for (const [name, running] of this.#running) {
      const want = desired.get(name);
      const retryDue =
        running.state === 'failed' &&
        Date.now() - (running.failedAtMs ?? 0) >= (this.#options.retryAfterMs ?? 5000);
      if (want === undefined || want.fingerprint !== running.member.fingerprint || retryDue) {
        if (want === undefined)
          this.#options.log('info', 'subscriber leaves the fleet', { subscriber: name });
        else if (!retryDue)
          this.#options.log('info', 'subscriber changed; restarting it', { subscriber: name });
        stops.push(this.#stopOne(name));
      }
    }
    await Promise.all(stops);
    const starts = [...desired.values()].filter((m) => !this.#running.has(m.topology.name));
    const liveConcurrency = this.#options.liveStartConcurrency ?? LIVE_START_CONCURRENCY;
    const { idle, live } =
      starts.length > liveConcurrency
        ? await this.#byLiveGroup(starts, liveConcurrency)
        : { idle: starts, live: [] };
    // Groups nobody runs first: they stop no one's deliveries.
    await forEachLimited(idle, this.#options.startConcurrency ?? 100, (m) => this.#startOne(m));
    await forEachLimited(live, liveConcurrency, (m) => this.#startOne(m));
  }

  /** Splits the starts by whether their group has members now; unknown counts as nobody's. */
  async #byLiveGroup(
    starts: FleetMember[],
    atOnce: number,
  ): Promise<{ idle: FleetMember[]; live: FleetMember[] }> {
    let states: GroupState[];
    try {
      states = await this.#options.resources.admin.groupStates(starts.map((m) => m.topology.groupId));
    } catch (err) {
      this.#options.log(
        'warn',
        'could not tell which groups other instances run; starting them all at once',
        {
          error: err instanceof Error ? err.message : String(err),
        },
      );
      return { idle: starts, live: [] };
    }
    const members = new Map(states.map((g) => [g.groupId, g.members]));
    const live = starts.filter((m) => (members.get(m.topology.groupId) ?? 0) > 0);
    const idle = starts.filter((m) => (members.get(m.topology.groupId) ?? 0) === 0);
    if (live.length > 0)
      this.#options.log('info', 'joining groups other instances run, a few at a time', {
        live: live.length,
        idle: idle.length,
        atOnce,
      });
    return { idle, live };
  }

  async #startOne(member: FleetMember): Promise<void> {
    // A stop while a large reconcile is starting subscribers: the rest are not started at all.
    if (this.#stopped) return;
    const { topology } = member;
    const log = this.#options.logFor(topology.name);
    let entry: Running | undefined;
    const runner = new SubscriberRunner({
      topology,
      signingKeys: member.signingKeys,
      managedHeaders: member.managedHeaders,
      ...(member.managedCredentials === undefined ? {} : { managedCredentials: member.managedCredentials }),
      resources: this.#options.resources,
      log,
      registration: member.registration,
      sessionTimeoutMs: this.#options.sessionTimeoutMs,
      ...(this.#options.lagPollMs === undefined ? {} : { lagPollMs: this.#options.lagPollMs }),
      // A crashed consumer fails this subscriber only; the next reconcile after the back-off
      // restarts it from its ledger.
      onFatal: (error) => {
        if (entry === undefined || entry.state === 'failed') return;
        this.#fail(entry, error, log);
        void entry.runner.stop().catch(() => undefined);
      },
    });
    const created: Running = { member, runner, state: 'starting', started: Promise.resolve() };
    entry = created;
    this.#running.set(topology.name, created);
    created.started = runner.start().then(
      () => {
        if (created.state === 'starting') created.state = 'running';
      },
      (error: unknown) => {
        this.#fail(created, error, log);
        return runner.stop().catch(() => undefined);
      },
    );
    await created.started;
  }

  #fail(entry: Running, error: unknown, log: LogFn): void {
    entry.state = 'failed';
    entry.failedAtMs = Date.now();
    const code = (error as { code?: unknown }).code;
    entry.error = `${typeof code === 'string' ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`;
    log('error', 'subscriber failed; it is tried again later, the others go on', { error: entry.error });
  }

  async #stopOne(name: string): Promise<void> {
    const entry = this.#running.get(name);
    if (entry === undefined) return;
    await entry.started;
    await entry.runner.stop().catch(() => undefined);
    this.#running.delete(name);
  }
}
