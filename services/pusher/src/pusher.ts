import { isPullDefinition, type LogFn } from '@hookstream/contracts';
import type { StartedFrom } from '@hookstream/kafka';
import {
  type DeliveryCounts,
  emptyCounts,
  InstanceStatusPublisher,
  PusherError,
  PusherResources,
  type PusherResourcesSettings,
  SubscriberRunner,
  type SubscriberRunnerOptions,
  SubscriberTopology,
} from '@hookstream/pusher-core';
import { type CatalogSnapshot, CatalogWatcher, SubscriberCatalog } from '@hookstream/subscribers';
import type { LoadedSubscriber } from './definition-file.ts';

export interface PusherSettings
  extends Omit<PusherResourcesSettings, 'clientId'>,
    Pick<SubscriberRunnerOptions, 'resumeFrom' | 'router' | 'lagPollMs' | 'sessionTimeoutMs' | 'onFatal'> {
  /** The events topic the subscriber's group reads. */
  readonly topic: string;
  readonly log: LogFn;
}

/**
 * One subscriber in a process of its own (`hookstream push --config`): wiring and lifecycle.
 * Its definition comes from the file, but its state is the registry's: when hookstream disables
 * it (a 410, failure for days) it writes the subscriber's record there and stops delivering, and
 * starts again from its ledger once `hookstream subscribers resume` makes the record active.
 */
export class Pusher {
  readonly #loaded: LoadedSubscriber;
  readonly #settings: PusherSettings;
  #resources: PusherResources | null = null;
  #runner: SubscriberRunner | null = null;
  #status: InstanceStatusPublisher | null = null;
  #watcher: CatalogWatcher | null = null;
  #disabled = false;
  #restarting: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(loaded: LoadedSubscriber, settings: PusherSettings) {
    if (isPullDefinition(loaded.definition))
      throw new PusherError(
        'PULL_SUBSCRIBER',
        `${loaded.definition.name} is a pull subscriber: its events are leased over the management API (hookstream api), not pushed`,
        false,
      );
    this.#loaded = loaded;
    this.#settings = settings;
  }

  async start(): Promise<StartedFrom> {
    const { definition } = this.#loaded;
    this.#resources = await PusherResources.open({
      ...this.#settings,
      clientId: `hookstream-pusher-${definition.name}`,
    });
    const resources = this.#resources;
    // Disabled before this process started (a restart): it waits for the resume, delivering nothing.
    const record = (await new SubscriberCatalog(resources.kafka).read()).subscribers.get(definition.name);
    let startedFrom: StartedFrom = 'ledger';
    if (record?.state.kind === 'disabled') await this.#waitForResume();
    else startedFrom = await this.#startRunner();
    this.#status = new InstanceStatusPublisher({
      resources,
      subscribers: () => {
        const runner = this.#runner;
        if (runner === null || this.#disabled) return [];
        return [
          {
            name: definition.name,
            state: 'running',
            oldestUnsettledAt: runner.oldestUnsettledAt(),
            breaker: runner.breaker,
            recent: runner.recentAttempts(),
          },
        ];
      },
      log: this.#settings.log,
    });
    await this.#status.start();
    return startedFrom;
  }

  /** Whether hookstream disabled the subscriber and this process waits for its resume. */
  get disabled(): boolean {
    return this.#disabled;
  }

  get counts(): Readonly<DeliveryCounts> {
    return this.#runner?.counts ?? emptyCounts();
  }

  #startRunner(): Promise<StartedFrom> {
    const { definition, signingKey } = this.#loaded;
    const resources = this.#resources;
    if (resources === null) throw new Error('the resources open before the runner starts');
    this.#runner = new SubscriberRunner({
      ...this.#settings,
      topology: new SubscriberTopology(definition, this.#settings.topic),
      signingKeys: signingKey ? [signingKey] : [],
      resources,
      fileDefinition: definition,
      onDisabled: () => {
        this.#restarting = this.#restarting.then(() => this.#onDisabled());
      },
    });
    return this.#runner.start();
  }

  /** Stops delivering (the ledger stays) and follows the registry until the record is active again. */
  async #onDisabled(): Promise<void> {
    if (this.#stopped || this.#disabled) return;
    await this.#runner?.stop();
    if (!this.#stopped) await this.#waitForResume();
  }

  async #waitForResume(): Promise<void> {
    const resources = this.#resources;
    if (resources === null) return;
    this.#disabled = true;
    this.#settings.log('warn', 'disabled: delivery stopped until hookstream subscribers resume', {
      subscriber: this.#loaded.definition.name,
    });
    this.#watcher = new CatalogWatcher(resources.kafka, {
      log: this.#settings.log,
      onSnapshot: (snapshot) => this.#maybeResume(snapshot),
    });
    await this.#watcher.start();
  }

  async #maybeResume(snapshot: CatalogSnapshot): Promise<void> {
    const record = snapshot.subscribers.get(this.#loaded.definition.name);
    if (!this.#disabled || this.#stopped || record?.state.kind !== 'active') return;
    this.#disabled = false;
    const watcher = this.#watcher;
    this.#watcher = null;
    // Not awaited here: the watcher waits for this callback while it stops.
    void watcher?.stop();
    this.#settings.log('info', 'resumed: delivery continues from the ledger', {
      subscriber: this.#loaded.definition.name,
    });
    await this.#startRunner();
  }

  /** Stops taking work, lets in-flight attempts end, commits what is settled, leaves the group. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#restarting.catch(() => undefined);
    await this.#watcher?.stop();
    await this.#runner?.stop();
    await this.#status?.stop();
    await this.#resources?.close();
  }
}
