import type { SubscriberDefinition } from '@hookstream/contracts';
import { Pusher } from '@hookstream/pusher';
import type { LogLine } from './pushers.ts';
import { endpoints } from './stack.ts';

export interface SupervisedPusherOptions {
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly definition: Partial<SubscriberDefinition> & { name: string; url: string };
  /** Of the subscriber's own topics; 3 on a three-broker cluster. */
  readonly replicationFactor?: number;
}

/**
 * A pusher against any brokers (a private Kafka or a cluster), restarted the way a process
 * supervisor would when it reports a fatal consumer error: the pusher's contract is to give up
 * and be restarted, and a fault test must count that rather than hang.
 */
export class SupervisedPusher {
  readonly logs: LogLine[] = [];
  readonly fatals: string[] = [];
  readonly #options: SupervisedPusherOptions;
  #current: Pusher | null = null;
  #restarting: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: SupervisedPusherOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    const { brokers, topic, definition, replicationFactor = 1 } = this.#options;
    const pusher = new Pusher(
      {
        definition: {
          eventTypes: ['*'],
          rate: { perSecond: 1000, burst: 0 },
          concurrency: 10,
          timeoutMs: 5000,
          retry: { delaysMs: [200, 400], maxAttempts: 100, maxAgeMs: 3_600_000, jitter: 0 },
          start: 'earliest',
          ordering: 'none',
          headers: {},
          allowPrivateNetwork: true,
          ...definition,
        },
        signingKey: undefined,
      },
      {
        kafka: { brokers, tls: null, sasl: null },
        registry: endpoints.registrySettings,
        topic,
        replicationFactor,
        log: (level, message, fields = {}) => this.logs.push({ level, message, fields }),
        onFatal: (error) => {
          this.fatals.push(error.message);
          this.#restarting = this.#restart(pusher);
        },
      },
    );
    this.#current = pusher;
    try {
      await pusher.start();
    } catch (err) {
      await pusher.stop().catch(() => undefined);
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#restarting;
    await this.#current?.stop().catch(() => undefined);
  }

  async #restart(failed: Pusher): Promise<void> {
    await failed.stop().catch(() => undefined);
    // Kafka may still be away: keep trying, as a supervisor with backoff would.
    while (!this.#stopped) {
      try {
        await this.start();
        return;
      } catch (err) {
        this.fatals.push(`restart failed: ${err instanceof Error ? err.message : String(err)}`);
        await new Promise((ok) => setTimeout(ok, 1000));
      }
    }
  }
}
