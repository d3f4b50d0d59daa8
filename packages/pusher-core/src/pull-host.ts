import { createHash } from 'node:crypto';
import type { InstanceSubscriberStatus, LogFn, SubscriberRecord } from '@hookstream/contracts';
import { defaultInstanceName, InstanceStatusPublisher } from './instance-status-publisher.ts';
import type { Grant, LeaseSelection, SelectionResult } from './lease-book.ts';
import type { PusherResources } from './pusher-resources.ts';
import { SubscriberRunner } from './subscriber-runner.ts';
import { SubscriberTopology } from './subscriber-topology.ts';

export interface PullHostOptions {
  /** The process's shared clients, opened at the first pull. */
  readonly resources: () => Promise<PusherResources>;
  readonly eventsTopic: string;
  readonly log: LogFn;
  /** A subscriber with no open lease and no call for this long leaves its group (default 5 min). */
  readonly idleMs?: number;
  /** How long the group waits for a silent member before its partitions move (kafkajs's 30 s by default). */
  readonly sessionTimeoutMs?: number;
  /**
   * The catalog, looked at every few seconds: a served subscriber that is gone, no longer active
   * or changed leaves its group (so a rewind or a purge elsewhere finds it empty).
   */
  readonly records?: () => Promise<ReadonlyMap<string, SubscriberRecord>>;
}

/** A lease as asked: up to `max` events, waiting up to `waitMs` for the first, held for `leaseMs`. */
export interface LeaseAsk {
  readonly max: number;
  readonly waitMs: number;
  readonly leaseMs: number;
  /** The request went away: stop waiting. */
  readonly signal: AbortSignal;
}

interface Served {
  ready: boolean;
  readonly record: SubscriberRecord;
  readonly fingerprint: string;
  /** Made once the process's clients are open; null until then. */
  runner: SubscriberRunner | null;
  /** Settles once the runner joined its group (or failed to). */
  started: Promise<void>;
  lastUsedMs: number;
  /** Long polls waiting on it now: it is in use, whatever lastUsedMs says. */
  waiting: number;
}

const DEFAULT_IDLE_MS = 5 * 60_000;
const SWEEP_EVERY_MS = 10_000;
/**
 * A lease that starts the subscriber's member waits at least this long for its first events:
 * records are fetched only once the group is joined, so a `wait=0` call would find none.
 */
const FRESH_WAIT_MS = 5000;

/**
 * Where a process serves its pull subscribers: for each one asked for, a SubscriberRunner in pull
 * mode (its group member, its lease book), started at the first lease and stopped once idle, when
 * its record changes, or when it is no longer active. The group spreads across every process
 * that serves the subscriber; each leases from the partitions it holds, and knows only its own
 * leases (docs/api.md, "Pull").
 */
export class PullHost {
  readonly #options: PullHostOptions;
  readonly #served = new Map<string, Served>();
  readonly #sweep: NodeJS.Timeout;
  /** What this process serves, in hookstream.instances (as a fleet reports): started at the first pull. */
  #status: Promise<InstanceStatusPublisher> | null = null;
  #stopped = false;

  constructor(options: PullHostOptions) {
    this.#options = options;
    this.#sweep = setInterval(() => void this.#stopIdle(), SWEEP_EVERY_MS);
    this.#sweep.unref();
  }

  /**
   * A lease of the subscriber's events (`lease` null: none came within the wait). Waits until an
   * event is there or the wait ends, whichever is first; another poller taking what woke it is no
   * reason to answer early.
   */
  async lease(record: SubscriberRecord, ask: LeaseAsk): Promise<Grant | null> {
    const { served, fresh } = await this.#serve(record);
    served.waiting++;
    try {
      const deadline = Date.now() + (fresh ? Math.max(ask.waitMs, FRESH_WAIT_MS) : ask.waitMs);
      for (;;) {
        const book = served.runner?.leases ?? null;
        if (book === null || this.#served.get(record.definition.name) !== served || ask.signal.aborted)
          return null;
        const grant = book.lease(ask.max, ask.leaseMs);
        const left = deadline - Date.now();
        if (grant !== null || left <= 0) return grant;
        await book.waitForEntries(left, ask.signal);
      }
    } finally {
      served.waiting--;
      served.lastUsedMs = Date.now();
    }
  }

  ack(name: string, leaseId: string, selection: LeaseSelection): SelectionResult {
    return this.#book(name, leaseId, (book) => book.ack(leaseId, selection));
  }

  nack(name: string, leaseId: string, selection: LeaseSelection, delayMs: number | null): SelectionResult {
    return this.#book(name, leaseId, (book) => book.nack(leaseId, selection, delayMs));
  }

  /** The record a subscriber is served by here; undefined when it is not served here. */
  served(name: string): SubscriberRecord | undefined {
    return this.#served.get(name)?.record;
  }

  /** Stops serving a subscriber (deleted, paused, changed): its open leases end with it. */
  async release(name: string): Promise<void> {
    const served = this.#served.get(name);
    if (served === undefined) return;
    this.#served.delete(name);
    await this.#stopServed(served);
  }

  /** Stops a served entry's runner once its start ended (it may still be starting). */
  async #stopServed(served: Served): Promise<void> {
    await served.started.catch(() => undefined);
    await served.runner?.stop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#sweep);
    await Promise.all([...this.#served.keys()].map((name) => this.release(name)));
    // A tombstone: this process serves nothing any more.
    await (await this.#status?.catch(() => null))?.stop();
  }

  /** Each served subscriber as an instance status reports it: its oldest record still unsettled. */
  statuses(): InstanceSubscriberStatus[] {
    return [...this.#served].map(([name, served]) => ({
      name,
      state: served.ready ? 'running' : 'starting',
      oldestUnsettledAt: served.runner?.oldestUnsettledAt() ?? null,
      ...(served.runner === null ? {} : { recent: served.runner.recentAttempts() }),
    }));
  }

  #book(
    name: string,
    leaseId: string,
    act: (book: NonNullable<SubscriberRunner['leases']>) => SelectionResult,
  ): SelectionResult {
    const served = this.#served.get(name);
    const book = served?.runner?.leases ?? null;
    if (served === undefined || book === null)
      return { ok: false, code: 'lease_unknown', message: `${leaseId} is not a lease of ${name} here` };
    served.lastUsedMs = Date.now();
    return act(book);
  }

  /**
   * The subscriber's runner, started (or restarted for a changed record) and joined. The entry is
   * in the map before anything is awaited, so concurrent first leases share one runner; a
   * restart starts the new runner only once the old one left the group. `fresh`: this call
   * started it.
   */
  async #serve(record: SubscriberRecord): Promise<{ served: Served; fresh: boolean }> {
    if (this.#stopped) throw new Error('the pull host is stopping');
    const name = record.definition.name;
    const fingerprint = fingerprintOf(record);
    const current = this.#served.get(name);
    if (current !== undefined && current.fingerprint === fingerprint) {
      current.lastUsedMs = Date.now();
      await current.started;
      return { served: current, fresh: false };
    }
    const previous = current;
    const created: Served = {
      ready: false,
      record,
      fingerprint,
      runner: null,
      started: Promise.resolve(),
      lastUsedMs: Date.now(),
      waiting: 0,
    };
    const started = (async () => {
      if (previous !== undefined) await this.#stopServed(previous);
      const resources = await this.#options.resources();
      this.#status ??= this.#publishStatus(resources);
      const { log } = this.#options;
      const runnerLog: LogFn = (level, message, fields) =>
        log(level, message, { subscriber: name, ...fields });
      const runner = new SubscriberRunner({
        topology: new SubscriberTopology(record.definition, this.#options.eventsTopic),
        signingKeys: [],
        resources,
        log: runnerLog,
        onFatal: (error) => {
          runnerLog('error', 'pull subscriber failed; it starts again at the next lease', {
            error: error.message,
          });
          if (this.#served.get(name) === created) void this.release(name);
        },
        ...(this.#options.sessionTimeoutMs === undefined
          ? {}
          : { sessionTimeoutMs: this.#options.sessionTimeoutMs }),
      });
      created.runner = runner;
      await runner.start();
      created.ready = true;
    })();
    created.started = started;
    this.#served.set(name, created);
    // A start that fails is forgotten, so the next lease tries again.
    started.catch(() => {
      if (this.#served.get(name) === created) this.#served.delete(name);
      void created.runner?.stop().catch(() => undefined);
    });
    await started;
    return { served: created, fresh: true };
  }

  /**
   * Reports what this process serves in hookstream.instances, as a fleet does: `subscribers list`
   * then shows the instance and its oldest unsettled record, and `apply` counts it among the
   * instances that must read a record's version. A failed start is logged; serving goes on.
   */
  async #publishStatus(resources: PusherResources): Promise<InstanceStatusPublisher> {
    const publisher = new InstanceStatusPublisher({
      resources,
      instance: `api:${defaultInstanceName()}`,
      subscribers: () => this.statuses(),
      log: this.#options.log,
    });
    await publisher.start().catch((err: unknown) =>
      this.#options.log('warn', 'cannot report the pull subscribers served here in hookstream.instances', {
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    return publisher;
  }

  async #stopIdle(): Promise<void> {
    if (this.#served.size === 0) return;
    const idleMs = this.#options.idleMs ?? DEFAULT_IDLE_MS;
    const now = Date.now();
    const records = await this.#options.records?.().catch(() => undefined);
    for (const [name, served] of this.#served) {
      const current = records?.get(name);
      const gone =
        records !== undefined &&
        (current === undefined ||
          current.state.kind !== 'active' ||
          fingerprintOf(current) !== served.fingerprint);
      const idle =
        served.waiting === 0 &&
        now - served.lastUsedMs > idleMs &&
        (served.runner?.leases?.leases ?? 0) === 0;
      if (!gone && !idle) continue;
      this.#options.log('info', 'pull subscriber leaves its group here', {
        subscriber: name,
        why: gone ? 'its record changed, or it is no longer active' : 'idle',
      });
      await this.release(name).catch(() => undefined);
    }
  }
}

/** What a restart of a served subscriber depends on: its definition. */
function fingerprintOf(record: SubscriberRecord): string {
  return createHash('sha256').update(JSON.stringify(record.definition)).digest('hex');
}
