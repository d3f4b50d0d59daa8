import {
  type InstanceSubscriberStatus,
  isRegistrationKey,
  type LogFn,
  SubscriberName,
} from '@hookstream/contracts';

import {
  defaultInstanceName,
  Fleet,
  type FleetEntry,
  fleetMembers,
  type HeadroomPoint,
  InstanceStatusPublisher,
  nameMatcher,
  PusherResources,
  type PusherResourcesSettings,
  RecordDerivations,
  RetentionWatch,
} from '@hookstream/pusher-core';
import { type CatalogSnapshot, CatalogWatcher, type SecretsKey } from '@hookstream/subscribers';

export interface FleetProcessSettings extends Omit<PusherResourcesSettings, 'clientId'> {
  /** The events topic every subscriber's group reads. */
  readonly topic: string;
  /** `--match`: comma-separated globs of the names this fleet runs; all when absent. */
  readonly match?: string | undefined;
  readonly secretsKey?: SecretsKey | undefined;
  /** The fleet's own log, and one per subscriber (every line carries its name). */
  readonly log: LogFn;
  readonly logFor: (name: string) => LogFn;
  readonly sessionTimeoutMs?: number | undefined;
  /** The name this instance reports under in `hookstream.instances` (default host:pid). */
  readonly instance?: string | undefined;
  /** How often the retention headroom of the subscribers `--match` covers is looked at (default 60 s). */
  readonly retentionCheckMs?: number | undefined;
}

/** Failed subscribers are retried, and expired rotation keys dropped, this often. */
const TICK_MS = 5000;

/**
 * `hookstream push --all`: every active subscriber of the registry (or those `--match` names) in
 * one process, following the registry while it runs. Wiring only: the registry watch is
 * @hookstream/subscribers', the reconciling fleet @hookstream/pusher-core's.
 */
export class FleetProcess {
  readonly #settings: FleetProcessSettings;
  #resources: PusherResources | null = null;
  #fleet: Fleet | null = null;
  #watcher: CatalogWatcher | null = null;
  #status: InstanceStatusPublisher | null = null;
  #retention: RetentionWatch | null = null;
  #stopHeadroomGauge: (() => void) | undefined;
  #tick: NodeJS.Timeout | undefined;
  #reported = '';
  /** Subscribers of this fleet's catalog it does not run, and why: reported as failed. */
  #skipped: { readonly subscriber: string; readonly error: string }[] = [];
  #stopGauge: (() => void) | undefined;
  #reconciling = false;
  #firstStarted: () => void = () => undefined;
  readonly #started = new Promise<void>((resolve) => {
    this.#firstStarted = resolve;
  });

  /** Each catalog record's topology, built once per record rather than at every look. */
  readonly #derivations = new RecordDerivations();

  constructor(settings: FleetProcessSettings) {
    this.#settings = settings;
  }

  /**
   * Settles once every subscriber of the first catalog snapshot has started (joined its group)
   * or failed to: start() returns before that, as the subscribers start in the background.
   */
  allStarted(): Promise<void> {
    return this.#started;
  }

  /** Starts once the first registry snapshot is read; subscribers start in the background. */
  async start(): Promise<void> {
    const { log } = this.#settings;
    const instance = this.#settings.instance ?? defaultInstanceName();
    this.#resources = await PusherResources.open({
      ...this.#settings,
      clientId: `hookstream-fleet-${instance.replace(/[^A-Za-z0-9._-]/g, '_')}`,
      sharedFetch: true,
    });
    const fleet = new Fleet({
      resources: this.#resources,
      log,
      logFor: this.#settings.logFor,
      sessionTimeoutMs: this.#settings.sessionTimeoutMs,
    });
    this.#fleet = fleet;
    this.#status = new InstanceStatusPublisher({
      resources: this.#resources,
      instance,
      subscribers: () => this.#statuses(fleet),
      log,
    });
    this.#stopGauge = this.#resources.metrics?.observeSkippedRecords(() => this.#skipped.length);
    await this.#status.start();
    this.#watcher = new CatalogWatcher(this.#resources.kafka, {
      log,
      onSnapshot: (snapshot) => this.#apply(snapshot),
    });
    const first = await this.#watcher.start();
    // Every subscriber `--match` covers, whatever its state: a paused or disabled one is not run
    // anywhere, so only the fleets that would run it can warn before retention deletes its events.
    const resources = this.#resources;
    const match = this.#settings.match ? nameMatcher(this.#settings.match) : () => true;
    this.#retention = new RetentionWatch({
      admin: resources.admin,
      eventsTopic: this.#settings.topic,
      subscribers: () =>
        [...(this.#watcher?.snapshot?.subscribers.values() ?? [])].filter((r) => match(r.definition.name)),
      notices: () => resources.noticeProducer(this.#settings.topic),
      log,
      ...(this.#settings.retentionCheckMs === undefined ? {} : { everyMs: this.#settings.retentionCheckMs }),
    });
    this.#stopHeadroomGauge = resources.metrics?.observeRetentionHeadroom(
      () => this.#retention?.points() ?? [],
    );
    this.#retention.start();
    log('info', 'fleet started', {
      subscribers: first.subscribers.size,
      match: this.#settings.match ?? '*',
      instance,
      topic: this.#settings.topic,
    });
    this.#tick = setInterval(() => {
      const snapshot = this.#watcher?.snapshot;
      if (snapshot) void this.#apply(snapshot);
    }, TICK_MS);
    this.#tick.unref();
  }

  /** The retention headroom from the last look, and when it began (null before the first). */
  retentionHeadroom(): { readonly points: readonly HeadroomPoint[]; readonly lookedAtMs: number | null } {
    return { points: this.#retention?.points() ?? [], lookedAtMs: this.#retention?.lookedAtMs() ?? null };
  }

  entries(): FleetEntry[] {
    return this.#fleet?.entries() ?? [];
  }

  /** Settles when every reconcile asked so far has run (tests and start-up waits). */
  async settled(): Promise<void> {
    await this.#fleet?.whenIdle();
  }

  async #apply(snapshot: CatalogSnapshot): Promise<void> {
    const fleet = this.#fleet;
    if (fleet === null) return;
    const { members, problems } = await fleetMembers(
      snapshot,
      {
        eventsTopic: this.#settings.topic,
        ...(this.#settings.match ? { match: nameMatcher(this.#settings.match) } : {}),
        secretsKey: this.#settings.secretsKey,
      },
      fleet.members(),
      this.#derivations,
    );
    this.#report(snapshot, problems);
    // Not awaited: a long reconcile (hundreds of starts) must not hold the registry watch.
    const reconciled = fleet.reconcile(members);
    if (!this.#reconciling) void reconciled.then(this.#firstStarted);
    this.#reconciling = true;
  }

  /**
   * Catalog records and secrets that cannot be used, logged once each until they change; the
   * subscribers among them that this fleet would run are also reported in its instance status
   * (as failed, with the error) and counted by a gauge. None of them stops the others.
   */
  #report(snapshot: CatalogSnapshot, problems: readonly { name: string; error: string }[]): void {
    const all = [
      ...snapshot.problems.map((p) => ({ subscriber: p.key, offset: p.offset, error: p.error })),
      ...problems.map((p) => ({ subscriber: p.name, error: p.error })),
    ];
    const match = this.#settings.match ? nameMatcher(this.#settings.match) : () => true;
    this.#skipped = all.filter(
      (p) =>
        !isRegistrationKey(p.subscriber) &&
        SubscriberName.safeParse(p.subscriber).success &&
        match(p.subscriber),
    );
    const text = JSON.stringify(all);
    if (text === this.#reported) return;
    this.#reported = text;
    for (const p of all)
      this.#settings.log(
        'error',
        'subscriber record unusable; skipped (it keeps its last good definition, if any)',
        p,
      );
  }

  /** What runs, and what is skipped and does not run under any good definition. */
  #statuses(fleet: Fleet): InstanceSubscriberStatus[] {
    const running = fleet.statuses();
    const names = new Set(running.map((s) => s.name));
    const skipped = this.#skipped
      .filter((p) => !names.has(p.subscriber))
      .map((p) => ({
        name: p.subscriber,
        state: 'failed' as const,
        oldestUnsettledAt: null,
        error: p.error.slice(0, 500),
      }));
    return [...running, ...skipped];
  }

  async stop(): Promise<void> {
    clearInterval(this.#tick);
    this.#stopGauge?.();
    this.#stopHeadroomGauge?.();
    // Each step's time in the log: a stop must end within the pod's grace period.
    const steps: Record<string, number> = {};
    const timed = async (step: string, run: () => Promise<void> | undefined) => {
      const at = Date.now();
      await run();
      steps[step] = Date.now() - at;
    };
    await timed('retentionMs', () => this.#retention?.stop());
    // The subscribers first: their stop is what the grace period is for (in-flight attempts end,
    // the ledger commits). A catalog change handed over meanwhile finds the fleet stopped.
    await timed('subscribersMs', () => this.#fleet?.stop());
    await timed('watcherMs', () => this.#watcher?.stop());
    await timed('statusMs', () => this.#status?.stop());
    await timed('resourcesMs', () => this.#resources?.close());
    this.#settings.log('info', 'fleet stopped', steps);
  }
}
