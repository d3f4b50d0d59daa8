import type { LogFn, StartedFrom } from '@hookstream/kafka';
import {
  type DeliveryCounts,
  emptyCounts,
  InstanceStatusPublisher,
  PusherResources,
  type PusherResourcesSettings,
  SubscriberRunner,
  type SubscriberRunnerOptions,
  SubscriberTopology,
} from '@hookstream/pusher-core';
import type { LoadedSubscriber } from './definition-file.ts';

export interface PusherSettings
  extends Omit<PusherResourcesSettings, 'clientId'>,
    Pick<SubscriberRunnerOptions, 'resumeFrom' | 'router' | 'lagPollMs' | 'sessionTimeoutMs' | 'onFatal'> {
  /** The events topic the subscriber's group reads. */
  readonly topic: string;
  readonly log: LogFn;
}

/** One subscriber in a process of its own (`hookstream push --config`): wiring and lifecycle. */
export class Pusher {
  readonly #loaded: LoadedSubscriber;
  readonly #settings: PusherSettings;
  #resources: PusherResources | null = null;
  #runner: SubscriberRunner | null = null;
  #status: InstanceStatusPublisher | null = null;
  #stopped = false;

  constructor(loaded: LoadedSubscriber, settings: PusherSettings) {
    this.#loaded = loaded;
    this.#settings = settings;
  }

  async start(): Promise<StartedFrom> {
    const { definition, signingKey } = this.#loaded;
    const topology = new SubscriberTopology(definition, this.#settings.topic);
    this.#resources = await PusherResources.open({
      ...this.#settings,
      clientId: `hookstream-pusher-${definition.name}`,
    });
    this.#runner = new SubscriberRunner({
      ...this.#settings,
      topology,
      signingKeys: signingKey ? [signingKey] : [],
      resources: this.#resources,
    });
    const runner = this.#runner;
    const startedFrom = await runner.start();
    this.#status = new InstanceStatusPublisher({
      resources: this.#resources,
      subscribers: () => [
        {
          name: definition.name,
          state: 'running',
          oldestUnsettledAt: runner.oldestUnsettledAt(),
        },
      ],
      log: this.#settings.log,
    });
    await this.#status.start();
    return startedFrom;
  }

  get counts(): Readonly<DeliveryCounts> {
    return this.#runner?.counts ?? emptyCounts();
  }

  /** Stops taking work, lets in-flight attempts end, commits what is settled, leaves the group. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#runner?.stop();
    await this.#status?.stop();
    await this.#resources?.close();
  }
}
