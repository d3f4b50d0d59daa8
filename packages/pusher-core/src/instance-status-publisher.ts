import { hostname } from 'node:os';
import {
  INSTANCE_STATUS_TOPIC,
  type InstanceStatus,
  type InstanceSubscriberStatus,
  type LogFn,
  SUBSCRIBER_RECORD_VERSIONS,
} from '@hookstream/contracts';

import type { PusherResources } from './pusher-resources.ts';

export interface InstanceStatusOptions {
  readonly resources: PusherResources;
  /** Unique among running instances; defaults to host:pid. */
  readonly instance?: string | undefined;
  /** What the instance runs right now, asked at each write. */
  readonly subscribers: () => readonly InstanceSubscriberStatus[];
  readonly log: LogFn;
  /** How often the status is written (default 5 s). */
  readonly everyMs?: number;
}

/**
 * Compacted, so the topic holds one record per instance name. Kept short: a dead instance's
 * last record is ignored once stale and compacted away soon after.
 */
export const INSTANCE_STATUS_SPEC = {
  topic: INSTANCE_STATUS_TOPIC,
  partitions: 1,
  config: {
    'cleanup.policy': 'compact',
    'segment.ms': String(3_600_000),
    'delete.retention.ms': String(3_600_000),
  },
};

/** The name an instance reports under when none is given. */
export function defaultInstanceName(): string {
  return `${hostname()}:${process.pid}`;
}

/**
 * Writes what this pusher process runs to `hookstream.instances` every few seconds, so
 * `subscribers list` can say which instances run a subscriber and how old their oldest
 * unsettled record is; a clean stop writes a tombstone. A failed write is logged once and
 * retried at the next period: the status is informative, never a reason to stop delivering.
 */
export class InstanceStatusPublisher {
  readonly instance: string;
  readonly #options: InstanceStatusOptions;
  readonly #everyMs: number;
  readonly #startedAt = new Date().toISOString();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failing = false;

  constructor(options: InstanceStatusOptions) {
    this.#options = options;
    this.instance = options.instance ?? defaultInstanceName();
    this.#everyMs = options.everyMs ?? 5000;
  }

  async start(): Promise<void> {
    const { resources } = this.#options;
    await resources.ensureTopics([
      { ...INSTANCE_STATUS_SPEC, replicationFactor: resources.replicationFactor },
    ]);
    await this.publish();
    this.#timer = setInterval(() => void this.publish(), this.#everyMs);
    this.#timer.unref();
  }

  /** Writes the current status now (one write at a time). */
  publish(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write(this.#status()));
    return this.#writing;
  }

  /** Stops writing and leaves a tombstone: this instance runs nothing any more. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#writing = this.#writing.then(() => this.#write(null));
    await this.#writing;
  }

  #status(): InstanceStatus {
    return {
      version: 1,
      instance: this.instance,
      host: hostname(),
      pid: process.pid,
      startedAt: this.#startedAt,
      at: new Date().toISOString(),
      everyMs: this.#everyMs,
      subscribers: [...this.#options.subscribers()],
      recordVersions: [...SUBSCRIBER_RECORD_VERSIONS],
    };
  }

  async #write(status: InstanceStatus | null): Promise<void> {
    try {
      await this.#options.resources.sender.send(INSTANCE_STATUS_TOPIC, [
        {
          key: this.instance,
          value: status === null ? null : Buffer.from(JSON.stringify(status)),
          headers: {},
        },
      ]);
      this.#failing = false;
    } catch (err) {
      if (!this.#failing)
        this.#options.log(
          'warn',
          'cannot write the instance status; subscribers list may not show this instance',
          {
            error: err instanceof Error ? err.message : String(err),
          },
        );
      this.#failing = true;
    }
  }
}
